#pragma once
// Every CUDA, NCCL and MPI call goes through these macros. A failure throws a typed exception
// carrying the call as written and file:line; the engine catches it per case, adds rank, host
// and GPU (RankContext::where()) and records a status instead of exiting. NVML is optional and
// loaded at run time: gpu/nvml.cpp checks each return code, and a failed query is recorded as
// not known, with why, rather than thrown.
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include <stdexcept>
#include <string>

namespace peerbench::gpu {

class GpuError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class CudaError : public GpuError {
 public:
  CudaError(cudaError_t code, const std::string& what) : GpuError(what), code_(code) {}
  cudaError_t code() const { return code_; }
  // Sticky errors leave the context unusable: the run must stop, not just skip a case.
  bool sticky() const;

 private:
  cudaError_t code_;
};

class NcclError : public GpuError {
 public:
  NcclError(ncclResult_t code, const std::string& what) : GpuError(what), code_(code) {}
  ncclResult_t code() const { return code_; }

 private:
  ncclResult_t code_;
};

class MpiError : public GpuError {
 public:
  MpiError(int code, const std::string& what) : GpuError(what), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

// GPU work that did not finish within --timeout: it may still be running.
class WatchdogTimeout : public GpuError {
 public:
  using GpuError::GpuError;
};

// A wait inside our own kernels gave up (the peer never answered); the kernels have finished, so
// the GPU is usable and only this case failed.
class PeerTimeout : public GpuError {
 public:
  using GpuError::GpuError;
};

// cudaGetErrorString's text, except that cudaErrorInsufficientDriver says whether there is no
// driver at all (libcuda.so.1 cannot be loaded) or one older than the runtime.
std::string describe_cuda_error(cudaError_t e);

// "src/gpu/x.cpp:12": where a check failed, as every error names it.
std::string call_site(const char* file, int line);

[[noreturn]] void throw_cuda(cudaError_t e, const char* call, const char* file, int line);
[[noreturn]] void throw_nccl(ncclResult_t r, const char* call, const char* file, int line);
[[noreturn]] void throw_mpi(int rc, const char* call, const char* file, int line);

inline void check_cuda(cudaError_t e, const char* call, const char* file, int line) {
  if (e != cudaSuccess) throw_cuda(e, call, file, line);
}
inline void check_nccl(ncclResult_t r, const char* call, const char* file, int line) {
  if (r != ncclSuccess && r != ncclInProgress) throw_nccl(r, call, file, line);
}
inline void check_mpi(int rc, const char* call, const char* file, int line) {
  if (rc != MPI_SUCCESS) throw_mpi(rc, call, file, line);
}

}  // namespace peerbench::gpu

#define PB_CUDA(call) ::peerbench::gpu::check_cuda((call), #call, __FILE__, __LINE__)
#define PB_NCCL(call) ::peerbench::gpu::check_nccl((call), #call, __FILE__, __LINE__)
#define PB_MPI(call) ::peerbench::gpu::check_mpi((call), #call, __FILE__, __LINE__)
