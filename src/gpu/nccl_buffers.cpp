#include "gpu/nccl_buffers.h"

#include <cstdio>

#include "core/model/sizes.h"
#include "gpu/check.h"
#include "gpu/nccl_comm.h"

namespace peerbench::gpu {

NcclBuffers::NcclBuffers(NcclComm& comm, std::size_t bytes, int mode)
    : comm_(comm), bytes_(bytes), mode_(mode) {
  try {
    PB_NCCL(ncclMemAlloc(&src_, bytes_));
    PB_NCCL(ncclMemAlloc(&dst_, bytes_));
    if (mode_ == 1) {
      PB_NCCL(ncclCommRegister(comm_.get(), src_, bytes_, &src_handle_));
      comm_.wait_ready(60);
      PB_NCCL(ncclCommRegister(comm_.get(), dst_, bytes_, &dst_handle_));
      comm_.wait_ready(60);
    } else if (mode_ == 2) {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
      ncclWindow_t w = nullptr;
      PB_NCCL(ncclCommWindowRegister(comm_.get(), src_, bytes_, &w, NCCL_WIN_COLL_SYMMETRIC));
      comm_.wait_ready(60);
      src_handle_ = w;
      PB_NCCL(ncclCommWindowRegister(comm_.get(), dst_, bytes_, &w, NCCL_WIN_COLL_SYMMETRIC));
      comm_.wait_ready(60);
      dst_handle_ = w;
#else
      throw NcclError(ncclInvalidUsage,
                      "-R 2: symmetric windows need NCCL 2.27 or newer (this build's is older)");
#endif
    }
  } catch (...) {
    release();
    throw;
  }
}

NcclBuffers::~NcclBuffers() {
  release();
}

void NcclBuffers::release() noexcept {
  // Failures here are reported, never thrown: this runs on teardown paths.
  auto warn = [](ncclResult_t r, const char* what) {
    if (r != ncclSuccess)
      std::fprintf(stderr, "peerbench: warning: %s: %s\n", what, ncclGetErrorString(r));
  };
  if (!comm_.aborted()) {
    if (mode_ == 1) {
      if (src_handle_) warn(ncclCommDeregister(comm_.get(), src_handle_), "ncclCommDeregister");
      if (dst_handle_) warn(ncclCommDeregister(comm_.get(), dst_handle_), "ncclCommDeregister");
    }
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
    if (mode_ == 2) {
      if (src_handle_)
        warn(ncclCommWindowDeregister(comm_.get(), static_cast<ncclWindow_t>(src_handle_)),
             "ncclCommWindowDeregister");
      if (dst_handle_)
        warn(ncclCommWindowDeregister(comm_.get(), static_cast<ncclWindow_t>(dst_handle_)),
             "ncclCommWindowDeregister");
    }
#endif
  }
  src_handle_ = dst_handle_ = nullptr;
  if (src_) warn(ncclMemFree(src_), "ncclMemFree");
  if (dst_) warn(ncclMemFree(dst_), "ncclMemFree");
  src_ = dst_ = nullptr;
}

std::string NcclBuffers::describe() const {
  const char* how = mode_ == 2   ? "symmetric windows (ncclCommWindowRegister)"
                    : mode_ == 1 ? "registered (ncclCommRegister)"
                                 : "not registered";
  return "NCCL buffers from ncclMemAlloc, 2 x " + format_size(bytes_) + ", " + how;
}

}  // namespace peerbench::gpu
