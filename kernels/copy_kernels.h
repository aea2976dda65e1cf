#pragma once
// SM copy through peer pointers: the kernel runs on one GPU and either stores into the peer's
// memory (sm-write) or loads from it (sm-read). 16-byte accesses, grid-stride, four in flight
// per thread.
#include <cstddef>

#include <cuda_runtime.h>

namespace peerbench::kernels {

struct CopyLaunch {
  int blocks = 0;
  int threads = 512;
};

// blocks = blocks_per_sm * multiprocessors
CopyLaunch copy_launch_for(int multiprocessors);

cudaError_t sm_copy(cudaStream_t s, void* dst, const void* src, std::size_t bytes, CopyLaunch l);

}  // namespace peerbench::kernels
