// sm-write: a kernel on the source GPU stores into the peer's memory through the peer pointer.
#include "gpu/check.h"
#include "gpu/method.h"

namespace peerbench::gpu {
namespace {

class SmWrite : public Method {
 public:
  SmWrite() : Method("sm-write") {}
  void enqueue(StepContext& c) override {
    if (!c.is_src()) return;
    PB_CUDA(kernels::sm_copy(c.stream, c.peer.dst, c.local.src, c.bytes, c.copy_launch));
  }
};

}  // namespace

std::unique_ptr<Method> make_sm_write() {
  return std::make_unique<SmWrite>();
}

}  // namespace peerbench::gpu
