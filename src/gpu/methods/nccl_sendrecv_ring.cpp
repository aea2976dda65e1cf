// nccl-sendrecv-ring: every rank sends to the next and receives from the previous at once (what
// nccl-tests' sendrecv_perf measures). On two ranks both directions of the pair are loaded, as
// in nccl-sendrecv-bidir. Size = what each rank sends.
#include "gpu/check.h"
#include "gpu/method.h"
#include "gpu/methods/nccl_collective.h"

namespace peerbench::gpu {
namespace {

class NcclSendRecvRing : public NcclCollective {
 public:
  NcclSendRecvRing() : NcclCollective("nccl-sendrecv-ring") {}
  CollectiveLayout collective_layout(const StepContext& c) const override {
    const std::size_t n = block(c);
    return {kernels::CollKind::kRing, n, n, n, false};
  }
  int launches_per_iteration() const override { return 2; }

 protected:
  void call(StepContext& c) override {
    const int n = c.rank.size;
    NcclGroup group;
    PB_NCCL(ncclSend(c.local.src, block(c), nccl_type(c.dtype), (c.rank.rank + 1) % n,
                     c.nccl->get(), c.stream));
    PB_NCCL(ncclRecv(c.local.dst, block(c), nccl_type(c.dtype), (c.rank.rank + n - 1) % n,
                     c.nccl->get(), c.stream));
    group.end();
  }
};

}  // namespace

std::unique_ptr<Method> make_nccl_sendrecv_ring() {
  return std::make_unique<NcclSendRecvRing>();
}

}  // namespace peerbench::gpu
