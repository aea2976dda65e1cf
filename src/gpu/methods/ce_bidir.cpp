// ce-bidir: both copy engines write into the other GPU at once.
#include "gpu/check.h"
#include "gpu/method.h"

namespace peerbench::gpu {
namespace {

class CeBidir : public Method {
 public:
  CeBidir() : Method("ce-bidir") {}
  std::vector<int> workers(int src, int dst) const override { return {src, dst}; }
  std::vector<Flow> flows(int src, int dst) const override {
    return {{src, dst, src}, {dst, src, dst}};
  }
  void enqueue(StepContext& c) override {
    PB_CUDA(cudaMemcpyAsync(c.peer.dst, c.local.src, c.bytes, cudaMemcpyDeviceToDevice, c.stream));
  }
};

}  // namespace

std::unique_ptr<Method> make_ce_bidir() {
  return std::make_unique<CeBidir>();
}

}  // namespace peerbench::gpu
