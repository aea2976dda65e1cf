// sm-bidir: kernels on both GPUs store into the other at once.
#include "gpu/check.h"
#include "gpu/method.h"

namespace peerbench::gpu {
namespace {

class SmBidir : public Method {
 public:
  SmBidir() : Method("sm-bidir") {}
  std::vector<int> workers(int src, int dst) const override { return {src, dst}; }
  std::vector<Flow> flows(int src, int dst) const override {
    return {{src, dst, src}, {dst, src, dst}};
  }
  void enqueue(StepContext& c) override {
    PB_CUDA(kernels::sm_copy(c.stream, c.peer.dst, c.local.src, c.bytes, c.copy_launch));
  }
};

}  // namespace

std::unique_ptr<Method> make_sm_bidir() {
  return std::make_unique<SmBidir>();
}

}  // namespace peerbench::gpu
