#pragma once
// p2pBandwidthLatencyTest (NVIDIA/cuda-samples) and nvidia-smi topo -m. Internal to core/import.
#include <string>

#include "core/model/results.h"

namespace peerbench::import_detail {

RunDocument read_p2p_bandwidth_latency(const std::string& text, const std::string& file);
// The GPU matrix of `nvidia-smi topo -m` in `text`, or nullopt where it holds none. `file`
// names refusals (a matrix cut short).
std::optional<TopologyReport> read_topo_matrix(const std::string& text, const std::string& file);

}  // namespace peerbench::import_detail
