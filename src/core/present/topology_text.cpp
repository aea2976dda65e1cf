#include "core/present/topology_text.h"

#include <sstream>

#include "core/present/text_table.h"

namespace peerbench {

std::string format_topology_matrix(const HostTopology& h) {
  std::ostringstream out;
  const auto n = h.gpus.size();
  auto pair = [&](int a, int b) -> const GpuPairTopology* {
    for (const auto& p : h.pairs) {
      if (p.gpu_a == a && p.gpu_b == b) return &p;
    }
    return nullptr;
  };
  out << "Host " << h.host << " (NVML: " << h.nvml;
  if (!h.driver_version.empty()) out << ", driver " << h.driver_version;
  out << ")\n";
  // nvidia-smi topo -m's look: columns 8 wide, wider where a label needs it (text_table.h).
  TextTable matrix;
  std::vector<std::string> head{""};
  for (std::size_t j = 0; j < n; ++j) head.push_back("GPU" + std::to_string(h.gpus[j].index));
  head.insert(head.end(), {"NVLinks", "PCIe (cur/max)"});
  matrix.add_row(head);
  auto opt = [](const std::optional<int>& v) { return v ? std::to_string(*v) : std::string("?"); };
  for (std::size_t i = 0; i < n; ++i) {
    const auto& gi = h.gpus[i];
    std::vector<std::string> row{"GPU" + std::to_string(gi.index)};
    for (std::size_t j = 0; j < n; ++j) {
      const auto* p = i == j ? nullptr : pair(gi.index, h.gpus[j].index);
      row.push_back(i == j ? "X" : p ? classify_link(*p).label : "?");
    }
    row.push_back(std::to_string(gi.nvlinks_up));
    row.push_back("Gen" + opt(gi.pcie_gen_current) + "x" + opt(gi.pcie_width_current) + " / Gen" +
                  opt(gi.pcie_gen_max) + "x" + opt(gi.pcie_width_max));
    matrix.add_row(std::move(row));
  }
  std::vector<std::size_t> minimum(n + 1, 6);
  minimum.push_back(8);
  out << matrix.render("", "", minimum);
  out << "\nP2P status (NVML read/write/atomics; CUDA can-access-peer, perf rank):\n";
  TextTable status;
  for (const auto& p : h.pairs) {
    auto get = [&](const char* k) {
      auto it = p.nvml_p2p.find(k);
      return it == p.nvml_p2p.end() ? std::string("?") : it->second;
    };
    status.add_row(
        {"GPU" + std::to_string(p.gpu_a) + " -> GPU" + std::to_string(p.gpu_b),
         classify_link(p).label,
         "read " + get("read") + ", write " + get("write") + ", atomics " + get("atomics") +
             "; CUDA " +
             (p.cuda_can_access_peer ? (*p.cuda_can_access_peer ? "can peer" : "CANNOT peer")
                                     : "unknown") +
             (p.cuda_perf_rank ? ", perf rank " + std::to_string(*p.cuda_perf_rank) : "") +
             (p.cuda_native_atomics && *p.cuda_native_atomics ? ", native atomics" : "")});
  }
  out << status.render();
  out << "\nLegend: X = self, NV# = # NVLinks, PIX = one PCIe switch, PXB = several switches,\n"
         "PHB = through the CPU host bridge, NODE = across host bridges in a NUMA node,\n"
         "SYS = across CPU sockets (SMP interconnect), ? = unknown (no NVML)\n";
  return out.str();
}

}  // namespace peerbench
