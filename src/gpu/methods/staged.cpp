// staged: what a copy costs without P2P. The source GPU copies chunks into pinned host memory
// shared by both ranks, the destination GPU copies them out, pipelined over a ring of slots
// (as NCCL's SHM transport does). Flags in the same host memory order the two sides; GPU-side
// waits keep the host out of the loop.
#include "gpu/check.h"
#include "gpu/host_staging.h"
#include "gpu/method.h"
#include "sync_kernels.h"

namespace peerbench::gpu {
namespace {

class Staged : public Method {
 public:
  Staged() : Method("staged") {}
  std::vector<int> workers(int src, int dst) const override { return {src, dst}; }
  std::vector<Flow> flows(int src, int dst) const override { return {{src, dst, src}}; }
  std::string unavailable(const StepContext& c) const override {
    return c.staging ? ""
                     : (c.staging_reason.empty() ? "host staging unavailable" : c.staging_reason);
  }
  // Each iteration is hundreds of small operations; behind a gate they would fill the queue.
  bool use_start_gate() const override { return false; }

  void prepare(StepContext& c) override {
    *c.sequence = 0;
    if (c.is_src()) c.staging->reset(c.rank.local_rank_of_rank[c.src]);
  }

  void enqueue(StepContext& c) override {
    const auto ring = c.staging->ring(c.rank.local_rank_of_rank[c.src]);
    const std::size_t chunk = c.staging->chunk();
    const auto slots = static_cast<std::uint64_t>(c.staging->slots());
    for (std::size_t off = 0; off < c.bytes; off += chunk) {
      const std::size_t n = std::min(chunk, c.bytes - off);
      const std::uint64_t s = ++*c.sequence;
      const std::uint64_t slot = (s - 1) % slots;
      std::uint8_t* host_slot = ring.slots_dev + slot * chunk;
      if (c.is_src()) {
        if (s > slots) {
          PB_CUDA(kernels::flag_wait(c.stream, ring.consumed_dev + slot, s - slots, c.timeout_ns,
                                     c.counter(DeviceCounter::kWaitTimeouts)));
        }
        PB_CUDA(cudaMemcpyAsync(host_slot, static_cast<const std::uint8_t*>(c.local.src) + off, n,
                                cudaMemcpyDefault, c.stream));
        PB_CUDA(kernels::flag_set(c.stream, ring.ready_dev + slot, s));
      } else {
        PB_CUDA(kernels::flag_wait(c.stream, ring.ready_dev + slot, s, c.timeout_ns,
                                   c.counter(DeviceCounter::kWaitTimeouts)));
        PB_CUDA(cudaMemcpyAsync(static_cast<std::uint8_t*>(c.local.dst) + off, host_slot, n,
                                cudaMemcpyDefault, c.stream));
        PB_CUDA(kernels::flag_set(c.stream, ring.consumed_dev + slot, s));
      }
    }
  }

  CheckCounts after_sample(StepContext& c) override {
    unsigned int timeouts = 0;
    PB_CUDA(cudaMemcpy(&timeouts, c.counter(DeviceCounter::kWaitTimeouts), sizeof(timeouts),
                       cudaMemcpyDeviceToHost));
    if (timeouts) {
      throw PeerTimeout("staged: the other rank did not hand over a chunk within --timeout (" +
                        std::to_string(timeouts) + " waits timed out)");
    }
    return {};
  }
};

}  // namespace

std::unique_ptr<Method> make_staged() {
  return std::make_unique<Staged>();
}

}  // namespace peerbench::gpu
