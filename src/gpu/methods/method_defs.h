#pragma once
// Shared MethodInfo shapes and the factory declarations of registry.cpp.
#include <memory>

#include "gpu/method.h"

namespace peerbench::gpu {

inline MethodInfo copy_method(const char* name, const char* family, const char* summary) {
  MethodInfo m;
  m.name = name;
  m.family = family;
  m.summary = summary;
  m.needs_p2p = true;
  m.same_host_only = true;
  return m;
}

inline MethodInfo bidir_method(const char* name, const char* family, const char* summary) {
  MethodInfo m = copy_method(name, family, summary);
  m.bidirectional = true;
  return m;
}

std::unique_ptr<Method> make_ce_write();
std::unique_ptr<Method> make_ce_read();
std::unique_ptr<Method> make_sm_write();
std::unique_ptr<Method> make_sm_read();
std::unique_ptr<Method> make_ce_bidir();
std::unique_ptr<Method> make_sm_bidir();
std::unique_ptr<Method> make_staged();
std::unique_ptr<Method> make_h2d();
std::unique_ptr<Method> make_d2h();
std::unique_ptr<Method> make_h2d_all();
std::unique_ptr<Method> make_d2h_all();
std::unique_ptr<Method> make_ce_latency();
std::unique_ptr<Method> make_sm_latency();
std::unique_ptr<Method> make_nccl_sendrecv();
std::unique_ptr<Method> make_nccl_sendrecv_bidir();
std::unique_ptr<Method> make_nccl_allreduce();
std::unique_ptr<Method> make_nccl_allgather();
std::unique_ptr<Method> make_nccl_reducescatter();
std::unique_ptr<Method> make_nccl_broadcast();
std::unique_ptr<Method> make_nccl_reduce();
std::unique_ptr<Method> make_nccl_alltoall();
std::unique_ptr<Method> make_nccl_sendrecv_ring();

}  // namespace peerbench::gpu
