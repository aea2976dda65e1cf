#pragma once
// NCCL's own buffers for -R (nccl-tests' --local_register): memory from ncclMemAlloc, registered
// with the communicator (1: ncclCommRegister) or as symmetric windows (2: ncclCommWindowRegister,
// NCCL 2.27+), so the small-message gains of registration are measured. The NCCL methods use
// these buffers in place of the engine's (which stay cudaMalloc'd: the copy methods export them
// through CUDA IPC, which NCCL's cuMem memory does not support).
#include <nccl.h>

#include <cstddef>
#include <string>

namespace peerbench::gpu {

class NcclComm;

class NcclBuffers {
 public:
  // Collective for mode 2 (window registration). Throws NcclError/CudaError, naming the call.
  NcclBuffers(NcclComm& comm, std::size_t bytes, int mode);
  NcclBuffers(const NcclBuffers&) = delete;
  NcclBuffers& operator=(const NcclBuffers&) = delete;
  ~NcclBuffers();  // deregisters, then frees; before the communicator is destroyed

  void* src() const { return src_; }
  void* dst() const { return dst_; }
  int mode() const { return mode_; }
  std::string describe() const;

 private:
  void release() noexcept;
  NcclComm& comm_;
  std::size_t bytes_ = 0;
  int mode_ = 0;
  void* src_ = nullptr;
  void* dst_ = nullptr;
  void* src_handle_ = nullptr;  // ncclCommRegister's handle, or the ncclWindow_t
  void* dst_handle_ = nullptr;
};

}  // namespace peerbench::gpu
