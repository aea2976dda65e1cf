#pragma once
// The one peer-access helper used everywhere. Idempotent: asks cudaDeviceCanAccessPeer first,
// treats cudaErrorPeerAccessAlreadyEnabled as success and clears that sticky-looking error,
// records unsupported pairs instead of failing. A PeerAccess object disables on destruction
// only the access it enabled itself.
#include <string>

namespace peerbench::gpu {

// kViaIpc: the peer GPU is not in this process's view (per-task binding), so peer access
// cannot be asked for; opening the peer's buffer with cudaIpcMemLazyEnablePeerAccess enables it,
// and a failure to open is recorded per pair then.
enum class PeerAccessState { kEnabled, kAlreadyEnabled, kUnsupported, kSameGpu, kViaIpc, kError };
std::string to_string(PeerAccessState s);

class PeerAccess {
 public:
  PeerAccess() = default;
  // Enables access from `device` (made current) to `peer`. Never throws for "cannot peer";
  // records the state and the CUDA error text instead.
  static PeerAccess enable(int device, int peer);
  // The peer's GPU is not visible to this process: access comes with the IPC mapping.
  static PeerAccess through_ipc(int device);
  PeerAccess(const PeerAccess&) = delete;
  PeerAccess& operator=(const PeerAccess&) = delete;
  PeerAccess(PeerAccess&& o) noexcept;
  PeerAccess& operator=(PeerAccess&& o) noexcept;
  ~PeerAccess();

  PeerAccessState state() const { return state_; }
  bool usable() const {
    return state_ == PeerAccessState::kEnabled || state_ == PeerAccessState::kAlreadyEnabled ||
           state_ == PeerAccessState::kSameGpu || state_ == PeerAccessState::kViaIpc;
  }
  bool can_access_peer() const { return can_access_; }
  const std::string& error() const { return error_; }
  int device() const { return device_; }
  int peer() const { return peer_; }

 private:
  void release() noexcept;
  int device_ = -1;
  int peer_ = -1;
  bool can_access_ = false;
  bool owned_ = false;  // we enabled it: we disable it
  PeerAccessState state_ = PeerAccessState::kError;
  std::string error_;
};

}  // namespace peerbench::gpu
