// nccl-allreduce: sum over all ranks, float32, out of place (in place with --inplace).
#include "gpu/check.h"
#include "gpu/methods/method_defs.h"
#include "gpu/methods/nccl_method.h"

namespace peerbench::gpu {
namespace {

class NcclAllReduce : public Method {
 public:
  NcclAllReduce() : Method(info()) {}
  static MethodInfo info() {
    MethodInfo m;
    m.name = "nccl-allreduce";
    m.family = "nccl";
    m.summary =
        "ncclAllReduce, sum of float32 over all ranks (out of place; --inplace for in place)";
    m.scope = MethodScope::kAllRanks;
    m.collective = Collective::kAllReduce;
    m.uses_nccl = true;
    return m;
  }
  DataMode data_mode() const override { return DataMode::kAllReduceSum; }
  std::string unavailable(const StepContext& c) const override {
    if (c.bytes % 4) return "size is not a multiple of 4 bytes (float32 elements)";
    return require_nccl(c);
  }
  void enqueue(StepContext& c) override {
    void* out = c.opts.allreduce_inplace ? c.local.src : c.local.dst;
    PB_NCCL(
        ncclAllReduce(c.local.src, out, c.bytes / 4, ncclFloat, ncclSum, c.nccl->get(), c.stream));
    c.nccl->wait_ready(c.opts.timeout_s);
  }
};

}  // namespace

std::unique_ptr<Method> make_nccl_allreduce() {
  return std::make_unique<NcclAllReduce>();
}

}  // namespace peerbench::gpu
