#pragma once
// The data pattern, shared by host code (tests, expectations) and device code (fill/check
// kernels). Words depend on a seed built from source rank, size and sample, so a stale buffer
// from the previous sample or another pair never passes the check, and no word is ever zero.
#include <cstdint>

#if defined(__CUDACC__)
#define PEERBENCH_HD __host__ __device__ __forceinline__
#else
#define PEERBENCH_HD inline
#endif

namespace peerbench {

// splitmix64 finalizer: cheap, well mixed.
PEERBENCH_HD std::uint64_t pattern_mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

PEERBENCH_HD std::uint64_t pattern_seed(int src_rank, std::uint64_t bytes, std::uint32_t sample,
                                        std::uint32_t salt) {
  return pattern_mix64((static_cast<std::uint64_t>(src_rank) << 48) ^ (bytes * 0x100000001B3ull) ^
                       (static_cast<std::uint64_t>(sample) << 20) ^ salt);
}

// Word `index` of the pattern; never zero.
PEERBENCH_HD std::uint32_t pattern_word(std::uint64_t seed, std::uint64_t index) {
  const std::uint32_t v =
      static_cast<std::uint32_t>(pattern_mix64(seed ^ (index * 0xD6E8FEB86659FD93ull)) >> 32);
  return v ? v : 0x5A5A5A5Au;
}

// Poison differs from the pattern in every byte, so an unwritten element never passes.
PEERBENCH_HD std::uint32_t poison_word(std::uint64_t seed, std::uint64_t index) {
  return pattern_word(seed, index) ^ 0xA5A5A5A5u;
}

// Collective input element `index` of `rank`: 1..3, or 1..2 with `small` (products, 8-bit
// floats), so sums, products, minima and maxima over up to 8 ranks are exact in every NCCL type
// and never 0 (0 is the poison of outputs).
PEERBENCH_HD int collective_input(std::uint64_t seed, int rank, std::uint64_t index, bool small) {
  const std::uint64_t h = pattern_mix64(seed ^ (static_cast<std::uint64_t>(rank) << 56) ^ index);
  return 1 + static_cast<int>(h % (small ? 2u : 3u));
}

}  // namespace peerbench
