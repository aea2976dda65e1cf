// nccl-allreduce: every rank ends with the reduction over all ranks (out of place; --inplace for
// in place). Size = the buffer each rank contributes and receives.
#include "gpu/check.h"
#include "gpu/method.h"
#include "gpu/methods/nccl_collective.h"

namespace peerbench::gpu {
namespace {

class NcclAllReduce : public NcclCollective {
 public:
  NcclAllReduce() : NcclCollective("nccl-allreduce") {}
  CollectiveLayout collective_layout(const StepContext& c) const override {
    const std::size_t n = block(c);
    return {kernels::CollKind::kAllReduce, n, n, n, c.opts.allreduce_inplace};
  }

 protected:
  void call(StepContext& c) override {
    void* out = c.opts.allreduce_inplace ? c.local.src : c.local.dst;
    PB_NCCL(ncclAllReduce(c.local.src, out, block(c), nccl_type(c.dtype), nccl_op(c.op),
                          c.nccl->get(), c.stream));
  }
};

}  // namespace

std::unique_ptr<Method> make_nccl_allreduce() {
  return std::make_unique<NcclAllReduce>();
}

}  // namespace peerbench::gpu
