// nccl-broadcast: the root's (-r) buffer lands on every rank. Size = the buffer.
#include "gpu/check.h"
#include "gpu/method.h"
#include "gpu/methods/nccl_collective.h"

namespace peerbench::gpu {
namespace {

class NcclBroadcast : public NcclCollective {
 public:
  NcclBroadcast() : NcclCollective("nccl-broadcast") {}
  CollectiveLayout collective_layout(const StepContext& c) const override {
    const std::size_t n = block(c);
    return {kernels::CollKind::kBroadcast, n, n, n, false};
  }

 protected:
  void call(StepContext& c) override {
    PB_NCCL(ncclBroadcast(c.local.src, c.local.dst, block(c), nccl_type(c.dtype), c.root,
                          c.nccl->get(), c.stream));
  }
};

}  // namespace

std::unique_ptr<Method> make_nccl_broadcast() {
  return std::make_unique<NcclBroadcast>();
}

}  // namespace peerbench::gpu
