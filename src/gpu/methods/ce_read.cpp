// ce-read: the copy engine of the destination GPU pulls the source's buffer.
#include "gpu/check.h"
#include "gpu/methods/method_defs.h"

namespace peerbench::gpu {
namespace {

class CeRead : public Method {
 public:
  CeRead()
      : Method(
            copy_method("ce-read", "ce",
                        "copy engine on the destination GPU reads from the source (cudaMemcpyAsync "
                        "from the peer mapping)")) {}
  std::vector<int> workers(int, int dst) const override { return {dst}; }
  void enqueue(StepContext& c) override {
    if (!c.is_dst()) return;
    PB_CUDA(cudaMemcpyAsync(c.local.dst, c.peer.src, c.bytes, cudaMemcpyDeviceToDevice, c.stream));
  }
};

}  // namespace

std::unique_ptr<Method> make_ce_read() {
  return std::make_unique<CeRead>();
}

}  // namespace peerbench::gpu
