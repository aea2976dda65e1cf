// The flags no cause read explains ("unknown", one cause per measurement that would tell), and
// the context said beside the causes: CUDA's GPU order unlike PCI order (diagnosis_rules.h).
#include <algorithm>
#include <map>

#include "core/base/text.h"
#include "core/judge/diagnosis_rules.h"

namespace peerbench::diagnosis_detail {

namespace {

namespace cs = cause_strength;

bool road_flag(const std::string& f) {
  return f == "nccl-shm" || f == "nccl-net";
}

bool log_read(const RunDocument& d) {
  return d.nccl.mode == "peerbench" || d.nccl.mode == "user-file";
}

// Whether NCCL left P2P on some pair of the run: its figures share the road's measurement.
bool nccl_left_p2p(const RunDocument& d) {
  return std::any_of(d.pairs.begin(), d.pairs.end(), [](const PairFacts& p) {
    return p.nccl && (p.nccl->kind == "SHM" || p.nccl->kind == "NET");
  });
}

std::string measurement_of(const Input& in, const Finding& f) {
  const bool nccl_figure = !f.flag.empty() && nccl_method(f.method) && nccl_left_p2p(in.d);
  std::string m = unknown_measurement(nccl_figure ? "nccl-shm" : f.flag);
  if ((road_flag(f.flag) || nccl_method(f.method)) && !log_read(in.d))
    m = "run again with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P,SHM,NET so NCCL says why, and "
        "run peerbench doctor on {host}";
  return fill_fields(m, {{"host", host_of_pair(in, *f.v)}});
}

// Where NCCL left an NVLink pair whose copy-engine copies reach known-good, the link is not the
// suspect: NCCL's or the container's settings are.
std::string healthy_link_hint(const Input& in, const std::vector<std::size_t>& idx,
                              std::vector<CauseEvidence>& ev) {
  std::vector<std::string> at;
  for (std::size_t i : idx) {
    const Finding& f = in.findings[i];
    if (!road_flag(f.flag) || f.v->link.rfind("NV", 0) != 0) continue;
    for (const auto& m : f.v->methods)
      if ((m.method == "ce-write" || m.method == "ce-read") && m.expected_ratio &&
          *m.expected_ratio >= 0.9) {
        at.push_back(m.method + " " + f.pair + " " + format_fixed(*m.expected_ratio, 2));
        break;
      }
  }
  if (at.empty()) return "";
  ev.push_back({"verdicts", join(at, ", ") + " of known-good over NVLink"});
  return "; copy-engine copies on the same pairs reach known-good (" + join(at, ", ") +
         "), so the link is healthy: NCCL or container settings, not the link, are the suspects";
}

std::vector<CauseEvidence> unknown_evidence(const Input& in, bool road) {
  std::vector<CauseEvidence> ev;
  if (road) {
    ev.push_back({"environment", "no NCCL_P2P_DISABLE, NCCL_P2P_LEVEL, NCCL_SHM_DISABLE set"});
    ev.push_back({"NCCL's log", !log_read(in.d) ? "not captured (" + in.d.nccl.mode + ")"
                                : in.d.nccl.reasons.empty()
                                    ? "no reason recorded"
                                    : "reasons: " + join(in.d.nccl.reasons, "; ")});
  }
  ev.push_back({"node evidence", in.d.node_evidence.empty() ? "not recorded in this file"
                                                            : "read: nothing in it explains this"});
  return ev;
}

}  // namespace

void unknown_causes(const Input& in, const std::vector<bool>& explained_findings,
                    std::vector<Candidate>& out) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < in.findings.size(); ++i) {
    if (explained_findings[i]) continue;
    const std::string m = measurement_of(in, in.findings[i]);
    if (!groups.count(m)) order.push_back(m);
    groups[m].push_back(i);
  }
  for (const auto& m : order) {
    const auto& idx = groups[m];
    const bool road = std::any_of(idx.begin(), idx.end(),
                                  [&](std::size_t i) { return road_flag(in.findings[i].flag); });
    std::vector<CauseEvidence> ev = unknown_evidence(in, road);
    const std::string hint = healthy_link_hint(in, idx, ev);
    const auto& fs = in.findings;
    std::vector<bool> mine(fs.size(), false);
    for (std::size_t i : idx) mine[i] = true;
    Candidate c = make_candidate(
        in, "unknown", cs::kUnknown, {{"measurement", m}, {"hint", hint}},
        [&](const Finding& f) { return mine[static_cast<std::size_t>(&f - fs.data())]; });
    c.cause.evidence = std::move(ev);
    if (!c.explains.empty()) out.push_back(std::move(c));
  }
}

void context_causes(const Input& in, std::vector<Candidate>& out) {
  std::map<std::string, std::vector<const RankInfo*>> by_host;
  for (const auto& r : in.d.system.ranks) by_host[r.host].push_back(&r);
  std::vector<std::string> said;
  for (auto& [host, ranks] : by_host) {
    std::sort(ranks.begin(), ranks.end(),
              [](const RankInfo* a, const RankInfo* b) { return a->gpu.index < b->gpu.index; });
    bool differs = false;
    for (std::size_t i = 1; i < ranks.size(); ++i)
      differs = differs || (ranks[i]->gpu.index != ranks[i - 1]->gpu.index &&
                            ranks[i]->gpu.pci_bus_id < ranks[i - 1]->gpu.pci_bus_id);
    if (!differs) continue;
    std::vector<std::string> order;
    for (const auto* r : ranks)
      order.push_back("GPU " + std::to_string(r->gpu.index) + " is " + r->gpu.pci_bus_id);
    if (std::find(said.begin(), said.end(), join(order, ", ")) == said.end())
      said.push_back(join(order, ", "));
  }
  for (const auto& ne : in.d.node_evidence)
    if (ne.cuda_order_differs_from_pci.value_or(false) && said.empty())
      said.push_back("node evidence of " + ne.host + ": cuda_order_differs_from_pci");
  if (said.empty()) return;
  const std::string cvd = env_value(in, "CUDA_VISIBLE_DEVICES");
  Candidate c = make_candidate(in, "cuda-order-differs", cs::kConfirmed,
                               {{"order", join(said, "; ")}}, [](const Finding&) { return false; });
  c.cause.evidence.push_back({"system.ranks", join(said, "; ")});
  if (!cvd.empty()) c.cause.evidence.push_back({"environment", "CUDA_VISIBLE_DEVICES=" + cvd});
  out.push_back(std::move(c));
}

}  // namespace peerbench::diagnosis_detail
