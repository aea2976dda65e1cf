#include "pattern_formula.h"
#include "pattern_kernels.h"

namespace peerbench::kernels {
namespace {

constexpr int kThreads = 256;

int blocks_for(std::size_t n) {
  const std::size_t b = (n + kThreads - 1) / kThreads;
  return static_cast<int>(b < 1 ? 1 : (b > 8192 ? 8192 : b));
}

__device__ __forceinline__ std::uint8_t word_byte(std::uint32_t w, std::size_t k) {
  return static_cast<std::uint8_t>(w >> (8 * k));  // little-endian byte k of the word
}

__global__ void fill_kernel(std::uint32_t* words, std::size_t nwords, std::size_t tail,
                            std::uint64_t seed, bool poison_it) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < nwords; i += stride) {
    words[i] = poison_it ? poison_word(seed, i) : pattern_word(seed, i);
  }
  if (tail && blockIdx.x == 0 && threadIdx.x == 0) {
    const std::uint32_t w = poison_it ? poison_word(seed, nwords) : pattern_word(seed, nwords);
    auto* bytes = reinterpret_cast<std::uint8_t*>(words + nwords);
    for (std::size_t k = 0; k < tail; ++k) bytes[k] = word_byte(w, k);
  }
}

__global__ void check_kernel(const std::uint32_t* words, std::size_t nwords, std::size_t tail,
                             std::uint64_t seed, unsigned long long* wrong) {
  unsigned long long bad = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < nwords; i += stride) {
    bad += words[i] != pattern_word(seed, i);
  }
  if (tail && blockIdx.x == 0 && threadIdx.x == 0) {
    const std::uint32_t w = pattern_word(seed, nwords);
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(words + nwords);
    for (std::size_t k = 0; k < tail; ++k) bad += bytes[k] != word_byte(w, k);
  }
  // One atomic per warp.
  for (int off = 16; off > 0; off /= 2) bad += __shfl_down_sync(0xffffffffu, bad, off);
  if ((threadIdx.x & 31) == 0 && bad) atomicAdd(wrong, bad);
}

__global__ void corrupt_kernel(std::uint8_t* buf, std::size_t bytes) {
  const std::size_t at = (bytes / 2) & ~std::size_t{3};
  if (at + 4 <= bytes) {
    auto* w = reinterpret_cast<std::uint32_t*>(buf + at);
    *w = ~*w;
  } else if (bytes) {
    buf[0] = static_cast<std::uint8_t>(~buf[0]);
  }
}

}  // namespace

cudaError_t fill_pattern(cudaStream_t s, void* buf, std::size_t bytes, std::uint64_t seed) {
  const std::size_t n = bytes / 4;
  fill_kernel<<<blocks_for(n), kThreads, 0, s>>>(static_cast<std::uint32_t*>(buf), n, bytes % 4,
                                                 seed, false);
  return cudaGetLastError();
}

cudaError_t poison(cudaStream_t s, void* buf, std::size_t bytes, std::uint64_t seed) {
  const std::size_t n = bytes / 4;
  fill_kernel<<<blocks_for(n), kThreads, 0, s>>>(static_cast<std::uint32_t*>(buf), n, bytes % 4,
                                                 seed, true);
  return cudaGetLastError();
}

cudaError_t check_pattern(cudaStream_t s, const void* buf, std::size_t bytes, std::uint64_t seed,
                          unsigned long long* wrong) {
  const std::size_t n = bytes / 4;
  check_kernel<<<blocks_for(n), kThreads, 0, s>>>(static_cast<const std::uint32_t*>(buf), n,
                                                  bytes % 4, seed, wrong);
  return cudaGetLastError();
}

cudaError_t corrupt_one_word(cudaStream_t s, void* buf, std::size_t bytes) {
  corrupt_kernel<<<1, 1, 0, s>>>(static_cast<std::uint8_t*>(buf), bytes);
  return cudaGetLastError();
}

}  // namespace peerbench::kernels
