#pragma once
// Which sizes a typed method (an NCCL collective) can run: whole elements in every rank's block.
// One definition for the GPU layer, which rounds sizes to it and records the rest not-applicable,
// and for the dry run, which says so before anything runs.
#include <cstdint>
#include <string>
#include <vector>

#include "core/model/bandwidth.h"
#include "core/model/datatypes.h"
#include "core/plan/plan.h"

namespace peerbench {

// Blocks a collective's size is split into: one per rank for all-gather, reduce-scatter and
// all-to-all (nccl-tests' count is size / ranks there), else one.
int collective_blocks(Collective c, int nranks);

// Bytes of the smallest size the collective runs at for type `t`: one element per block.
std::uint64_t collective_size_unit(Collective c, DataType t, int nranks);

// One line per typed method and -d type whose planned sizes include some that hold no whole
// element ("nccl-allgather, double: 1 B, 2 B, 4 B hold no 2 ranks x double elements (16 B);
// recorded not-applicable"); empty when every size fits.
std::vector<std::string> sizes_holding_no_element(const PlanInput& in);

}  // namespace peerbench
