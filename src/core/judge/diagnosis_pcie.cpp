// Causes of the platform between GPUs: ACS redirecting peer requests on a PCIe bridge, the IOMMU
// translating DMA, a hypervisor or a consumer card without peer-to-peer, CUDA's own peer-access
// answer, and an NVLink fabric the fabric manager has not registered (diagnosis_rules.h).
#include <algorithm>
#include <set>

#include "core/base/text.h"
#include "core/judge/diagnosis.h"
#include "core/judge/diagnosis_rules.h"
#include "core/judge/verdict.h"

namespace peerbench::diagnosis_detail {

namespace {

namespace cs = cause_strength;

bool nvlink_pair(const PairVerdict& v) {
  return v.link.rfind("NV", 0) == 0;
}

// A finding a PCIe-side cause explains: no peer access, a peer copy slower than staging, NCCL off
// P2P, or a figure under its bar on a pair that is not NVLink.
bool pcie_finding(const Finding& f) {
  if (f.flag.empty() || f.v->src < 0) return false;
  if (f.flag == "host-staged" || f.flag == "p2p-slower-than-staged" || f.flag == "nccl-shm")
    return true;
  return !nvlink_pair(*f.v) && (figure_flag(f.flag) || f.flag == "asymmetric");
}

bool unsupported(const RunDocument& d, const PairVerdict& v) {
  const PairFacts* p = v.src >= 0 ? pair_facts(d, v.src, v.dst) : nullptr;
  return p && ((p->can_access_peer && !*p->can_access_peer) || p->peer_access == "unsupported");
}

std::string bus_of(const RunDocument& d, int rank) {
  return rank >= 0 ? card_of(d, rank).pci_bus_id : "";
}

const GpuPcieEvidence* pcie_of(const NodeEvidence& ne, const std::string& bus) {
  for (const auto& g : ne.pcie)
    if (same_bus(g.pci_bus_id, bus)) return &g;
  return nullptr;
}

// The bridges above either GPU of a pair that redirect peer requests.
std::vector<const PcieBridgeEvidence*> redirecting(const RunDocument& d, const NodeEvidence& ne,
                                                   const PairVerdict& v) {
  std::vector<const PcieBridgeEvidence*> out;
  for (int r : {v.src, v.dst}) {
    const GpuPcieEvidence* g = pcie_of(ne, bus_of(d, r));
    if (!g) continue;
    for (const auto& b : g->bridges)
      if (b.acs_redirects.value_or(false) &&
          std::none_of(out.begin(), out.end(), [&](auto* x) { return x->bdf == b.bdf; }))
        out.push_back(&b);
  }
  return out;
}

void acs_cause(const Input& in, const NodeEvidence& ne, std::vector<Candidate>& out) {
  std::vector<std::string> bridges, acs, gpus;
  std::vector<CauseEvidence> ev;
  for (const auto& v : in.verdicts) {
    if (v.src < 0 || v.src == v.dst || host_of_pair(in, v) != ne.host) continue;
    for (const auto* b : redirecting(in.d, ne, v)) {
      if (std::find(bridges.begin(), bridges.end(), b->bdf) != bridges.end()) continue;
      bridges.push_back(b->bdf);
      acs.push_back(b->acs_ctl.empty() ? "ReqRedir+ or CmpltRedir+" : b->acs_ctl);
      ev.push_back({"node evidence of " + ne.host + ": bridge " + b->bdf + " ACSCtl", b->acs_ctl});
    }
    if (!redirecting(in.d, ne, v).empty())
      for (int r : {v.src, v.dst})
        if (std::find(gpus.begin(), gpus.end(), gpu_text(in.d, r)) == gpus.end())
          gpus.push_back(gpu_text(in.d, r));
  }
  if (bridges.empty()) return;
  Candidate c = make_candidate(
      in, "acs-redirect", cs::kLikely,
      {{"bridge", join(bridges, ", ")},
       {"setpci", setpci_acs_off(bridges)},
       {"acs", acs.front()},
       {"gpus", join(gpus, ", ")},
       {"host", ne.host}},
      [&](const Finding& f) { return pcie_finding(f) && !redirecting(in.d, ne, *f.v).empty(); });
  c.cause.gpus = gpus;
  c.cause.evidence = ev;
  if (!c.explains.empty()) out.push_back(std::move(c));
}

void iommu_cause(const Input& in, const NodeEvidence& ne, std::vector<Candidate>& out) {
  if (ne.iommu.mode != "translated") return;
  Candidate c = make_candidate(
      in, "iommu-translated", cs::kLikely,
      {{"mode", ne.iommu.mode},
       {"domain", ne.iommu.default_domain_type.empty() ? "unread" : ne.iommu.default_domain_type},
       {"host", ne.host}},
      [&](const Finding& f) { return pcie_finding(f) && host_of_pair(in, *f.v) == ne.host; });
  const std::string src = "node evidence of " + ne.host + ": iommu";
  c.cause.evidence.push_back({src + ".mode", ne.iommu.mode});
  if (ne.iommu.groups)
    c.cause.evidence.push_back({src + ".groups", std::to_string(*ne.iommu.groups)});
  if (!ne.iommu.default_domain_type.empty())
    c.cause.evidence.push_back({src + ".default_domain_type", ne.iommu.default_domain_type});
  c.cause.evidence.push_back({src + ".kernel_cmdline", ne.iommu.kernel_cmdline});
  if (!c.explains.empty()) out.push_back(std::move(c));
}

bool consumer(const RunDocument& d, const NodeEvidence* ne, int rank) {
  const std::string bus = bus_of(d, rank);
  if (ne)
    for (const auto& g : ne->gpus)
      if (same_bus(g.pci_bus_id, bus) && g.consumer_card_p2p_off.value_or(false)) return true;
  const RankInfo* r = rank_info(d, rank);
  return r && r->gpu.name.find("GeForce") != std::string::npos;
}

std::string hypervisor_of(const NodeEvidence& ne) {
  const auto& v = ne.virtualization;
  std::vector<std::string> s;
  if (!v.hypervisor_hint.empty()) s.push_back(v.hypervisor_hint);
  if (v.hypervisor_flag.value_or(false)) s.push_back("CPU flag hypervisor");
  if (!v.nvml_mode.empty() && v.nvml_mode != "none") s.push_back("NVML " + v.nvml_mode);
  return join(s, ", ");
}

}  // namespace

namespace {

// The peer-access facts of a pair as evidence: "can_access_peer false, peer_access unsupported".
CauseEvidence peer_evidence(const RunDocument& d, const PairVerdict& v) {
  const PairFacts* p = pair_facts(d, v.src, v.dst);
  std::string s = "peer_access " + (p ? p->peer_access : std::string("?"));
  if (p && p->can_access_peer)
    s += ", can_access_peer " + std::string(*p->can_access_peer ? "true" : "false");
  if (p && !p->error.empty()) s += ", " + p->error;
  return {"pairs " + diagnosis_pair_label(v.src, v.dst), s};
}

// Why peer access is off on a pair, from what the node says: a consumer card, a hypervisor, or
// nothing read (CUDA's answer alone, whose Next line is the doctor).
void peer_causes(const Input& in, std::vector<Candidate>& out) {
  // Pairs a PCIe cause (ACS, IOMMU) already explains need no other.
  std::set<const PairVerdict*> seen;
  for (const auto& c : out)
    if (c.cause.code == "acs-redirect" || c.cause.code == "iommu-translated")
      for (std::size_t i : c.explains) seen.insert(in.findings[i].v);
  for (const char* code :
       {"consumer-card-p2p-off", "virtualized-no-p2p", "peer-access-unsupported"}) {
    const std::string k = code;
    const auto applies = [&](const PairVerdict& v) {
      if (v.src < 0 || v.src == v.dst || !unsupported(in.d, v) || seen.count(&v)) return false;
      const NodeEvidence* ne = evidence_of(in.d, host_of_pair(in, v));
      if (k == "consumer-card-p2p-off")
        return consumer(in.d, ne, v.src) || consumer(in.d, ne, v.dst);
      if (k == "virtualized-no-p2p") return ne && !hypervisor_of(*ne).empty();
      return true;
    };
    std::vector<const PairVerdict*> vs;
    for (const auto& v : in.verdicts)
      if (applies(v)) vs.push_back(&v);
    if (vs.empty()) continue;
    const NodeEvidence* ne = evidence_of(in.d, host_of_pair(in, *vs.front()));
    std::vector<std::string> gpus;
    for (const auto* v : vs)
      for (int r : {v->src, v->dst})
        if (std::find(gpus.begin(), gpus.end(), gpu_text(in.d, r)) == gpus.end())
          gpus.push_back(gpu_text(in.d, r));
    const PairFacts* p = pair_facts(in.d, vs.front()->src, vs.front()->dst);
    Candidate c =
        make_candidate(in, code, k == "virtualized-no-p2p" ? cs::kLikely : cs::kConfirmed,
                       {{"gpus", join(gpus, ", ")},
                        {"hypervisor", ne ? hypervisor_of(*ne) : ""},
                        {"peer_access", p ? p->peer_access : "?"}},
                       [&](const Finding& f) {
                         return std::find(vs.begin(), vs.end(), f.v) != vs.end() && !f.flag.empty();
                       });
    for (const auto* v : vs) {
      c.cause.evidence.push_back(peer_evidence(in.d, *v));
      seen.insert(v);
    }
    if (k == "virtualized-no-p2p")
      c.cause.evidence.push_back(
          {"node evidence of " + ne->host + ": virtualization", hypervisor_of(*ne)});
    c.cause.gpus = gpus;
    if (!c.explains.empty()) out.push_back(std::move(c));
  }
}

// What a GPU's fabric says where a cause of it holds: its state where the fabric manager has not
// registered it, its health where it registered unhealthy; "" where the cause does not hold.
using FabricSays = std::string (*)(const std::string& state, const std::string& health);

std::string not_registered(const std::string& state, const std::string&) {
  return state == "not-started" || state == "in-progress" ? state : "";
}

std::string registered_unhealthy(const std::string& state, const std::string& health) {
  return state == "completed" && !health.empty() && health != "healthy" ? health : "";
}

// The GPUs whose fabric `says` holds, from the run's topology or the node evidence, as one cause
// of `code` ({gpus}, and {field}: what the first says).
void fabric_cause(const Input& in, const char* code, const char* field, FabricSays says,
                  std::vector<Candidate>& out) {
  std::vector<std::pair<std::string, std::string>> gpus;  // bus, what its fabric says
  const auto add = [&](const std::string& bus, const std::string& said) {
    if (!said.empty() &&
        std::none_of(gpus.begin(), gpus.end(), [&](auto& x) { return same_bus(x.first, bus); }))
      gpus.push_back({bus, said});
  };
  if (in.d.topology)
    for (const auto& h : in.d.topology->hosts)
      for (const auto& g : h.gpus)
        if (g.fabric) add(g.pci_bus_id, says(g.fabric->state, g.fabric->health));
  for (const auto& ne : in.d.node_evidence)
    for (const auto& g : ne.gpus) add(g.pci_bus_id, says(g.fabric_state, g.fabric_health));
  if (gpus.empty()) return;
  std::vector<std::string> names;
  for (const auto& [bus, said] : gpus) names.push_back("GPU " + bus);
  Candidate c = make_candidate(
      in, code, cs::kConfirmed, {{"gpus", join(names, ", ")}, {field, gpus.front().second}},
      [&](const Finding& f) {
        return !f.flag.empty() &&
               std::any_of(gpus.begin(), gpus.end(), [&](auto& x) { return on_gpu(f, x.first); });
      });
  for (const auto& [bus, said] : gpus)
    c.cause.evidence.push_back({"GPU " + bus + " fabric " + field, said});
  c.cause.gpus = names;
  if (!c.explains.empty()) out.push_back(std::move(c));
}

}  // namespace

void platform_causes(const Input& in, std::vector<Candidate>& out) {
  for (const auto& ne : in.d.node_evidence) {
    acs_cause(in, ne, out);
    iommu_cause(in, ne, out);
  }
  peer_causes(in, out);
  fabric_cause(in, "fabric-manager-not-running", "state", not_registered, out);
  fabric_cause(in, "fabric-degraded", "health", registered_unhealthy, out);
}

}  // namespace peerbench::diagnosis_detail
