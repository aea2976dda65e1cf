// nccl-allgather: every rank's block lands on every rank, in rank order. Size = the gathered
// output (as nccl-tests counts it); each rank contributes size / ranks.
#include "gpu/check.h"
#include "gpu/method.h"
#include "gpu/methods/nccl_collective.h"

namespace peerbench::gpu {
namespace {

class NcclAllGather : public NcclCollective {
 public:
  NcclAllGather() : NcclCollective("nccl-allgather") {}
  CollectiveLayout collective_layout(const StepContext& c) const override {
    const std::size_t n = block(c);
    return {kernels::CollKind::kAllGather, n, n, n * static_cast<std::size_t>(c.rank.size), false};
  }

 protected:
  void call(StepContext& c) override {
    PB_NCCL(ncclAllGather(c.local.src, c.local.dst, block(c), nccl_type(c.dtype), c.nccl->get(),
                          c.stream));
  }
};

}  // namespace

std::unique_ptr<Method> make_nccl_allgather() {
  return std::make_unique<NcclAllGather>();
}

}  // namespace peerbench::gpu
