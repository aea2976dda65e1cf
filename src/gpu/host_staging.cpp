#include "gpu/host_staging.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "gpu/check.h"

namespace peerbench::gpu {

namespace {

// Local rank 0's part: a shared-memory segment of `bytes` under a fresh name, its pages reserved.
// Returns the name, or "" with `error` set.
std::string create_segment(std::size_t bytes, std::string& error) {
  std::random_device rd;
  std::string name = "/peerbench-" + std::to_string(::getpid()) + "-" + std::to_string(rd());
  const int fd = ::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) {
    error = "shm_open(" + name + "): " + std::strerror(errno);
    name.clear();
  } else {
    // Reserve the pages now: a tmpfs over its size limit (a container's 64 MB /dev/shm) would
    // otherwise accept ftruncate and kill us with SIGBUS on first touch.
    int rc = 0;
    if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
      rc = errno;
    } else {
      rc = ::posix_fallocate(fd, 0, static_cast<off_t>(bytes));
    }
    if (rc != 0) {
      error = "cannot reserve " + std::to_string(bytes >> 20) +
              " MiB in /dev/shm: " + std::strerror(rc) +
              " (a container may need --shm-size; or use a smaller --staged-chunk)";
      ::shm_unlink(name.c_str());
      name.clear();
    }
    ::close(fd);
  }
  return name;
}

// Every local rank maps the segment the leader named. Returns the mapping, or nullptr with
// `error` set.
void* map_segment(const std::string& name, std::size_t bytes, std::string& error) {
  void* base = nullptr;
  if (!name.empty()) {
    const int fd = ::shm_open(name.c_str(), O_RDWR, 0600);
    if (fd < 0) {
      error = "shm_open(" + name + "): " + std::strerror(errno);
    } else {
      void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      ::close(fd);
      if (p == MAP_FAILED) {
        error = "mmap of the staging segment: " + std::string(std::strerror(errno));
      } else {
        base = p;
      }
    }
  } else if (error.empty()) {
    error = "node leader could not create the staging segment";
  }
  return base;
}

// Collective over ctx.world: true when every rank has its staging, else the reason in `why_not`.
bool all_staged(const RankContext& ctx, const std::string& error, std::string* why_not) {
  const bool ok = all_true(ctx.world, error.empty());
  if (!ok) {
    // Tell every rank why (the first rank's reason that failed).
    const auto reasons =
        allgather_strings(ctx.world, error.empty() ? "" : ctx.where() + ": " + error);
    for (const auto& r : reasons) {
      if (!r.empty()) {
        *why_not = "host staging unavailable: " + r;
        break;
      }
    }
  }
  return ok;
}

}  // namespace

std::unique_ptr<HostStaging> HostStaging::create(const RankContext& ctx, std::size_t chunk,
                                                 int slots, std::string* why_not) {
  std::unique_ptr<HostStaging> s(new HostStaging());
  s->chunk_ = chunk;
  s->slots_ = slots;
  s->bytes_ = s->ring_bytes() * static_cast<std::size_t>(ctx.local_size);
  std::string error;

  // Local rank 0 creates the segment under a fresh name and tells the others.
  std::string name;
  if (ctx.local_rank == 0) name = create_segment(s->bytes_, error);
  name = bcast_string(ctx.node.get(), name, 0);
  if (void* p = map_segment(name, s->bytes_, error)) s->base_ = p;
  // Everyone has mapped it (or failed): the name can go, so nothing outlives the job.
  barrier(ctx.node.get());
  if (ctx.local_rank == 0 && !name.empty()) ::shm_unlink(name.c_str());

  if (s->base_ && error.empty()) {
    try {
      s->registration_ = HostRegistration::register_memory(s->base_, s->bytes_);
      s->dev_base_ = static_cast<std::uint8_t*>(s->registration_.device());
    } catch (const CudaError& e) {
      error = e.what();
    }
  }
  if (!all_staged(ctx, error, why_not)) return nullptr;
  if (ctx.local_rank == 0) std::memset(s->base_, 0, kFlagBytes);  // flags start at zero
  barrier(ctx.node.get());
  return s;
}

HostStaging::~HostStaging() {
  registration_ = HostRegistration();  // unregister before unmapping
  if (base_) ::munmap(base_, bytes_);
}

HostStaging::Ring HostStaging::ring(int sender_local_rank) const {
  Ring r;
  const std::size_t off = ring_bytes() * static_cast<std::size_t>(sender_local_rank);
  auto* host = static_cast<std::uint8_t*>(base_) + off;
  auto* dev = dev_base_ + off;
  r.ready_host = reinterpret_cast<volatile std::uint64_t*>(host);
  r.consumed_host = reinterpret_cast<volatile std::uint64_t*>(host + 512);
  r.ready_dev = reinterpret_cast<volatile std::uint64_t*>(dev);
  r.consumed_dev = reinterpret_cast<volatile std::uint64_t*>(dev + 512);
  r.slots_dev = dev + kFlagBytes;
  return r;
}

void HostStaging::reset(int sender_local_rank) const {
  auto* host = static_cast<std::uint8_t*>(base_) +
               ring_bytes() * static_cast<std::size_t>(sender_local_rank);
  std::memset(host, 0, kFlagBytes);
}

}  // namespace peerbench::gpu
