#pragma once
// Kernels that order work across processes without the host in the loop: a start gate that
// holds a stream until the host releases it (so timed operations start back to back, free of
// launch gaps), and 64-bit flags in host-mapped memory for the host-staged pipeline. Every wait
// has a timeout, so a peer that never answers cannot hang the GPU; timeouts are counted.
#include <cstdint>

#include <cuda_runtime.h>

namespace peerbench::kernels {

// Waits until *flag >= target (flag in host-mapped pinned memory) or timeout_ns passes; on
// timeout increments *timeouts.
cudaError_t gate_wait(cudaStream_t s, const volatile std::uint32_t* flag, std::uint32_t target,
                      std::uint64_t timeout_ns, unsigned int* timeouts);

cudaError_t flag_wait(cudaStream_t s, const volatile std::uint64_t* flag, std::uint64_t target,
                      std::uint64_t timeout_ns, unsigned int* timeouts);
// Stores value into *flag after all prior work of the stream, visible system-wide.
cudaError_t flag_set(cudaStream_t s, volatile std::uint64_t* flag, std::uint64_t value);

// One-way latency of a store seen by the peer: `rounds` round trips between two GPUs, each side
// writing the other's flag through its peer mapping and spinning on its own. `initiator` starts
// each round. Completed rounds are added to *completed; timeouts to *timeouts.
cudaError_t ping_pong(cudaStream_t s, volatile std::uint32_t* local_flag,
                      volatile std::uint32_t* remote_flag, int rounds, unsigned int base,
                      bool initiator, std::uint64_t timeout_ns, unsigned int* completed,
                      unsigned int* timeouts);

}  // namespace peerbench::kernels
