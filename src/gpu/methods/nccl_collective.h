#pragma once
// What every NCCL collective method shares: the variant (-d, -o, -r) as NCCL and kernel enums,
// which sizes a collective can take, and the one enqueue shape (call, then wait until the
// non-blocking communicator has taken it). A collective method only says how it lays out its
// buffers and which NCCL call it makes.
#include <nccl.h>

#include <string>

#include "core/plan/element_fit.h"
#include "gpu/method.h"
#include "gpu/methods/nccl_method.h"

namespace peerbench::gpu {

ncclDataType_t nccl_type(DataType t);
ncclRedOp_t nccl_op(ReduceOp o);

class NcclCollective : public Method {
 public:
  using Method::Method;
  DataMode data_mode() const override { return DataMode::kCollective; }
  // Sizes that are not whole elements (times ranks, for the collectives that split the buffer
  // into per-rank blocks), types this NCCL or GPU lacks, and a missing communicator.
  std::string unavailable(const StepContext& c) const override;
  // Whole elements per rank block: the engine rounds a size down to a multiple of this, as
  // nccl-tests does, and records the size it used.
  std::size_t size_unit(const StepContext& c) const override {
    return collective_size_unit(info().collective, c.dtype, c.rank.size);
  }
  std::string unit_words(const StepContext& c) const override;
  void enqueue(StepContext& c) override {
    call(c);
    c.nccl->wait_ready(c.opts.timeout_s);
  }

 protected:
  // Elements per rank block at c.bytes (nccl-tests' count).
  std::size_t block(const StepContext& c) const;
  // Blocks the size is split into: the number of ranks, or 1 (core/plan/element_fit.h).
  int blocks(const StepContext& c) const {
    return collective_blocks(info().collective, c.rank.size);
  }
  virtual void call(StepContext& c) = 0;
};

}  // namespace peerbench::gpu
