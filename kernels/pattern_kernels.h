#pragma once
// Host-callable launchers for the data-check kernels. Each returns the launch's cudaError_t so
// callers check it like any CUDA call.
#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

namespace peerbench::kernels {

cudaError_t fill_pattern(cudaStream_t s, void* buf, std::size_t bytes, std::uint64_t seed);
cudaError_t poison(cudaStream_t s, void* buf, std::size_t bytes, std::uint64_t seed);
// Adds the number of 32-bit words (and tail bytes) that differ from the pattern to *wrong.
cudaError_t check_pattern(cudaStream_t s, const void* buf, std::size_t bytes, std::uint64_t seed,
                          unsigned long long* wrong);

// Fault injection for tests: flips the bits of one word in the middle of buf.
cudaError_t corrupt_one_word(cudaStream_t s, void* buf, std::size_t bytes);

}  // namespace peerbench::kernels
