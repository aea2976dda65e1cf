#pragma once
// Pinned host memory on one NUMA node: the source or destination of the host<->GPU methods.
// Copies between a GPU and memory on the other socket cross the CPU interconnect and measure
// that, not the GPU's PCIe link; so the pages are asked for on the GPU's own node (mbind, preferred
// policy, before first touch), then registered with CUDA for DMA; where they landed is recorded.
#include <cstddef>
#include <optional>
#include <string>

#include "gpu/cuda_raii.h"

namespace peerbench::gpu {

class NumaHostBuffer {
 public:
  NumaHostBuffer() = default;
  // `node`: the GPU's NUMA node (sysfs), or nullopt when the platform does not say. Throws
  // CudaError when registration fails and std::runtime_error when the memory cannot be mapped.
  static NumaHostBuffer allocate(std::size_t bytes, std::optional<int> node);
  NumaHostBuffer(const NumaHostBuffer&) = delete;
  NumaHostBuffer& operator=(const NumaHostBuffer&) = delete;
  NumaHostBuffer(NumaHostBuffer&& o) noexcept;
  NumaHostBuffer& operator=(NumaHostBuffer&& o) noexcept;
  ~NumaHostBuffer();

  void* get() const { return p_; }
  std::size_t bytes() const { return bytes_; }
  // Where the pages are, in words, for the results: "1 GiB pinned on NUMA node 0 (the GPU's
  // node, asked for with mbind)".
  const std::string& placement() const { return placement_; }

 private:
  void release() noexcept;  // unregisters, then unmaps
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
  HostRegistration registration_;
  std::string placement_;
};

}  // namespace peerbench::gpu
