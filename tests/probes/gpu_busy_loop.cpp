// Another user's job, for the contention tests: device-to-device copies on one GPU in a loop for
// a given time, as a plain CUDA program with nothing of peerbench in it.
//
//   gpu_busy_loop SECONDS [DEVICE] [MiB]
//
// Prints "busy pid PID on device D" once its buffers are up, then copies until the time is over.
#include <cuda_runtime.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace {

int check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return 0;
  std::fprintf(stderr, "gpu_busy_loop: %s: %s\n", what, cudaGetErrorString(e));
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: gpu_busy_loop SECONDS [DEVICE] [MiB]\n");
    return 2;
  }
  const double seconds = std::atof(argv[1]);
  const int device = argc > 2 ? std::atoi(argv[2]) : 0;
  const std::size_t bytes = (argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1024) << 20;
  check(cudaSetDevice(device), "cudaSetDevice");
  void *a = nullptr, *b = nullptr;
  check(cudaMalloc(&a, bytes), "cudaMalloc");
  check(cudaMalloc(&b, bytes), "cudaMalloc");
  check(cudaMemset(a, 1, bytes), "cudaMemset");
  cudaStream_t s;
  check(cudaStreamCreate(&s), "cudaStreamCreate");
  std::printf("busy pid %d on device %d\n", static_cast<int>(::getpid()), device);
  std::fflush(stdout);
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    for (int i = 0; i < 8; ++i)
      check(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s), "copy");
    check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
  }
  return 0;
}
