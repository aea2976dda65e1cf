// `nvidia-smi topo -m`: the GPU rows and columns of its matrix (NV# for NVLinks, PIX, PXB, PHB,
// NODE, SYS, and SOC for SYS in older drivers), read as the topology peerbench's own `topo`
// records, with what NVML would add (names, PCIe generations, NVLink speeds) unknown.
#include "core/import/import_document.h"
#include "core/import/p2p_bandwidth.h"

namespace peerbench::import_detail {
namespace {

bool gpu_label(const std::string& w, int index) {
  return w == "GPU" + std::to_string(index);
}

// The header: "GPU0 GPU1 ... NIC0 CPU Affinity ...": the number of GPU columns.
int gpu_columns(const std::vector<std::string>& w) {
  int n = 0;
  while (n < static_cast<int>(w.size()) && gpu_label(w[n], n)) ++n;
  return n;
}

GpuPairTopology pair_of(int a, int b, const std::string& cell) {
  GpuPairTopology p;
  p.gpu_a = a;
  p.gpu_b = b;
  if (cell.size() > 2 && cell.compare(0, 2, "NV") == 0) {
    p.nvlink_count = std::atoi(cell.c_str() + 2);
  } else {
    p.pcie_path = cell == "SOC" ? "SYS" : cell;  // "SOC" is SYS in drivers before 384
  }
  return p;
}

}  // namespace

std::optional<TopologyReport> read_topo_matrix(const std::string& text, const std::string& file) {
  int n = 0, rows = 0, header_line = 0;
  HostTopology h;
  h.nvml = "not read: the links of `nvidia-smi topo -m`, imported";
  for (const auto& l : text_lines(text, file)) {
    const auto w = words(l.text);
    if (n == 0) {
      n = gpu_columns(w);
      if (n < 2) n = 0;  // "GPU0" alone heads no matrix of pairs
      header_line = l.number;
      continue;
    }
    if (w.empty() || !gpu_label(w[0], rows)) {
      if (rows > 0) break;
      continue;
    }
    if (static_cast<int>(w.size()) < n + 1)
      refuse(file, l.number,
             "a row of nvidia-smi topo -m with fewer cells than its " + std::to_string(n) +
                 " GPU columns");
    GpuTopology g;
    g.index = rows;
    h.gpus.push_back(g);
    for (int b = 0; b < n; ++b) {
      if (b != rows) h.pairs.push_back(pair_of(rows, b, w[b + 1]));
    }
    ++rows;
  }
  if (n == 0) return std::nullopt;
  if (rows != n)
    refuse(file, header_line,
           "nvidia-smi topo -m names " + std::to_string(n) + " GPUs in its header and has " +
               std::to_string(rows) + " rows");
  TopologyReport t;
  t.hosts.push_back(h);
  return t;
}

}  // namespace peerbench::import_detail
