#include "core/platform/gpu_assignment.h"

#include <map>
#include <set>

namespace peerbench {

std::string shared_gpu_problem(const std::vector<std::string>& node_of_rank,
                               const std::vector<std::string>& bus_id_of_rank) {
  std::map<std::string, std::set<std::string>> gpus_of_node;
  std::map<std::string, int> ranks_of_node;
  std::string node_with_shared;
  for (std::size_t q = 0; q < node_of_rank.size() && q < bus_id_of_rank.size(); ++q) {
    const auto& node = node_of_rank[q];
    ++ranks_of_node[node];
    if (!gpus_of_node[node].insert(bus_id_of_rank[q]).second && node_with_shared.empty())
      node_with_shared = node;
  }
  if (node_with_shared.empty()) return "";
  const int ranks = ranks_of_node[node_with_shared];
  const int gpus = static_cast<int>(gpus_of_node[node_with_shared].size());
  return "host " + node_with_shared + " runs " + std::to_string(ranks) + " ranks but they drive " +
         std::to_string(gpus) + " distinct GPU" + (gpus == 1 ? "" : "s") +
         " (told apart by PCI bus id): start at most one rank per GPU (mpirun -np " +
         std::to_string(gpus) + " on that host), or give each rank its own GPU";
}

}  // namespace peerbench
