#pragma once
// Checks how ranks map onto physical GPUs. GPUs are told apart by PCI bus id, not by CUDA device
// index: with per-task binding every rank's GPU is "device 0" in its own view.
#include <string>
#include <vector>

namespace peerbench {

// "" when no two ranks of one node drive the same GPU; otherwise one line naming the node, its
// rank and GPU counts, and what to do. Inputs are per rank (index = rank).
std::string shared_gpu_problem(const std::vector<std::string>& node_of_rank,
                               const std::vector<std::string>& bus_id_of_rank);

}  // namespace peerbench
