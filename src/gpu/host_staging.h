#pragma once
// Pinned host memory shared by all ranks of a physical node (a POSIX shared-memory segment,
// registered with CUDA in every process): the staging area of the `staged` method, laid out as
// one ring of chunk slots per sending rank, with ready/consumed flags the GPUs poll.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "gpu/cuda_raii.h"
#include "gpu/mpi_context.h"

namespace peerbench::gpu {

class HostStaging {
 public:
  struct Ring {
    std::uint8_t* slots_dev = nullptr;             // device view of slot 0
    volatile std::uint64_t* ready_host = nullptr;  // flags, host view (for resets)
    volatile std::uint64_t* consumed_host = nullptr;
    volatile std::uint64_t* ready_dev = nullptr;  // flags, device view
    volatile std::uint64_t* consumed_dev = nullptr;
  };

  // Collective over every rank of the job. Returns nullptr and sets *why_not when any node
  // could not set it up (no /dev/shm space, registration refused); then `staged` is skipped.
  static std::unique_ptr<HostStaging> create(const RankContext& ctx, std::size_t chunk, int slots,
                                             std::string* why_not);
  HostStaging(const HostStaging&) = delete;
  HostStaging& operator=(const HostStaging&) = delete;
  ~HostStaging();

  Ring ring(int sender_local_rank) const;
  std::size_t chunk() const { return chunk_; }
  int slots() const { return slots_; }
  // Zeroes the flags of a ring (host writes; call while no GPU work uses it).
  void reset(int sender_local_rank) const;

 private:
  HostStaging() = default;
  static constexpr std::size_t kFlagBytes = 4096;  // ready[64] then consumed[64], 8 bytes each
  std::size_t ring_bytes() const { return kFlagBytes + static_cast<std::size_t>(slots_) * chunk_; }
  void* base_ = nullptr;
  std::size_t bytes_ = 0;
  std::size_t chunk_ = 0;
  int slots_ = 0;
  HostRegistration registration_;
  std::uint8_t* dev_base_ = nullptr;
};

}  // namespace peerbench::gpu
