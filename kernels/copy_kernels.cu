#include "copy_kernels.h"

#include <cstdint>

namespace peerbench::kernels {
namespace {

constexpr int kUnroll = 4;

__global__ void copy_kernel(int4* __restrict__ dst, const int4* __restrict__ src, std::size_t n16,
                            std::uint8_t* __restrict__ dst_tail,
                            const std::uint8_t* __restrict__ src_tail, std::size_t tail) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  // Four independent 16-byte loads in flight before the first store: peer accesses have long
  // latency, and one outstanding load per thread leaves the link idle.
  for (; i + (kUnroll - 1) * stride < n16; i += kUnroll * stride) {
    int4 v[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) v[k] = src[i + k * stride];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) dst[i + k * stride] = v[k];
  }
  for (; i < n16; i += stride) dst[i] = src[i];
  if (tail && blockIdx.x == 0 && threadIdx.x < tail) dst_tail[threadIdx.x] = src_tail[threadIdx.x];
}

}  // namespace

CopyLaunch copy_launch_for(int multiprocessors) {
  CopyLaunch l;
  l.threads = 512;
  l.blocks = 4 * (multiprocessors > 0 ? multiprocessors : 80);
  return l;
}

cudaError_t sm_copy(cudaStream_t s, void* dst, const void* src, std::size_t bytes, CopyLaunch l) {
  const std::size_t n16 = bytes / 16;
  const std::size_t tail = bytes % 16;
  auto* d8 = static_cast<std::uint8_t*>(dst);
  const auto* s8 = static_cast<const std::uint8_t*>(src);
  // Fewer blocks for small copies: one block per 64 KiB, at least one.
  std::size_t want = (bytes + 65535) / 65536;
  int blocks =
      static_cast<int>(want < static_cast<std::size_t>(l.blocks) ? (want ? want : 1) : l.blocks);
  copy_kernel<<<blocks, l.threads, 0, s>>>(static_cast<int4*>(dst), static_cast<const int4*>(src),
                                           n16, d8 + n16 * 16, s8 + n16 * 16, tail);
  return cudaGetLastError();
}

}  // namespace peerbench::kernels
