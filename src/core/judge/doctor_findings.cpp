// doctor's rules: which causes of the cause table (cause_table.h) a node's evidence shows on its
// own, each filled from that evidence (doctor_findings.h).
#include "core/judge/doctor_findings.h"

#include <algorithm>
#include <cctype>

#include "core/base/text.h"
#include "core/judge/cause_table.h"
#include "core/judge/diagnosis.h"

namespace peerbench {
namespace {

namespace cs = cause_strength;
using Fields = std::map<std::string, std::string>;

std::string host_name(const NodeEvidence& e) {
  return e.host.empty() ? "this host" : e.host;
}

// "GPU 0 0000:41:00.0", or "GPU 0000:41:00.0" where the GPU's number is not known.
std::string gpu_name(int index, const std::string& bus) {
  return "GPU " + (index >= 0 ? std::to_string(index) + " " : std::string()) + bus;
}

void add_once(std::vector<std::string>& xs, const std::string& x) {
  if (std::find(xs.begin(), xs.end(), x) == xs.end()) xs.push_back(x);
}

DiagnosedCause found(const NodeEvidence& e, const char* code, const char* strength, Fields fields,
                     std::vector<CauseEvidence> evidence, std::vector<std::string> gpus = {}) {
  if (!fields.count("host")) fields["host"] = host_name(e);
  if (!fields.count("pairs")) fields["pairs"] = "the GPUs of " + host_name(e);
  DiagnosedCause c = table_cause(code, strength, fields);
  c.evidence = std::move(evidence);
  c.gpus = std::move(gpus);
  return c;
}

std::string steering(const NodeEvidence& e, const char* name) {
  const auto it = e.steering_environment.find(name);
  return it == e.steering_environment.end() ? "" : it->second;
}

// NCCL_P2P_LEVEL=LOC (or its old number 0): peer-to-peer between no two GPUs.
bool p2p_level_none(const std::string& v) {
  std::string u = v;
  for (auto& ch : u) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return u == "LOC" || u == "0";
}

std::vector<DiagnosedCause> p2p_disabled(const NodeEvidence& e, const DoctorContext&) {
  const std::string v = steering(e, "NCCL_P2P_DISABLE");
  if (!nccl_switch_on(v)) return {};
  return {found(e, "nccl-p2p-disabled-by-env", cs::kConfirmed,
                {{"value", v}, {"road", "shared memory or the network"}},
                {{"environment", "NCCL_P2P_DISABLE=" + v}})};
}

std::vector<DiagnosedCause> p2p_level(const NodeEvidence& e, const DoctorContext&) {
  const std::string v = steering(e, "NCCL_P2P_LEVEL");
  if (!p2p_level_none(v)) return {};
  return {found(
      e, "nccl-p2p-level-env", cs::kConfirmed,
      {{"value", v}, {"level", "the same GPU (LOC)"}, {"road", "shared memory or the network"}},
      {{"environment", "NCCL_P2P_LEVEL=" + v}})};
}

// NCCL_SHM_DISABLE matters where peer-to-peer is off too: NCCL then takes the network.
std::vector<DiagnosedCause> shm_disabled(const NodeEvidence& e, const DoctorContext&) {
  const std::string v = steering(e, "NCCL_SHM_DISABLE");
  const std::string p2p = steering(e, "NCCL_P2P_DISABLE"), level = steering(e, "NCCL_P2P_LEVEL");
  if (!nccl_switch_on(v) || !(nccl_switch_on(p2p) || p2p_level_none(level))) return {};
  std::vector<CauseEvidence> ev{{"environment", "NCCL_SHM_DISABLE=" + v}};
  ev.push_back(
      {"environment", nccl_switch_on(p2p) ? "NCCL_P2P_DISABLE=" + p2p : "NCCL_P2P_LEVEL=" + level});
  return {found(e, "nccl-shm-disabled-by-env", cs::kConfirmed,
                {{"value", v}, {"road", "the network (sockets or InfiniBand)"}}, ev)};
}

std::vector<DiagnosedCause> shm_small(const NodeEvidence& e, const DoctorContext& c) {
  const auto& shm = e.container.shm_bytes;
  if (!shm_too_small(shm, c.ranks)) return {};
  const std::string need = shm_mib(nccl_shm_bytes_needed(c.ranks));
  return {found(e, "shm-too-small", cs::kLikely,
                {{"shm", shm_mib(*shm)}, {"need", need}, {"ranks", std::to_string(c.ranks)}},
                {{"container.shm_bytes", std::to_string(*shm) + " bytes (NCCL needs about " + need +
                                             " for " + std::to_string(c.ranks) + " ranks)"}})};
}

std::vector<DiagnosedCause> acs_redirect(const NodeEvidence& e, const DoctorContext&) {
  std::vector<std::string> bridges, acs, gpus;
  std::vector<CauseEvidence> ev;
  for (std::size_t i = 0; i < e.pcie.size(); ++i) {
    const std::string gpu = gpu_name(static_cast<int>(i), e.pcie[i].pci_bus_id);
    for (const auto& b : e.pcie[i].bridges) {
      if (!b.acs_redirects.value_or(false)) continue;
      add_once(gpus, gpu);
      if (std::find(bridges.begin(), bridges.end(), b.bdf) != bridges.end()) continue;
      bridges.push_back(b.bdf);
      acs.push_back(b.acs_ctl.empty() ? "ReqRedir+ or CmpltRedir+" : b.acs_ctl);
      ev.push_back({"bridge " + b.bdf + " (" + b.kind + ") above " + gpu + " ACSCtl", acs.back()});
    }
  }
  if (bridges.empty()) return {};
  return {found(e, "acs-redirect", cs::kLikely,
                {{"bridge", join(bridges, ", ")},
                 {"setpci", setpci_acs_off(bridges)},
                 {"acs", acs.front()},
                 {"gpus", join(gpus, ", ")}},
                ev, gpus)};
}

std::vector<DiagnosedCause> links_down_rule(const NodeEvidence& e, const DoctorContext&) {
  std::vector<DiagnosedCause> out;
  for (const auto& g : e.gpus) {
    if (!g.nvlinks_expected) continue;
    // Only a link NVML lists as inactive is down (nvlinks_down). One it does not list is not
    // seen (a VM given the GPU without its NVLinks): no fault, and the GPU line says so.
    std::vector<std::string> down;
    for (int l : nvlinks_down(g)) down.push_back(std::to_string(l));
    const int up = nvlinks_up(g);
    if (up >= *g.nvlinks_expected || down.empty()) continue;
    const std::string gpu = gpu_name(g.gpu_index, g.pci_bus_id);
    out.push_back(found(
        e, "nvlink-links-down", cs::kConfirmed,
        {{"links", join_and(down)},
         {"gpu", gpu},
         {"up", std::to_string(up)},
         {"expected", std::to_string(*g.nvlinks_expected)}},
        {{gpu + " nvlinks", std::to_string(up) + " up of the model's " +
                                std::to_string(*g.nvlinks_expected) + "; down: " + join(down)}},
        {gpu}));
  }
  return out;
}

// The GPUs whose fabric `holds`, as one cause of `code` with {gpus} and {what} (their first
// state or health).
template <typename Holds>
std::vector<DiagnosedCause> fabric(const NodeEvidence& e, const char* code, const char* what,
                                   Holds holds) {
  std::vector<std::string> gpus, said;
  std::vector<CauseEvidence> ev;
  for (const auto& g : e.gpus) {
    if (!holds(g)) continue;
    gpus.push_back(gpu_name(g.gpu_index, g.pci_bus_id));
    said.push_back(std::string(what) == "state" ? g.fabric_state : g.fabric_health);
    ev.push_back({gpus.back() + " fabric",
                  g.fabric_state + (g.fabric_health.empty() ? "" : ", health " + g.fabric_health)});
  }
  if (gpus.empty()) return {};
  return {
      found(e, code, cs::kConfirmed, {{"gpus", join(gpus, ", ")}, {what, said.front()}}, ev, gpus)};
}

std::vector<DiagnosedCause> fabric_not_ready(const NodeEvidence& e, const DoctorContext&) {
  return fabric(e, "fabric-manager-not-running", "state", [](const GpuNodeEvidence& g) {
    return g.fabric_state == "not-started" || g.fabric_state == "in-progress";
  });
}

std::vector<DiagnosedCause> fabric_degraded(const NodeEvidence& e, const DoctorContext&) {
  return fabric(e, "fabric-degraded", "health", [](const GpuNodeEvidence& g) {
    return g.fabric_state == "completed" && !g.fabric_health.empty() &&
           g.fabric_health != "healthy";
  });
}

std::vector<DiagnosedCause> consumer_p2p_off(const NodeEvidence& e, const DoctorContext&) {
  std::vector<std::string> gpus;
  std::vector<CauseEvidence> ev;
  for (const auto& g : e.gpus) {
    if (!g.consumer_card_p2p_off.value_or(false)) continue;
    gpus.push_back(gpu_name(g.gpu_index, g.pci_bus_id));
    ev.push_back({gpus.back(), g.name + ", a consumer card whose driver keeps P2P off"});
  }
  if (gpus.empty()) return {};
  return {found(e, "consumer-card-p2p-off", cs::kLikely,
                {{"gpus", join(gpus, ", ")}, {"pairs", "them"}}, ev, gpus)};
}

std::vector<DiagnosedCause> memory_failure(const NodeEvidence& e, const DoctorContext&) {
  std::vector<DiagnosedCause> out;
  for (const auto& g : e.gpus) {
    std::vector<std::string> what;
    if (g.remapped_rows_failure.value_or(false)) what.push_back("a row-remapping failure");
    if (g.ecc_uncorrected_volatile.value_or(0) > 0)
      what.push_back(std::to_string(*g.ecc_uncorrected_volatile) + " uncorrected ECC errors");
    if (what.empty()) continue;
    const std::string gpu = gpu_name(g.gpu_index, g.pci_bus_id);
    out.push_back(found(e, "ecc-remapped-failure", cs::kConfirmed,
                        {{"gpus", gpu}, {"what", join(what, " and ")}}, {{gpu, join(what)}},
                        {gpu}));
  }
  return out;
}

}  // namespace

const std::vector<DoctorRule>& doctor_rules() {
  // clang-format off
  static const std::vector<DoctorRule> rules = {
      {"nccl-p2p-disabled-by-env", "NCCL_P2P_DISABLE set and not 0", p2p_disabled},
      {"nccl-shm-disabled-by-env", "NCCL_SHM_DISABLE set and not 0 where a variable turns P2P off too", shm_disabled},
      {"nccl-p2p-level-env", "NCCL_P2P_LEVEL=LOC (or 0): peer-to-peer between no two GPUs", p2p_level},
      {"shm-too-small", "/dev/shm under what NCCL needs for one rank per GPU (two or more)", shm_small},
      {"acs-redirect", "ACSCtl ReqRedir+ or CmpltRedir+ on a bridge of a GPU's path", acs_redirect},
      {"nvlink-links-down", "NVLinks NVML lists as inactive: fewer up than the model has (known-good tables)", links_down_rule},
      {"fabric-manager-not-running", "a GPU's fabric not-started or in-progress", fabric_not_ready},
      {"fabric-degraded", "a GPU's fabric completed with a health not healthy", fabric_degraded},
      {"consumer-card-p2p-off", "a GeForce or TITAN card whose P2P status is not OK", consumer_p2p_off},
      {"ecc-remapped-failure", "a row-remapping failure or uncorrected volatile ECC errors", memory_failure},
  };
  // clang-format on
  return rules;
}

std::vector<DiagnosedCause> doctor_findings(const NodeEvidence& e, const DoctorContext& c) {
  std::vector<DiagnosedCause> out;
  for (const auto& rule : doctor_rules())
    for (auto& cause : rule.check(e, c)) out.push_back(std::move(cause));
  return out;
}

}  // namespace peerbench
