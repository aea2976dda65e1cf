// ce-write: the copy engine of the source GPU pushes its buffer into the peer's memory.
// cudaMemcpyAsync on the IPC-mapped peer pointer is what cudaMemcpyPeerAsync does inside one
// process; with one process per GPU the peer buffer lives in another process, so its mapping
// is the address the copy engine writes through.
#include "gpu/check.h"
#include "gpu/method.h"

namespace peerbench::gpu {
namespace {

class CeWrite : public Method {
 public:
  CeWrite() : Method("ce-write") {}
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
