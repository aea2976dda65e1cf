#include "core/judge/doctor_findings.h"

#include <algorithm>

#include "core/base/text.h"

namespace peerbench {
namespace {

// The values of a steering variable that turn a transport off.
struct SteeringOff {
  const char* variable;
  std::vector<std::string> values;
  const char* what;
};
const SteeringOff kSteeringOff[] = {
    {"NCCL_P2P_DISABLE", {"1", "true", "yes"}, "turns NCCL's P2P transport off"},
    {"NCCL_P2P_LEVEL", {"LOC", "0"}, "allows P2P between no GPUs"},
    {"NCCL_SHM_DISABLE", {"1", "true", "yes"}, "turns NCCL's shared-memory transport off"},
};

std::string gpu_label(const std::string& bus_id, int index) {
  return "GPU " + (index >= 0 ? std::to_string(index) + " " : std::string()) + "(" + bus_id + ")";
}

std::vector<std::string> steering_off(const NodeEvidence& e, const DoctorContext&) {
  std::vector<std::string> out;
  for (const auto& s : kSteeringOff) {
    const auto it = e.steering_environment.find(s.variable);
    if (it == e.steering_environment.end()) continue;
    std::string v = it->second;
    std::transform(v.begin(), v.end(), v.begin(), ::toupper);
    for (const auto& off : s.values) {
      std::string o = off;
      std::transform(o.begin(), o.end(), o.begin(), ::toupper);
      if (v == o) out.push_back(std::string(s.variable) + "=" + it->second + " " + s.what);
    }
  }
  return out;
}

std::vector<std::string> acs_redirect(const NodeEvidence& e, const DoctorContext&) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < e.pcie.size(); ++i) {
    for (const auto& b : e.pcie[i].bridges) {
      if (b.acs_redirects.value_or(false))
        out.push_back("ACS redirects peer traffic on " + b.bdf + " (" + b.kind + ") above " +
                      gpu_label(e.pcie[i].pci_bus_id, static_cast<int>(i)) + ": ACSCtl " +
                      b.acs_ctl);
    }
  }
  return out;
}

std::vector<std::string> nvlink_down(const NodeEvidence& e, const DoctorContext&) {
  std::vector<std::string> out;
  for (const auto& g : e.gpus) {
    if (!g.nvlinks_expected) continue;
    std::vector<std::string> down;
    int up = 0;
    for (const auto& l : g.nvlinks) {
      if (l.up.value_or(false)) {
        ++up;
      } else {
        down.push_back(std::to_string(l.link));
      }
    }
    if (up >= *g.nvlinks_expected) continue;
    out.push_back(gpu_label(g.pci_bus_id, g.gpu_index) + ": " + std::to_string(up) + " of " +
                  std::to_string(*g.nvlinks_expected) + " NVLinks up" +
                  (down.empty() ? "" : "; down: " + join(down, ", ")));
  }
  return out;
}

std::vector<std::string> fabric_not_ready(const NodeEvidence& e, const DoctorContext&) {
  std::vector<std::string> out;
  for (const auto& g : e.gpus) {
    const bool waiting = g.fabric_state == "not-started" || g.fabric_state == "in-progress";
    const bool unhealthy = !g.fabric_health.empty() && g.fabric_health != "healthy";
    if (waiting || (g.fabric_state == "completed" && unhealthy))
      out.push_back(gpu_label(g.pci_bus_id, g.gpu_index) + ": fabric " + g.fabric_state +
                    (g.fabric_health.empty() ? "" : ", health " + g.fabric_health));
  }
  return out;
}

std::vector<std::string> remapped_rows(const NodeEvidence& e, const DoctorContext&) {
  std::vector<std::string> out;
  for (const auto& g : e.gpus) {
    if (g.remapped_rows_failure.value_or(false))
      out.push_back(gpu_label(g.pci_bus_id, g.gpu_index) + ": a row remapping failed");
  }
  return out;
}

std::vector<std::string> consumer_p2p_off(const NodeEvidence& e, const DoctorContext&) {
  std::vector<std::string> out;
  for (const auto& g : e.gpus) {
    if (g.consumer_card_p2p_off.value_or(false))
      out.push_back(gpu_label(g.pci_bus_id, g.gpu_index) + ": " + g.name +
                    ", a consumer card whose driver keeps P2P off");
  }
  return out;
}

std::vector<std::string> shm_small(const NodeEvidence& e, const DoctorContext& c) {
  const auto& shm = e.container.shm_bytes;
  if (c.ranks < 2 || !shm || *shm >= kNcclShmBytes) return {};
  return {"/dev/shm holds " + format_fixed(static_cast<double>(*shm) / (1 << 20), 0) + " MiB for " +
          std::to_string(c.ranks) + " ranks; NCCL asks for 1024 MiB"};
}

}  // namespace

const std::vector<DoctorRule>& doctor_rules() {
  static const std::vector<DoctorRule> rules = {
      {"steering-off", "a variable turns NCCL's P2P or SHM transport off",
       "unset it (or set it to 0) and run again", steering_off},
      {"acs-redirect", "ACS sends peer traffic up to the root complex",
       "disable ACS on that bridge (BIOS, or setpci -s BDF ECAP_ACS+6.w=0000), or boot with "
       "iommu=pt",
       acs_redirect},
      {"nvlink-down", "NVLinks down against the model's count",
       "nvidia-smi nvlink -s -i GPU, then reseat or RMA the board", nvlink_down},
      {"fabric-not-ready", "the NVSwitch fabric is not ready",
       "start nvidia-fabricmanager (systemctl start nvidia-fabricmanager) and read its log",
       fabric_not_ready},
      {"remapped-rows-failure", "a GPU's memory row remapping failed",
       "nvidia-smi -q -d ROW_REMAPPER; reset the GPU, and RMA it if the failure stays",
       remapped_rows},
      {"consumer-card-p2p-off", "a consumer card: the driver keeps P2P off",
       "expect copies through host memory; P2P needs a data-centre card", consumer_p2p_off},
      {"shm-too-small", "/dev/shm smaller than NCCL needs",
       "give the container --ipc=host or --shm-size=1g (or remount /dev/shm larger)", shm_small},
  };
  return rules;
}

std::vector<DoctorFinding> doctor_findings(const NodeEvidence& e, const DoctorContext& c) {
  std::vector<DoctorFinding> out;
  for (const auto& rule : doctor_rules()) {
    for (auto& line : rule.check(e, c)) out.push_back({rule.code, std::move(line), rule.next});
  }
  return out;
}

}  // namespace peerbench
