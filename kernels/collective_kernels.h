#pragma once
// Data of the NCCL collectives: every rank's input, and an exact check of every output element
// against what the collective must produce from all ranks' inputs. Inputs are small integers
// (1..3; 1..2 for products and 8-bit floats) so that sums, products, minima and maxima are exact
// in every element type; only avg divides, and is compared within a tolerance.
#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "core/model/datatypes.h"

namespace peerbench::kernels {

// Element types and ops are the core's (core/model/datatypes.h: plain C++, no CUDA).
using ElemType = DataType;
using RedOp = ReduceOp;
enum class CollKind {
  kAllReduce,
  kReduce,
  kBroadcast,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kRing
};

struct CollectiveData {
  CollKind kind = CollKind::kAllReduce;
  ElemType type = ElemType::kFloat;
  RedOp op = RedOp::kSum;
  int nranks = 2;
  int rank = 0;
  int root = 0;
  std::size_t count = 0;  // elements per rank block (nccl-tests' count for this collective)
  std::uint64_t seed = 0;
  double tolerance = 0;  // relative, for avg and 8-bit floats
};

// This rank's send buffer: `send_elems` elements of its input.
cudaError_t fill_collective_input(cudaStream_t s, void* buf, std::size_t send_elems,
                                  const CollectiveData& d);
// Fills `elems` elements with a value no collective produces from the inputs (poison).
cudaError_t poison_collective_output(cudaStream_t s, void* buf, std::size_t elems, ElemType t);
// Adds to *wrong the output elements (of `recv_elems`) that differ from the expected result.
cudaError_t check_collective_output(cudaStream_t s, const void* buf, std::size_t recv_elems,
                                    const CollectiveData& d, unsigned long long* wrong);

}  // namespace peerbench::kernels
