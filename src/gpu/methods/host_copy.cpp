// h2d, d2h, h2d-all, d2h-all: one cudaMemcpyAsync per iteration between the GPU and pinned host
// memory on the GPU's own NUMA node, on the copy engine, as nvbandwidth's host_to_device_memcpy_ce
// and a plain cudaMemcpyAsync from cudaMallocHost memory do. The -all methods run every GPU of
// the job at once behind one start gate: where GPUs share a PCIe switch, root port or memory
// controller, each GPU's figure drops below its solo one.
//
// Data: the engine fills local.src with the pattern and poisons local.dst every sample. h2d
// stages the pattern into host memory before the timed copies and lands in local.dst (checked
// as usual); d2h poisons host memory before, and brings what arrived back into local.dst to be
// checked.
#include "gpu/check.h"
#include "gpu/method.h"

namespace peerbench::gpu {
namespace {

class HostCopy : public Method {
 public:
  HostCopy(bool to_device, bool all_gpus)
      : Method(std::string(to_device ? "h2d" : "d2h") + (all_gpus ? "-all" : "")),
        h2d_(to_device) {}

  std::string unavailable(const StepContext& c) const override {
    if (c.host) return "";
    return c.host_reason.empty() ? "no pinned host buffer" : c.host_reason;
  }

  void before_sample(StepContext& c) override {
    // h2d: the pattern into host memory; d2h: the poison, so stale data cannot pass.
    PB_CUDA(cudaMemcpyAsync(c.host, h2d_ ? c.local.src : c.local.dst, c.bytes,
                            cudaMemcpyDeviceToHost, c.stream));
  }

  void enqueue(StepContext& c) override {
    if (h2d_) {
      PB_CUDA(cudaMemcpyAsync(c.local.dst, c.host, c.bytes, cudaMemcpyHostToDevice, c.stream));
    } else {
      PB_CUDA(cudaMemcpyAsync(c.host, c.local.src, c.bytes, cudaMemcpyDeviceToHost, c.stream));
    }
  }

  void before_check(StepContext& c) override {
    if (!h2d_) {
      PB_CUDA(cudaMemcpyAsync(c.local.dst, c.host, c.bytes, cudaMemcpyHostToDevice, c.stream));
    }
  }

 private:
  bool h2d_;
};

}  // namespace

std::unique_ptr<Method> make_h2d() {
  return std::make_unique<HostCopy>(true, false);
}
std::unique_ptr<Method> make_d2h() {
  return std::make_unique<HostCopy>(false, false);
}
std::unique_ptr<Method> make_h2d_all() {
  return std::make_unique<HostCopy>(true, true);
}
std::unique_ptr<Method> make_d2h_all() {
  return std::make_unique<HostCopy>(false, true);
}

}  // namespace peerbench::gpu
