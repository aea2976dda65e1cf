// ce-read: the copy engine of the destination GPU pulls the source's buffer.
#include "gpu/check.h"
#include "gpu/method.h"

namespace peerbench::gpu {
namespace {

class CeRead : public Method {
 public:
  CeRead() : Method("ce-read") {}
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
