// sm-latency: one-way time of a store seen by the peer. Two single-thread kernels play
// ping-pong through each other's memory; one round trip is two one-way transfers.
#include "gpu/check.h"
#include "gpu/method.h"
#include "sync_kernels.h"

namespace peerbench::gpu {
namespace {

class SmLatency : public Method {
 public:
  SmLatency() : Method("sm-latency") {}
  std::vector<int> workers(int src, int dst) const override { return {src, dst}; }
  std::vector<Flow> flows(int, int) const override { return {}; }
  DataMode data_mode() const override { return DataMode::kNone; }
  std::string unavailable(const StepContext& c) const override {
    if (c.same_gpu) return "ranks share one GPU: a ping-pong needs both kernels resident at once";
    return require_peer(c);
  }
  int iterations_per_sample(const RunOptions&) const override { return 1; }
  double transfers_per_iteration(const RunOptions& o) const override {
    return 2.0 * o.latency_iters;
  }

  void prepare(StepContext& c) override {
    *c.sequence = 0;
    PB_CUDA(cudaMemsetAsync(c.local.signal, 0, 64, c.stream));
    PB_CUDA(cudaStreamSynchronize(c.stream));
  }

  void enqueue(StepContext& c) override {
    // Values keep rising across launches, so a flag left from the last launch never matches.
    const auto base = static_cast<unsigned int>(*c.sequence);
    *c.sequence += static_cast<std::uint64_t>(c.opts.latency_iters);
    PB_CUDA(kernels::ping_pong(c.stream, static_cast<volatile std::uint32_t*>(c.local.signal),
                               static_cast<volatile std::uint32_t*>(c.peer.signal),
                               c.opts.latency_iters, base, c.is_src(), c.timeout_ns,
                               c.counter(DeviceCounter::kCompleted),
                               c.counter(DeviceCounter::kWaitTimeouts)));
  }

  CheckCounts after_sample(StepContext& c) override {
    // kWaitTimeouts and kCompleted, side by side.
    static_assert(static_cast<int>(DeviceCounter::kCompleted) ==
                  static_cast<int>(DeviceCounter::kWaitTimeouts) + 1);
    unsigned int v[2] = {0, 0};  // timeouts, completed
    PB_CUDA(
        cudaMemcpy(v, c.counter(DeviceCounter::kWaitTimeouts), sizeof(v), cudaMemcpyDeviceToHost));
    if (v[0]) {
      throw PeerTimeout("sm-latency: the peer did not answer a ping within --timeout");
    }
    const auto expected = static_cast<std::uint64_t>(c.opts.latency_iters);
    return {expected, expected > v[1] ? expected - v[1] : 0};
  }
};

}  // namespace

std::unique_ptr<Method> make_sm_latency() {
  return std::make_unique<SmLatency>();
}

}  // namespace peerbench::gpu
