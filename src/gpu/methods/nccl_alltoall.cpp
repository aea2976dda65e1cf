// nccl-alltoall: rank r sends its block s to rank s, as grouped send/recv to every rank (what
// nccl-tests does). Size = each rank's whole buffer; each block is size / ranks.
#include "gpu/check.h"
#include "gpu/method.h"
#include "gpu/methods/nccl_collective.h"

namespace peerbench::gpu {
namespace {

class NcclAllToAll : public NcclCollective {
 public:
  NcclAllToAll() : NcclCollective("nccl-alltoall") {}
  CollectiveLayout collective_layout(const StepContext& c) const override {
    const std::size_t n = block(c);
    const std::size_t all = n * static_cast<std::size_t>(c.rank.size);
    return {kernels::CollKind::kAllToAll, n, all, all, false};
  }
  int launches_per_iteration() const override { return 2; }

 protected:
  void call(StepContext& c) override {
    const std::size_t n = block(c);
    const std::size_t step = n * type_size(c.dtype);
    NcclGroup group;
    for (int peer = 0; peer < c.rank.size; ++peer) {
      const std::size_t off = step * static_cast<std::size_t>(peer);
      PB_NCCL(ncclSend(static_cast<char*>(c.local.src) + off, n, nccl_type(c.dtype), peer,
                       c.nccl->get(), c.stream));
      PB_NCCL(ncclRecv(static_cast<char*>(c.local.dst) + off, n, nccl_type(c.dtype), peer,
                       c.nccl->get(), c.stream));
    }
    group.end();
  }
};

}  // namespace

std::unique_ptr<Method> make_nccl_alltoall() {
  return std::make_unique<NcclAllToAll>();
}

}  // namespace peerbench::gpu
