// The method registry: one line per method, in the order a run measures them.
#include "gpu/methods/method_defs.h"

namespace peerbench::gpu {

std::vector<std::unique_ptr<Method>> make_methods() {
  std::vector<std::unique_ptr<Method>> m;
  m.push_back(make_ce_write());
  m.push_back(make_ce_read());
  m.push_back(make_sm_write());
  m.push_back(make_sm_read());
  m.push_back(make_ce_bidir());
  m.push_back(make_sm_bidir());
  m.push_back(make_staged());
  m.push_back(make_h2d());
  m.push_back(make_d2h());
  m.push_back(make_h2d_all());
  m.push_back(make_d2h_all());
  m.push_back(make_ce_latency());
  m.push_back(make_sm_latency());
  m.push_back(make_nccl_sendrecv());
  m.push_back(make_nccl_sendrecv_bidir());
  m.push_back(make_nccl_allreduce());
  m.push_back(make_nccl_allgather());
  m.push_back(make_nccl_reducescatter());
  m.push_back(make_nccl_broadcast());
  m.push_back(make_nccl_reduce());
  m.push_back(make_nccl_alltoall());
  m.push_back(make_nccl_sendrecv_ring());
  return m;
}

}  // namespace peerbench::gpu
