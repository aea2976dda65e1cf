// The method registry: one line per method, in the order a run measures them. A method is one
// file under methods/ that defines make_<name>(); adding one is that file and its line here (the
// list declares each factory and calls it).
#include "gpu/methods/method_defs.h"

#define PEERBENCH_METHODS(METHOD) \
  METHOD(ce_write)                \
  METHOD(ce_read)                 \
  METHOD(sm_write)                \
  METHOD(sm_read)                 \
  METHOD(ce_bidir)                \
  METHOD(sm_bidir)                \
  METHOD(staged)                  \
  METHOD(h2d)                     \
  METHOD(d2h)                     \
  METHOD(h2d_all)                 \
  METHOD(d2h_all)                 \
  METHOD(ce_latency)              \
  METHOD(sm_latency)              \
  METHOD(nccl_sendrecv)           \
  METHOD(nccl_sendrecv_bidir)     \
  METHOD(nccl_allreduce)          \
  METHOD(nccl_allgather)          \
  METHOD(nccl_reducescatter)      \
  METHOD(nccl_broadcast)          \
  METHOD(nccl_reduce)             \
  METHOD(nccl_alltoall)           \
  METHOD(nccl_sendrecv_ring)

namespace peerbench::gpu {

#define PEERBENCH_DECLARE_FACTORY(name) std::unique_ptr<Method> make_##name();
PEERBENCH_METHODS(PEERBENCH_DECLARE_FACTORY)
#undef PEERBENCH_DECLARE_FACTORY

std::vector<std::unique_ptr<Method>> make_methods() {
  std::vector<std::unique_ptr<Method>> m;
#define PEERBENCH_MAKE(name) m.push_back(make_##name());
  PEERBENCH_METHODS(PEERBENCH_MAKE)
#undef PEERBENCH_MAKE
  return m;
}

}  // namespace peerbench::gpu
