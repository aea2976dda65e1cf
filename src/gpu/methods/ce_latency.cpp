// ce-latency: time of one small copy-engine write into the peer, back to back behind the start
// gate so launch overhead is not what is measured (as p2pBandwidthLatencyTest reports latency).
#include "gpu/check.h"
#include "gpu/method.h"

namespace peerbench::gpu {
namespace {

class CeLatency : public Method {
 public:
  CeLatency() : Method("ce-latency") {}
  int iterations_per_sample(const RunOptions& o) const override { return o.latency_iters; }
  void enqueue(StepContext& c) override {
    if (!c.is_src()) return;
    PB_CUDA(cudaMemcpyAsync(c.peer.dst, c.local.src, c.bytes, cudaMemcpyDeviceToDevice, c.stream));
  }
};

}  // namespace

std::unique_ptr<Method> make_ce_latency() {
  return std::make_unique<CeLatency>();
}

}  // namespace peerbench::gpu
