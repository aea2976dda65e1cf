// nccl-reducescatter: rank r receives block r of the reduction over all ranks. Size = each
// rank's input (as nccl-tests counts it); each rank receives size / ranks.
#include "gpu/check.h"
#include "gpu/method.h"
#include "gpu/methods/nccl_collective.h"

namespace peerbench::gpu {
namespace {

class NcclReduceScatter : public NcclCollective {
 public:
  NcclReduceScatter() : NcclCollective("nccl-reducescatter") {}
  CollectiveLayout collective_layout(const StepContext& c) const override {
    const std::size_t n = block(c);
    return {kernels::CollKind::kReduceScatter, n, n * static_cast<std::size_t>(c.rank.size), n,
            false};
  }

 protected:
  void call(StepContext& c) override {
    PB_NCCL(ncclReduceScatter(c.local.src, c.local.dst, block(c), nccl_type(c.dtype), nccl_op(c.op),
                              c.nccl->get(), c.stream));
  }
};

}  // namespace

std::unique_ptr<Method> make_nccl_reducescatter() {
  return std::make_unique<NcclReduceScatter>();
}

}  // namespace peerbench::gpu
