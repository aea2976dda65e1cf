#include "gpu/cuda_raii.h"

#include <cstdio>

namespace peerbench::gpu {

void report_release_failure(const char* what, cudaError_t e) {
  if (e == cudaSuccess || e == cudaErrorCudartUnloading) return;
  (void)cudaGetLastError();
  std::fprintf(stderr, "peerbench: warning: %s failed while releasing: %s\n", what,
               cudaGetErrorName(e));
}

Stream Stream::create() {
  cudaStream_t s = nullptr;
  PB_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return Stream(s);
}
Stream& Stream::operator=(Stream&& o) noexcept {
  if (this != &o) {
    this->~Stream();
    s_ = std::exchange(o.s_, nullptr);
  }
  return *this;
}
Stream::~Stream() {
  if (s_) report_release_failure("cudaStreamDestroy", cudaStreamDestroy(s_));
  s_ = nullptr;
}

Event Event::create() {
  cudaEvent_t e = nullptr;
  PB_CUDA(cudaEventCreate(&e));
  return Event(e);
}
Event& Event::operator=(Event&& o) noexcept {
  if (this != &o) {
    this->~Event();
    e_ = std::exchange(o.e_, nullptr);
  }
  return *this;
}
Event::~Event() {
  if (e_) report_release_failure("cudaEventDestroy", cudaEventDestroy(e_));
  e_ = nullptr;
}

DeviceBuffer DeviceBuffer::allocate(std::size_t bytes) {
  void* p = nullptr;
  PB_CUDA(cudaMalloc(&p, bytes));
  return DeviceBuffer(p, bytes);
}
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    this->~DeviceBuffer();
    p_ = std::exchange(o.p_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}
DeviceBuffer::~DeviceBuffer() {
  if (p_) report_release_failure("cudaFree", cudaFree(p_));
  p_ = nullptr;
}

MappedHostBuffer MappedHostBuffer::allocate(std::size_t bytes) {
  MappedHostBuffer b;
  PB_CUDA(cudaHostAlloc(&b.host_, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
  PB_CUDA(cudaHostGetDevicePointer(&b.dev_, b.host_, 0));
  return b;
}
MappedHostBuffer& MappedHostBuffer::operator=(MappedHostBuffer&& o) noexcept {
  if (this != &o) {
    this->~MappedHostBuffer();
    host_ = std::exchange(o.host_, nullptr);
    dev_ = std::exchange(o.dev_, nullptr);
  }
  return *this;
}
MappedHostBuffer::~MappedHostBuffer() {
  if (host_) report_release_failure("cudaFreeHost", cudaFreeHost(host_));
  host_ = nullptr;
}

HostRegistration HostRegistration::register_memory(void* p, std::size_t bytes) {
  HostRegistration r;
  PB_CUDA(cudaHostRegister(p, bytes, cudaHostRegisterMapped | cudaHostRegisterPortable));
  r.p_ = p;
  PB_CUDA(cudaHostGetDevicePointer(&r.dev_, p, 0));
  return r;
}
HostRegistration& HostRegistration::operator=(HostRegistration&& o) noexcept {
  if (this != &o) {
    this->~HostRegistration();
    p_ = std::exchange(o.p_, nullptr);
    dev_ = std::exchange(o.dev_, nullptr);
  }
  return *this;
}
HostRegistration::~HostRegistration() {
  if (p_) report_release_failure("cudaHostUnregister", cudaHostUnregister(p_));
  p_ = nullptr;
}

IpcMapping IpcMapping::open(const cudaIpcMemHandle_t& h) {
  IpcMapping m;
  // Lazy peer access: the driver enables it for this mapping when the pair supports it.
  PB_CUDA(cudaIpcOpenMemHandle(&m.p_, h, cudaIpcMemLazyEnablePeerAccess));
  return m;
}
IpcMapping& IpcMapping::operator=(IpcMapping&& o) noexcept {
  if (this != &o) {
    this->~IpcMapping();
    p_ = std::exchange(o.p_, nullptr);
  }
  return *this;
}
IpcMapping::~IpcMapping() {
  if (p_) report_release_failure("cudaIpcCloseMemHandle", cudaIpcCloseMemHandle(p_));
  p_ = nullptr;
}

GraphExec GraphExec::end_capture(cudaStream_t s) {
  GraphExec g;
  PB_CUDA(cudaStreamEndCapture(s, &g.graph_));
  PB_CUDA(cudaGraphInstantiate(&g.exec_, g.graph_, 0));
  return g;
}
GraphExec& GraphExec::operator=(GraphExec&& o) noexcept {
  if (this != &o) {
    this->~GraphExec();
    graph_ = std::exchange(o.graph_, nullptr);
    exec_ = std::exchange(o.exec_, nullptr);
  }
  return *this;
}
GraphExec::~GraphExec() {
  if (exec_) report_release_failure("cudaGraphExecDestroy", cudaGraphExecDestroy(exec_));
  if (graph_) report_release_failure("cudaGraphDestroy", cudaGraphDestroy(graph_));
  exec_ = nullptr;
  graph_ = nullptr;
}
void GraphExec::launch(cudaStream_t s) const {
  PB_CUDA(cudaGraphLaunch(exec_, s));
}

}  // namespace peerbench::gpu
