#include "sync_kernels.h"

namespace peerbench::kernels {
namespace {

__device__ __forceinline__ std::uint64_t now_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Waits until *flag >= target; counts a timeout instead of spinning forever.
template <typename T>
__global__ void wait_at_least_kernel(const volatile T* flag, T target, std::uint64_t timeout_ns,
                                     unsigned int* timeouts, unsigned sleep_ns) {
  const std::uint64_t start = now_ns();
  while (*flag < target) {
    if (now_ns() - start > timeout_ns) {
      atomicAdd(timeouts, 1u);
      return;
    }
    __nanosleep(sleep_ns);
  }
}

__global__ void flag_set_kernel(volatile std::uint64_t* flag, std::uint64_t value) {
  __threadfence_system();  // earlier copies of this stream are complete; make the flag follow
  *flag = value;
  __threadfence_system();
}

__global__ void ping_pong_kernel(volatile std::uint32_t* local, volatile std::uint32_t* remote,
                                 int rounds, unsigned int base, bool initiator,
                                 std::uint64_t timeout_ns, unsigned int* completed,
                                 unsigned int* timeouts) {
  unsigned int done = 0;
  for (int i = 1; i <= rounds; ++i) {
    const auto v = base + static_cast<std::uint32_t>(i);
    if (initiator) {
      *remote = v;
      __threadfence_system();
    }
    const std::uint64_t start = now_ns();
    while (*local != v) {
      if (now_ns() - start > timeout_ns) {
        atomicAdd(timeouts, 1u);
        atomicAdd(completed, done);
        return;
      }
    }
    if (!initiator) {
      *remote = v;
      __threadfence_system();
    }
    ++done;
  }
  atomicAdd(completed, done);
}

}  // namespace

cudaError_t gate_wait(cudaStream_t s, const volatile std::uint32_t* flag, std::uint32_t target,
                      std::uint64_t timeout_ns, unsigned int* timeouts) {
  wait_at_least_kernel<std::uint32_t><<<1, 1, 0, s>>>(flag, target, timeout_ns, timeouts, 100);
  return cudaGetLastError();
}

cudaError_t flag_wait(cudaStream_t s, const volatile std::uint64_t* flag, std::uint64_t target,
                      std::uint64_t timeout_ns, unsigned int* timeouts) {
  wait_at_least_kernel<std::uint64_t><<<1, 1, 0, s>>>(flag, target, timeout_ns, timeouts, 64);
  return cudaGetLastError();
}

cudaError_t flag_set(cudaStream_t s, volatile std::uint64_t* flag, std::uint64_t value) {
  flag_set_kernel<<<1, 1, 0, s>>>(flag, value);
  return cudaGetLastError();
}

cudaError_t ping_pong(cudaStream_t s, volatile std::uint32_t* local_flag,
                      volatile std::uint32_t* remote_flag, int rounds, unsigned int base,
                      bool initiator, std::uint64_t timeout_ns, unsigned int* completed,
                      unsigned int* timeouts) {
  ping_pong_kernel<<<1, 1, 0, s>>>(local_flag, remote_flag, rounds, base, initiator, timeout_ns,
                                   completed, timeouts);
  return cudaGetLastError();
}

}  // namespace peerbench::kernels
