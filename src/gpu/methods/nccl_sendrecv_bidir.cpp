// nccl-sendrecv-bidir: both ranks send to and receive from each other in one NCCL group.
#include "gpu/check.h"
#include "gpu/method.h"
#include "gpu/methods/nccl_method.h"

namespace peerbench::gpu {
namespace {

class NcclSendRecvBidir : public Method {
 public:
  NcclSendRecvBidir() : Method("nccl-sendrecv-bidir") {}
  std::vector<int> workers(int src, int dst) const override { return {src, dst}; }
  std::vector<Flow> flows(int src, int dst) const override {
    return {{src, dst, src}, {dst, src, dst}};
  }
  std::string unavailable(const StepContext& c) const override { return require_nccl(c); }
  void enqueue(StepContext& c) override {
    NcclGroup group;
    PB_NCCL(ncclSend(c.local.src, c.bytes, ncclInt8, c.other(), c.nccl->get(), c.stream));
    PB_NCCL(ncclRecv(c.local.dst, c.bytes, ncclInt8, c.other(), c.nccl->get(), c.stream));
    group.end();
    c.nccl->wait_ready(c.opts.timeout_s);
  }
};

}  // namespace

std::unique_ptr<Method> make_nccl_sendrecv_bidir() {
  return std::make_unique<NcclSendRecvBidir>();
}

}  // namespace peerbench::gpu
