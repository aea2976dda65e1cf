#pragma once
#include <string>

#include "gpu/method.h"
#include "gpu/nccl_comm.h"

namespace peerbench::gpu {

inline std::string require_nccl(const StepContext& c) {
  if (c.nccl && !c.nccl->aborted()) return "";
  if (c.nccl) return "NCCL communicator was aborted earlier in this run";
  return c.nccl_reason.empty() ? "no NCCL communicator" : c.nccl_reason;
}

}  // namespace peerbench::gpu
