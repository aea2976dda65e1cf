#pragma once
// Move-only owners of CUDA resources, all built on one template. Destructors never throw: a
// failure while releasing is reported on stderr (the run's result is already decided by then).
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "gpu/check.h"

namespace peerbench::gpu {

// Owns one handle and releases it with Release (which reports, never throws).
template <typename Handle, void (*Release)(Handle)>
class Owned {
 public:
  Owned() = default;
  explicit Owned(Handle h) : h_(h) {}
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  Owned(Owned&& o) noexcept : h_(std::exchange(o.h_, Handle{})) {}
  Owned& operator=(Owned&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, Handle{});
    }
    return *this;
  }
  ~Owned() { reset(); }
  Handle get() const { return h_; }
  explicit operator bool() const { return h_ != Handle{}; }
  void reset() noexcept {
    if (h_ != Handle{}) Release(h_);
    h_ = Handle{};
  }

 private:
  Handle h_{};
};

void release_stream(cudaStream_t s);
void release_event(cudaEvent_t e);
void release_device_memory(void* p);
void release_host_memory(void* p);
void release_host_registration(void* p);
void release_ipc_mapping(void* p);
void release_graph(cudaGraph_t g);
void release_graph_exec(cudaGraphExec_t g);

class Stream : public Owned<cudaStream_t, release_stream> {
 public:
  using Owned::Owned;
  static Stream create();  // non-blocking: never serialises with the legacy default stream
};

class Event : public Owned<cudaEvent_t, release_event> {
 public:
  using Owned::Owned;
  static Event create();
};

class DeviceBuffer : public Owned<void*, release_device_memory> {
 public:
  using Owned::Owned;
  static DeviceBuffer allocate(std::size_t bytes);
};

// A peer process's allocation opened through CUDA IPC.
class IpcMapping : public Owned<void*, release_ipc_mapping> {
 public:
  using Owned::Owned;
  static IpcMapping open(const cudaIpcMemHandle_t& h);
};

// Pinned host memory mapped into the device's address space (for flags the GPU polls).
class MappedHostBuffer {
 public:
  static MappedHostBuffer allocate(std::size_t bytes);
  void* host() const { return host_.get(); }
  void* device() const { return device_; }

 private:
  Owned<void*, release_host_memory> host_;
  void* device_ = nullptr;  // alias of host_, valid while host_ lives
};

// Host memory we did not allocate (a shared-memory segment), registered for DMA and mapped.
class HostRegistration {
 public:
  static HostRegistration register_memory(void* p, std::size_t bytes);
  void* device() const { return device_; }

 private:
  Owned<void*, release_host_registration> host_;
  void* device_ = nullptr;
};

class GraphExec {
 public:
  // Ends the capture on `s` and instantiates the graph.
  static GraphExec end_capture(cudaStream_t s);
  void launch(cudaStream_t s) const;
  explicit operator bool() const { return static_cast<bool>(exec_); }

 private:
  Owned<cudaGraph_t, release_graph> graph_;
  Owned<cudaGraphExec_t, release_graph_exec> exec_;  // declared last: destroyed first
};

}  // namespace peerbench::gpu
