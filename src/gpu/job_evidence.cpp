// Job's node evidence: one NodeEvidence per host (core/model/node_evidence.h), read by the first
// rank of each host after the topology, gathered into the results' `node_evidence`.
#include <algorithm>

#include "core/model/node_evidence_host.h"
#include "core/model/schema_node_evidence.h"
#include "core/platform/environment.h"
#include "gpu/job.h"
#include "gpu/node_evidence_gpu.h"

namespace peerbench::gpu {
namespace {

using json = nlohmann::json;

std::string sysfs_form(std::string bus_id) {
  for (auto& c : bus_id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return bus_id;
}

// This host's GPUs in CUDA order (those CUDA shows this process), from the topology.
std::vector<const GpuTopology*> cuda_gpus(const std::optional<TopologyReport>& t,
                                          const std::string& host) {
  std::vector<const GpuTopology*> out;
  if (!t) return out;
  for (const auto& h : t->hosts) {
    if (h.host != host) continue;
    for (const auto& g : h.gpus) {
      if (g.index >= 0 && !g.pci_bus_id.empty()) out.push_back(&g);
    }
  }
  std::sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->index < b->index; });
  return out;
}

NodeEvidence read_node_evidence(const std::string& host, const std::optional<TopologyReport>& t,
                                const Nvml& nvml) {
  HostEvidenceRequest request;
  request.host = host;
  request.collected_by = "run";
  request.environment = environment_strings();
  std::vector<int> indices;
  for (const auto* g : cuda_gpus(t, host)) {
    request.gpu_bus_ids.push_back(sysfs_form(g->pci_bus_id));
    indices.push_back(g->index);
  }
  // CUDA's order against PCI order, as CUDA numbered them here (not guessed from variables).
  if (!request.gpu_bus_ids.empty())
    request.cuda_order_differs =
        !std::is_sorted(request.gpu_bus_ids.begin(), request.gpu_bus_ids.end());
  NodeEvidence e = read_host_evidence(request);
  add_gpu_evidence(nvml, e, indices);
  return e;
}

}  // namespace

void Job::record_node_evidence() {
  gather_node_reads(
      "node evidence not read",
      [&] { return to_json(read_node_evidence(rank_.host, outcome_.doc.topology, nvml_)); },
      [&](const json& j) {
        outcome_.doc.node_evidence.push_back(node_evidence_from(JsonIn(j, "node evidence")));
      });
}

}  // namespace peerbench::gpu
