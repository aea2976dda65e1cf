#pragma once
// A node's topology as people read it: `peerbench topo`'s matrix.
#include <string>

#include "core/model/topology.h"

namespace peerbench {

// nvidia-smi topo -m style matrix of one host.
std::string format_topology_matrix(const HostTopology& h);

}  // namespace peerbench
