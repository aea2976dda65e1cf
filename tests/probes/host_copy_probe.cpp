// Cross-check for peerbench's h2d / d2h figures: the plain way, one process, cudaMallocHost
// memory allocated by a thread per GPU, cudaMemcpyAsync of `bytes` repeated `iters` times
// between two events; GB/s = bytes x iters / elapsed. Each GPU alone, then every GPU at once
// (one thread per GPU, released together). Median of `repeats`. Not peerbench code: an
// independent second measurement of the same thing.
//
//   host_copy_probe [bytes=1073741824] [iters=20] [repeats=5]
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "gpu/check.h"

namespace {

struct Gpu {
  int device = 0;
  void* host = nullptr;
  void* dev = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
};

void setup(Gpu& g, std::size_t bytes) {
  PB_CUDA(cudaSetDevice(g.device));
  PB_CUDA(cudaMallocHost(&g.host, bytes));
  PB_CUDA(cudaMalloc(&g.dev, bytes));
  PB_CUDA(cudaMemset(g.dev, 0x3C, bytes));
  std::fill_n(static_cast<unsigned char*>(g.host), bytes, 0x5A);
  PB_CUDA(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking));
  PB_CUDA(cudaEventCreate(&g.start));
  PB_CUDA(cudaEventCreate(&g.stop));
}

// One timed batch on g's stream; GB/s.
double batch(Gpu& g, bool h2d, std::size_t bytes, int iters) {
  PB_CUDA(cudaSetDevice(g.device));
  PB_CUDA(cudaEventRecord(g.start, g.stream));
  for (int i = 0; i < iters; ++i) {
    if (h2d) {
      PB_CUDA(cudaMemcpyAsync(g.dev, g.host, bytes, cudaMemcpyHostToDevice, g.stream));
    } else {
      PB_CUDA(cudaMemcpyAsync(g.host, g.dev, bytes, cudaMemcpyDeviceToHost, g.stream));
    }
  }
  PB_CUDA(cudaEventRecord(g.stop, g.stream));
  PB_CUDA(cudaEventSynchronize(g.stop));
  float ms = 0;
  PB_CUDA(cudaEventElapsedTime(&ms, g.start, g.stop));
  return static_cast<double>(bytes) * iters / (ms * 1e-3) / 1e9;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t bytes = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (1ull << 30);
  const int iters = argc > 2 ? std::atoi(argv[2]) : 20;
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 5;
  try {
    int n = 0;
    PB_CUDA(cudaGetDeviceCount(&n));
    std::vector<Gpu> gpus(static_cast<std::size_t>(n));
    std::vector<std::thread> ts;
    for (int d = 0; d < n; ++d) {
      gpus[d].device = d;
      ts.emplace_back([&, d] { setup(gpus[d], bytes); });  // first touch by the GPU's thread
    }
    for (auto& t : ts) t.join();
    for (const bool h2d : {true, false}) {
      const char* name = h2d ? "h2d" : "d2h";
      for (auto& g : gpus) {
        batch(g, h2d, bytes, 2);  // warm-up
        std::vector<double> v;
        for (int r = 0; r < repeats; ++r) v.push_back(batch(g, h2d, bytes, iters));
        std::printf("%s GPU %d alone: %.1f GB/s (median of %d x %d x %zu B)\n", name, g.device,
                    median(v), repeats, iters, bytes);
      }
      std::vector<std::vector<double>> all(static_cast<std::size_t>(n));
      for (int r = 0; r < repeats; ++r) {
        std::atomic<int> ready{0};
        std::vector<std::thread> run;
        for (int d = 0; d < n; ++d) {
          run.emplace_back([&, d] {
            ready.fetch_add(1);
            while (ready.load() < n) {
            }
            all[d].push_back(batch(gpus[d], h2d, bytes, iters));
          });
        }
        for (auto& t : run) t.join();
      }
      for (int d = 0; d < n; ++d) {
        std::printf("%s GPU %d with all %d at once: %.1f GB/s\n", name, d, n, median(all[d]));
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "host_copy_probe: %s\n", e.what());
    return 1;
  }
  return 0;
}
