#include "gpu/cuda_raii.h"

#include <cstdio>

namespace peerbench::gpu {
namespace {

void report(const char* what, cudaError_t e) {
  if (e == cudaSuccess || e == cudaErrorCudartUnloading) return;
  (void)cudaGetLastError();
  std::fprintf(stderr, "peerbench: warning: %s failed while releasing: %s\n", what,
               cudaGetErrorName(e));
}

}  // namespace

void release_stream(cudaStream_t s) {
  report("cudaStreamDestroy", cudaStreamDestroy(s));
}
void release_event(cudaEvent_t e) {
  report("cudaEventDestroy", cudaEventDestroy(e));
}
void release_device_memory(void* p) {
  report("cudaFree", cudaFree(p));
}
void release_host_memory(void* p) {
  report("cudaFreeHost", cudaFreeHost(p));
}
void release_host_registration(void* p) {
  report("cudaHostUnregister", cudaHostUnregister(p));
}
void release_ipc_mapping(void* p) {
  report("cudaIpcCloseMemHandle", cudaIpcCloseMemHandle(p));
}
void release_graph(cudaGraph_t g) {
  report("cudaGraphDestroy", cudaGraphDestroy(g));
}
void release_graph_exec(cudaGraphExec_t g) {
  report("cudaGraphExecDestroy", cudaGraphExecDestroy(g));
}

Stream Stream::create() {
  cudaStream_t s = nullptr;
  PB_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return Stream(s);
}

Event Event::create() {
  cudaEvent_t e = nullptr;
  PB_CUDA(cudaEventCreate(&e));
  return Event(e);
}

DeviceBuffer DeviceBuffer::allocate(std::size_t bytes) {
  void* p = nullptr;
  PB_CUDA(cudaMalloc(&p, bytes));
  return DeviceBuffer(p);
}

IpcMapping IpcMapping::open(const cudaIpcMemHandle_t& h) {
  void* p = nullptr;
  // Lazy peer access: the driver enables it for this mapping when the pair supports it.
  PB_CUDA(cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess));
  return IpcMapping(p);
}

MappedHostBuffer MappedHostBuffer::allocate(std::size_t bytes) {
  void* host = nullptr;
  PB_CUDA(cudaHostAlloc(&host, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
  MappedHostBuffer b;
  b.host_ = decltype(b.host_)(host);
  PB_CUDA(cudaHostGetDevicePointer(&b.device_, host, 0));
  return b;
}

HostRegistration HostRegistration::register_memory(void* p, std::size_t bytes) {
  PB_CUDA(cudaHostRegister(p, bytes, cudaHostRegisterMapped | cudaHostRegisterPortable));
  HostRegistration r;
  r.host_ = decltype(r.host_)(p);
  PB_CUDA(cudaHostGetDevicePointer(&r.device_, p, 0));
  return r;
}

GraphExec GraphExec::end_capture(cudaStream_t s) {
  GraphExec g;
  cudaGraph_t graph = nullptr;
  PB_CUDA(cudaStreamEndCapture(s, &graph));
  g.graph_ = decltype(g.graph_)(graph);
  cudaGraphExec_t exec = nullptr;
  PB_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  g.exec_ = decltype(g.exec_)(exec);
  return g;
}

void GraphExec::launch(cudaStream_t s) const {
  PB_CUDA(cudaGraphLaunch(exec_.get(), s));
}

}  // namespace peerbench::gpu
