// ce-write: the copy engine of the source GPU pushes its buffer into the peer's memory.
// cudaMemcpyAsync on the IPC-mapped peer pointer is what cudaMemcpyPeerAsync does inside one
// process; with one process per GPU the peer buffer lives in another process, so its mapping
// is the address the copy engine writes through.
#include "gpu/check.h"
#include "gpu/methods/method_defs.h"

namespace peerbench::gpu {
namespace {

class CeWrite : public Method {
 public:
  CeWrite()
      : Method(copy_method(
            "ce-write", "ce",
            "copy engine on the source GPU writes into the peer (cudaMemcpyAsync on the "
            "peer mapping, as cudaMemcpyPeerAsync)")) {}
  void enqueue(StepContext& c) override {
    if (!c.is_src()) return;
    PB_CUDA(cudaMemcpyAsync(c.peer.dst, c.local.src, c.bytes, cudaMemcpyDeviceToDevice, c.stream));
  }
};

}  // namespace

std::unique_ptr<Method> make_ce_write() {
  return std::make_unique<CeWrite>();
}

}  // namespace peerbench::gpu
