#pragma once
// Move-only owners of CUDA resources. Destructors never throw: a failure while releasing is
// reported on stderr (the run's result is already decided by then).
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

#include "gpu/check.h"

namespace peerbench::gpu {

void report_release_failure(const char* what, cudaError_t e);

template <typename Derived>
class MoveOnly {
 public:
  MoveOnly() = default;
  MoveOnly(const MoveOnly&) = delete;
  MoveOnly& operator=(const MoveOnly&) = delete;
};

class Stream : MoveOnly<Stream> {
 public:
  Stream() = default;
  static Stream create();  // non-blocking: never serialises with the legacy default stream
  Stream(Stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  Stream& operator=(Stream&& o) noexcept;
  ~Stream();
  cudaStream_t get() const { return s_; }

 private:
  explicit Stream(cudaStream_t s) : s_(s) {}
  cudaStream_t s_ = nullptr;
};

class Event : MoveOnly<Event> {
 public:
  Event() = default;
  static Event create();
  Event(Event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  Event& operator=(Event&& o) noexcept;
  ~Event();
  cudaEvent_t get() const { return e_; }

 private:
  explicit Event(cudaEvent_t e) : e_(e) {}
  cudaEvent_t e_ = nullptr;
};

class DeviceBuffer : MoveOnly<DeviceBuffer> {
 public:
  DeviceBuffer() = default;
  static DeviceBuffer allocate(std::size_t bytes);
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : p_(std::exchange(o.p_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  ~DeviceBuffer();
  void* get() const { return p_; }
  std::size_t bytes() const { return bytes_; }

 private:
  DeviceBuffer(void* p, std::size_t b) : p_(p), bytes_(b) {}
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

// Pinned host memory mapped into the device's address space (for flags the GPU polls).
class MappedHostBuffer : MoveOnly<MappedHostBuffer> {
 public:
  MappedHostBuffer() = default;
  static MappedHostBuffer allocate(std::size_t bytes);
  MappedHostBuffer(MappedHostBuffer&& o) noexcept
      : host_(std::exchange(o.host_, nullptr)), dev_(std::exchange(o.dev_, nullptr)) {}
  MappedHostBuffer& operator=(MappedHostBuffer&& o) noexcept;
  ~MappedHostBuffer();
  void* host() const { return host_; }
  void* device() const { return dev_; }

 private:
  void* host_ = nullptr;
  void* dev_ = nullptr;
};

// Host memory we did not allocate (a shared-memory segment), registered for DMA and mapped.
class HostRegistration : MoveOnly<HostRegistration> {
 public:
  HostRegistration() = default;
  static HostRegistration register_memory(void* p, std::size_t bytes);
  HostRegistration(HostRegistration&& o) noexcept
      : p_(std::exchange(o.p_, nullptr)), dev_(std::exchange(o.dev_, nullptr)) {}
  HostRegistration& operator=(HostRegistration&& o) noexcept;
  ~HostRegistration();
  void* device() const { return dev_; }

 private:
  void* p_ = nullptr;
  void* dev_ = nullptr;
};

// A peer process's allocation opened through CUDA IPC.
class IpcMapping : MoveOnly<IpcMapping> {
 public:
  IpcMapping() = default;
  static IpcMapping open(const cudaIpcMemHandle_t& h);
  IpcMapping(IpcMapping&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  IpcMapping& operator=(IpcMapping&& o) noexcept;
  ~IpcMapping();
  void* get() const { return p_; }

 private:
  void* p_ = nullptr;
};

class GraphExec : MoveOnly<GraphExec> {
 public:
  GraphExec() = default;
  // Ends the capture on `s` and instantiates the graph.
  static GraphExec end_capture(cudaStream_t s);
  GraphExec(GraphExec&& o) noexcept
      : graph_(std::exchange(o.graph_, nullptr)), exec_(std::exchange(o.exec_, nullptr)) {}
  GraphExec& operator=(GraphExec&& o) noexcept;
  ~GraphExec();
  void launch(cudaStream_t s) const;
  explicit operator bool() const { return exec_ != nullptr; }

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace peerbench::gpu
