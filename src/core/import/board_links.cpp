// The links of an 8-GPU NVSwitch baseboard, where the output names the model and 8 GPUs of one
// host but no topology: those SXM models come on one board only at 8 GPUs (HGX), where every
// pair reaches every other through NVSwitch over the same NVLinks. Anything else (fewer GPUs, a
// PCIe card, mixed models) stays unknown.
#include <set>

#include "core/import/import_document.h"
#include "core/model/known_good.h"

namespace peerbench::import_detail {
namespace {

struct Board {
  const char* name;  // as CUDA prints it, folded by normalize_gpu_name
  int nvlinks;       // per pair, as nvidia-smi topo -m shows it (NV12, NV18)
};

// NVIDIA's HGX A100, H100, H200, H800, H20 and B200 8-GPU boards.
constexpr Board kBoards[] = {
    {"A100-SXM4-40GB", 12}, {"A100-SXM4-80GB", 12}, {"A100-SXM-80GB", 12}, {"H100 80GB HBM3", 18},
    {"H100 SXM5 80GB", 18}, {"H200", 18},           {"H800", 8},           {"H20", 18},
    {"B200", 18},
};

std::optional<int> board_nvlinks(const std::string& gpu_name) {
  const std::string n = normalize_gpu_name(gpu_name);
  for (const auto& b : kBoards) {
    if (n == normalize_gpu_name(b.name)) return b.nvlinks;
  }
  return std::nullopt;
}

std::optional<HostTopology> board_of(const RunDocument& d, const std::string& host) {
  std::set<int> devices;
  std::set<std::string> names;
  for (const auto& r : d.system.ranks) {
    if (r.host != host) continue;
    devices.insert(r.gpu.index);
    names.insert(r.gpu.name);
  }
  if (devices != std::set<int>{0, 1, 2, 3, 4, 5, 6, 7} || names.size() != 1) return std::nullopt;
  const auto links = board_nvlinks(*names.begin());
  if (!links) return std::nullopt;
  HostTopology h;
  h.host = host;
  h.nvml = "not read: every pair NV" + std::to_string(*links) + ", as on " + *names.begin() +
           "'s 8-GPU NVSwitch baseboard (the output names the model and 8 GPUs, no topology)";
  for (int g = 0; g < 8; ++g) {
    GpuTopology t;
    for (const auto& r : d.system.ranks) {
      if (r.host == host && r.gpu.index == g) static_cast<GpuInfo&>(t) = r.gpu;
    }
    h.gpus.push_back(t);
    for (int o = 0; o < 8; ++o) {
      if (o == g) continue;
      GpuPairTopology p;
      p.gpu_a = g;
      p.gpu_b = o;
      p.nvlink_count = *links;
      h.pairs.push_back(p);
    }
  }
  return h;
}

}  // namespace

void infer_board_topology(RunDocument& d) {
  if (d.topology) return;
  TopologyReport t;
  for (const auto& host : d.system.hosts) {
    if (auto h = board_of(d, host)) t.hosts.push_back(*h);
  }
  if (t.hosts.empty()) return;
  d.topology = t;
  d.config["imported"]["topology"] = "8-GPU NVSwitch baseboard of the model named";
}

}  // namespace peerbench::import_detail
