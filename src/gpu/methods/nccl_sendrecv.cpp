// nccl-sendrecv: ncclSend on the source, ncclRecv on the destination; other ranks idle.
#include "gpu/check.h"
#include "gpu/method.h"
#include "gpu/methods/nccl_method.h"

namespace peerbench::gpu {
namespace {

class NcclSendRecv : public Method {
 public:
  NcclSendRecv() : Method("nccl-sendrecv") {}
  std::vector<int> workers(int src, int dst) const override { return {src, dst}; }
  std::vector<Flow> flows(int src, int dst) const override { return {{src, dst, src}}; }
  std::string unavailable(const StepContext& c) const override { return require_nccl(c); }
  void enqueue(StepContext& c) override {
    NcclGroup group;
    if (c.is_src())
      PB_NCCL(ncclSend(c.local.src, c.bytes, ncclInt8, c.dst, c.nccl->get(), c.stream));
    if (c.is_dst())
      PB_NCCL(ncclRecv(c.local.dst, c.bytes, ncclInt8, c.src, c.nccl->get(), c.stream));
    group.end();
    c.nccl->wait_ready(c.opts.timeout_s);
  }
};

}  // namespace

std::unique_ptr<Method> make_nccl_sendrecv() {
  return std::make_unique<NcclSendRecv>();
}

}  // namespace peerbench::gpu
