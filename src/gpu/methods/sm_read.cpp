// sm-read: a kernel on the destination GPU loads the source's memory through the peer pointer.
#include "gpu/check.h"
#include "gpu/method.h"

namespace peerbench::gpu {
namespace {

class SmRead : public Method {
 public:
  SmRead() : Method("sm-read") {}
  std::vector<int> workers(int, int dst) const override { return {dst}; }
  void enqueue(StepContext& c) override {
    if (!c.is_dst()) return;
    PB_CUDA(kernels::sm_copy(c.stream, c.local.dst, c.peer.src, c.bytes, c.copy_launch));
  }
};

}  // namespace

std::unique_ptr<Method> make_sm_read() {
  return std::make_unique<SmRead>();
}

}  // namespace peerbench::gpu
