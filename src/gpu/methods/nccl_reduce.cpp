// nccl-reduce: the reduction over all ranks lands on the root (-r) only. Size = each rank's buffer.
#include "gpu/check.h"
#include "gpu/method.h"
#include "gpu/methods/nccl_collective.h"

namespace peerbench::gpu {
namespace {

class NcclReduce : public NcclCollective {
 public:
  NcclReduce() : NcclCollective("nccl-reduce") {}
  CollectiveLayout collective_layout(const StepContext& c) const override {
    const std::size_t n = block(c);
    return {kernels::CollKind::kReduce, n, n, c.rank.rank == c.root ? n : 0, false};
  }

 protected:
  void call(StepContext& c) override {
    PB_NCCL(ncclReduce(c.local.src, c.local.dst, block(c), nccl_type(c.dtype), nccl_op(c.op),
                       c.root, c.nccl->get(), c.stream));
  }
};

}  // namespace

std::unique_ptr<Method> make_nccl_reduce() {
  return std::make_unique<NcclReduce>();
}

}  // namespace peerbench::gpu
