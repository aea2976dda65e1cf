// Causes in the GPUs themselves and their other users: NVLinks down, memory failures, another
// process on a GPU, clocks held by power or heat (diagnosis_rules.h).
#include <algorithm>
#include <map>
#include <set>

#include "core/base/text.h"
#include "core/judge/diagnosis_rules.h"

namespace peerbench::diagnosis_detail {

namespace {

namespace cs = cause_strength;

std::string list_of(const std::vector<int>& xs) {
  std::vector<std::string> s;
  for (int x : xs) s.push_back(std::to_string(x));
  return join_and(s);
}

struct DownLinks {
  std::string bus, gpu;
  std::vector<int> down;
  int up = 0, expected = 0;
  std::vector<CauseEvidence> ev;
};

// Links down per GPU: from the run's nvlink-degraded flags (NVML's link state against the GPU's
// peers) and from node evidence (against the model's count).
std::vector<DownLinks> links_down(const Input& in) {
  std::vector<DownLinks> out;
  for (const auto& f : in.findings) {
    if (f.flag != "nvlink-degraded" || f.bus.empty()) continue;
    for (const auto& fl : f.v->flags) {
      if (fl.code != f.flag || !fl.evidence.is_object() || !fl.evidence.contains("links_down"))
        continue;
      std::string gpu = "GPU " + f.bus;
      for (const auto& r : in.d.system.ranks)
        if (same_bus(r.gpu.pci_bus_id, f.bus))
          gpu = "GPU " + std::to_string(r.gpu.index) + " " + f.bus;
      DownLinks d{f.bus,
                  gpu,
                  fl.evidence["links_down"].get<std::vector<int>>(),
                  fl.evidence.value("nvlinks_up", 0),
                  fl.evidence.value("peers_nvlinks_up", 0),
                  {}};
      if (d.down.empty() ||
          std::any_of(out.begin(), out.end(), [&](auto& x) { return x.bus == d.bus; }))
        continue;
      d.ev.push_back({"verdict " + f.pair + " nvlink-degraded", fl.message});
      out.push_back(std::move(d));
    }
  }
  for (const auto& ne : in.d.node_evidence) {
    for (const auto& g : ne.gpus) {
      DownLinks d{g.pci_bus_id,
                  "GPU " + std::to_string(g.gpu_index) + " " + g.pci_bus_id,
                  {},
                  0,
                  g.nvlinks_expected.value_or(0),
                  {}};
      d.down = nvlinks_down(g);
      d.up = nvlinks_up(g);
      if (d.down.empty() ||
          std::any_of(out.begin(), out.end(), [&](auto& x) { return same_bus(x.bus, d.bus); }))
        continue;
      if (d.expected == 0) d.expected = static_cast<int>(g.nvlinks.size());
      d.ev.push_back({"node evidence of " + ne.host + ": " + d.gpu + " nvlinks",
                      std::to_string(d.up) + " up, down: " + list_of(d.down)});
      out.push_back(std::move(d));
    }
  }
  return out;
}

bool link_finding(const Finding& f) {
  return !f.flag.empty() && f.v->link.rfind("NV", 0) == 0;
}

void nvlink_causes(const Input& in, std::vector<Candidate>& out) {
  for (const auto& d : links_down(in)) {
    Candidate c = make_candidate(in, "nvlink-links-down", cs::kConfirmed,
                                 {{"links", list_of(d.down)},
                                  {"gpu", d.gpu},
                                  {"up", std::to_string(d.up)},
                                  {"expected", std::to_string(d.expected)}},
                                 [&](const Finding& f) {
                                   return (f.flag == "nvlink-degraded" || link_finding(f)) &&
                                          on_gpu(f, d.bus);
                                 });
    c.cause.gpus = {d.gpu};
    c.cause.evidence = d.ev;
    if (!c.explains.empty()) out.push_back(std::move(c));
  }
}

void memory_causes(const Input& in, std::vector<Candidate>& out) {
  for (const auto& ne : in.d.node_evidence) {
    for (const auto& g : ne.gpus) {
      std::vector<std::string> what;
      if (g.remapped_rows_failure.value_or(false)) what.push_back("a row-remapping failure");
      if (g.ecc_uncorrected_volatile.value_or(0) > 0)
        what.push_back(std::to_string(*g.ecc_uncorrected_volatile) + " uncorrected ECC errors");
      if (what.empty()) continue;
      const std::string gpu = "GPU " + std::to_string(g.gpu_index) + " " + g.pci_bus_id;
      Candidate c = make_candidate(
          in, "ecc-remapped-failure", cs::kConfirmed,
          {{"gpus", gpu}, {"what", join(what, " and ")}},
          [&](const Finding& f) { return !f.flag.empty() && on_gpu(f, g.pci_bus_id); });
      c.cause.gpus = {gpu};
      c.cause.evidence.push_back({"node evidence of " + ne.host + ": " + gpu, join(what, ", ")});
      if (!c.explains.empty()) out.push_back(std::move(c));
    }
  }
}

}  // namespace

void gpu_causes(const Input& in, std::vector<Candidate>& out) {
  nvlink_causes(in, out);
  memory_causes(in, out);
}

}  // namespace peerbench::diagnosis_detail
