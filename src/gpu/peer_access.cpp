#include "gpu/peer_access.h"

#include <cuda_runtime.h>

#include <cstdio>
#include <utility>

#include "gpu/check.h"

namespace peerbench::gpu {

std::string to_string(PeerAccessState s) {
  switch (s) {
    case PeerAccessState::kEnabled:
      return "enabled";
    case PeerAccessState::kAlreadyEnabled:
      return "already-enabled";
    case PeerAccessState::kUnsupported:
      return "unsupported";
    case PeerAccessState::kSameGpu:
      return "same-gpu";
    case PeerAccessState::kViaIpc:
      return "via-ipc";
    case PeerAccessState::kError:
      return "error";
  }
  return "error";
}

PeerAccess PeerAccess::through_ipc(int device) {
  PeerAccess a;
  a.device_ = device;
  a.state_ = PeerAccessState::kViaIpc;
  a.error_ =
      "peer GPU not visible to this rank (CUDA_VISIBLE_DEVICES); cudaDeviceCanAccessPeer "
      "not asked, access comes with the CUDA IPC mapping";
  return a;
}

PeerAccess PeerAccess::enable(int device, int peer) {
  PeerAccess a;
  a.device_ = device;
  a.peer_ = peer;
  if (device == peer) {
    a.state_ = PeerAccessState::kSameGpu;
    return a;
  }
  PB_CUDA(cudaSetDevice(device));
  int can = 0;
  PB_CUDA(cudaDeviceCanAccessPeer(&can, device, peer));
  a.can_access_ = can != 0;
  if (!can) {
    a.state_ = PeerAccessState::kUnsupported;
    a.error_ =
        "cudaDeviceCanAccessPeer(" + std::to_string(device) + ", " + std::to_string(peer) + ") = 0";
    return a;
  }
  const cudaError_t e = cudaDeviceEnablePeerAccess(peer, 0);
  if (e == cudaSuccess) {
    a.state_ = PeerAccessState::kEnabled;
    a.owned_ = true;
  } else if (e == cudaErrorPeerAccessAlreadyEnabled) {
    // Success in substance; the runtime still latches the error for cudaGetLastError.
    (void)cudaGetLastError();
    a.state_ = PeerAccessState::kAlreadyEnabled;
  } else {
    (void)cudaGetLastError();
    a.state_ = e == cudaErrorPeerAccessUnsupported ? PeerAccessState::kUnsupported
                                                   : PeerAccessState::kError;
    a.error_ = std::string("cudaDeviceEnablePeerAccess(") + std::to_string(peer) +
               ") failed: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
  }
  return a;
}

PeerAccess::PeerAccess(PeerAccess&& o) noexcept
    : device_(o.device_),
      peer_(o.peer_),
      can_access_(o.can_access_),
      owned_(std::exchange(o.owned_, false)),
      state_(o.state_),
      error_(std::move(o.error_)) {}

PeerAccess& PeerAccess::operator=(PeerAccess&& o) noexcept {
  if (this != &o) {
    release();
    device_ = o.device_;
    peer_ = o.peer_;
    can_access_ = o.can_access_;
    owned_ = std::exchange(o.owned_, false);
    state_ = o.state_;
    error_ = std::move(o.error_);
  }
  return *this;
}

PeerAccess::~PeerAccess() {
  release();
}

void PeerAccess::release() noexcept {
  if (!owned_) return;
  owned_ = false;
  int current = -1;
  // noexcept teardown: without the device there is nothing to release on it; the context goes
  // with the process.
  if (cudaGetDevice(&current) != cudaSuccess) return;
  if (current != device_ && cudaSetDevice(device_) != cudaSuccess) return;
  const cudaError_t e = cudaDeviceDisablePeerAccess(peer_);
  if (e != cudaSuccess && e != cudaErrorPeerAccessNotEnabled && e != cudaErrorCudartUnloading) {
    std::fprintf(stderr, "peerbench: warning: cudaDeviceDisablePeerAccess(%d) from GPU %d: %s\n",
                 peer_, device_, cudaGetErrorName(e));
  }
  (void)cudaGetLastError();
  if (current != device_) (void)cudaSetDevice(current);
}

}  // namespace peerbench::gpu
