#include "gpu/methods/nccl_collective.h"

#include <cuda_runtime.h>

#include "gpu/check.h"

namespace peerbench::gpu {

ncclDataType_t nccl_type(DataType t) {
  switch (t) {
    case DataType::kInt8:
      return ncclInt8;
    case DataType::kUint8:
      return ncclUint8;
    case DataType::kInt32:
      return ncclInt32;
    case DataType::kUint32:
      return ncclUint32;
    case DataType::kInt64:
      return ncclInt64;
    case DataType::kUint64:
      return ncclUint64;
    case DataType::kHalf:
      return ncclFloat16;
    case DataType::kFloat:
      return ncclFloat32;
    case DataType::kDouble:
      return ncclFloat64;
    case DataType::kBfloat16:
      return ncclBfloat16;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0)
    case DataType::kFp8E4M3:
      return ncclFloat8e4m3;
    case DataType::kFp8E5M2:
      return ncclFloat8e5m2;
#else
    default:
      break;
#endif
  }
  return ncclNumTypes;
}

ncclRedOp_t nccl_op(ReduceOp o) {
  switch (o) {
    case ReduceOp::kSum:
      return ncclSum;
    case ReduceOp::kProd:
      return ncclProd;
    case ReduceOp::kMin:
      return ncclMin;
    case ReduceOp::kMax:
      return ncclMax;
    case ReduceOp::kAvg:
      return ncclAvg;
  }
  return ncclSum;
}

std::size_t NcclCollective::block(const StepContext& c) const {
  return c.bytes / type_size(c.dtype) / static_cast<std::size_t>(blocks(c));
}

std::string NcclCollective::unit_words(const StepContext& c) const {
  return (blocks(c) > 1 ? std::to_string(blocks(c)) + " ranks x " : std::string("one ")) +
         to_string(c.dtype) + " element" + (blocks(c) > 1 ? "s" : "") + " (" +
         std::to_string(size_unit(c)) + " B)";
}

std::string NcclCollective::unavailable(const StepContext& c) const {
  const std::size_t unit = size_unit(c);
  if (c.bytes % unit != 0 || c.bytes < unit) {
    return "size is not a multiple of " + std::to_string(unit) + " bytes (" +
           (blocks(c) > 1 ? std::to_string(blocks(c)) + " ranks x " : std::string()) +
           to_string(c.dtype) + " elements)";
  }
  if (nccl_type(c.dtype) == ncclNumTypes)
    return "this NCCL (" + nccl_version_string() + ") has no " + to_string(c.dtype) + " type";
  if (c.dtype == DataType::kFp8E4M3 || c.dtype == DataType::kFp8E5M2) {
    int major = 0;
    PB_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, c.rank.device));
    if (major < 9) return "NCCL's 8-bit float types need compute capability 9.0 or newer";
  }
  return require_nccl(c);
}

}  // namespace peerbench::gpu
