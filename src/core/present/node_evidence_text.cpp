#include "core/present/node_evidence_text.h"

#include <algorithm>

#include "core/base/text.h"

namespace peerbench {
namespace {

constexpr std::size_t kMaxValue = 160;  // a kernel command line, a DMI name: cut to one line

std::string shown(const std::string& s) {
  std::string t = sanitize_for_terminal(s);
  return t.size() > kMaxValue ? t.substr(0, kMaxValue - 3) + "..." : t;
}

std::string bytes_text(unsigned long long b) {
  if (b >= (1ull << 30)) return format_fixed(static_cast<double>(b) / (1ull << 30), 1) + " GiB";
  return format_fixed(static_cast<double>(b) / (1ull << 20), 0) + " MiB";
}

std::string yes_no(const std::optional<bool>& b, const char* yes, const char* no) {
  return b ? (*b ? yes : no) : "unknown";
}

std::string bridge_text(const PcieBridgeEvidence& b) {
  std::string s = b.bdf + " " + (b.kind.empty() ? "bridge" : b.kind);
  if (b.acs_redirects.value_or(false)) return s + " [ACS redirects: " + b.acs_ctl + "]";
  if (b.acs_capable && !*b.acs_capable) return s + " [no ACS]";
  if (b.acs_capable) return s + " [ACS, no redirect]";
  return s + (b.note.empty() ? "" : " [ACS " + b.note + "]");
}

std::string pcie_line(std::size_t i, const GpuPcieEvidence& g) {
  std::string s = "GPU " + std::to_string(i) + " " + g.pci_bus_id + ":";
  if (g.link_gen && g.link_width)
    s += " PCIe Gen" + std::to_string(*g.link_gen) + " x" + std::to_string(*g.link_width);
  if (g.link_gen_max && g.link_width_max)
    s += " (max Gen" + std::to_string(*g.link_gen_max) + " x" + std::to_string(*g.link_width_max) +
         ")";
  if (g.bar1_bytes) s += ", BAR1 " + bytes_text(*g.bar1_bytes);
  if (g.numa_node) s += ", NUMA " + std::to_string(*g.numa_node);
  if (g.iommu_group) s += ", IOMMU group " + std::to_string(*g.iommu_group);
  if (!g.note.empty()) s += " (" + g.note + ")";
  return s;
}

std::string path_line(const GpuPcieEvidence& g) {
  if (g.bridges.empty()) return "  path: on the root bus (no bridge above it)";
  std::vector<std::string> parts;
  for (const auto& b : g.bridges) parts.push_back(bridge_text(b));
  return "  path: " + join(parts, " > ");
}

std::string gpu_line(const GpuNodeEvidence& g) {
  const int up = nvlinks_up(g);
  std::string s =
      "  " + shown(g.name) + ": NVLinks " +
      (g.nvlinks.empty() ? std::string("none listed by NVML")
                         : std::to_string(up) + " up of " + std::to_string(g.nvlinks.size()));
  if (g.nvlinks_expected) s += " (model: " + std::to_string(*g.nvlinks_expected) + ")";
  if (!g.fabric_state.empty()) s += ", fabric " + g.fabric_state;
  if (!g.fabric_health.empty()) s += " " + g.fabric_health;
  s += ", persistence " + yes_no(g.persistence_mode, "on", "off");
  s += ", clocks " + (g.clock_event_reasons.empty() ? "free" : join(g.clock_event_reasons, "+"));
  if (g.ecc_uncorrected_volatile)
    s += ", ECC uncorrected " + std::to_string(*g.ecc_uncorrected_volatile);
  if (g.remapped_rows_failure) s += *g.remapped_rows_failure ? ", ROW REMAP FAILED" : ", rows ok";
  if (!g.note.empty()) s += " (" + shown(g.note) + ")";
  return s;
}

void add_gpu_lines(const NodeEvidence& e, std::vector<std::string>& out) {
  for (std::size_t i = 0; i < e.pcie.size(); ++i) {
    out.push_back(pcie_line(i, e.pcie[i]));
    out.push_back(path_line(e.pcie[i]));
    for (const auto& g : e.gpus) {
      if (g.pci_bus_id == e.pcie[i].pci_bus_id) out.push_back(gpu_line(g));
    }
  }
}

std::string iommu_line(const IommuEvidence& i) {
  std::string s = "IOMMU: " + (i.mode.empty() ? std::string("unknown") : i.mode);
  if (i.groups) s += " (" + count_of(*i.groups, "group") + ")";
  if (!i.default_domain_type.empty()) s += ", GPU domain " + i.default_domain_type;
  if (!i.note.empty()) s += " (" + i.note + ")";
  return s;
}

std::string virtualization_line(const VirtualizationEvidence& v) {
  std::string s = "Virtualization: hypervisor flag " + yes_no(v.hypervisor_flag, "on", "off");
  if (!v.hypervisor_hint.empty()) s += ", " + v.hypervisor_hint;
  s += ", DMI " + (v.dmi_vendor.empty() ? std::string("unreadable")
                                        : shown(v.dmi_vendor + " " + v.dmi_product));
  if (!v.nvml_mode.empty()) s += ", NVML " + v.nvml_mode;
  return s;
}

std::string container_line(const ContainerEvidence& c) {
  std::string s = "Container: " + c.runtime;
  if (!c.signs.empty()) s += " (" + shown(join(c.signs, "; ")) + ")";
  s += ", IPC namespace " + yes_no(c.ipc_namespace_is_init, "the host's", "private");
  if (c.shm_bytes)
    s += ", /dev/shm " + bytes_text(*c.shm_bytes) + " (" +
         bytes_text(c.shm_free_bytes.value_or(0)) + " free)";
  if (!c.note.empty()) s += " (" + c.note + ")";
  return s;
}

std::string environment_line(const NodeEvidence& e) {
  std::vector<std::string> set;
  for (const auto& [k, v] : e.steering_environment) set.push_back(k + "=" + v);
  std::string s = "Environment: " +
                  (set.empty() ? std::string("no steering variable set") : shown(join(set, " ")));
  const auto& d = e.cuda_order_differs_from_pci;
  s += "; CUDA order " + std::string(!d ? "against PCI order unknown"
                                        : (*d ? "differs from PCI order" : "is PCI order"));
  return s;
}

}  // namespace

std::vector<std::string> node_evidence_lines(const NodeEvidence& e) {
  std::vector<std::string> out;
  const std::string driver = e.driver == "no NVIDIA driver" ? e.driver : "driver " + e.driver;
  out.push_back("Node " + shown(e.host) + " (read by " + e.collected_by + "): " + shown(driver) +
                ", " + count_of(static_cast<long long>(e.pcie.size()), "GPU"));
  add_gpu_lines(e, out);
  out.push_back(iommu_line(e.iommu));
  out.push_back("Kernel command line: " + shown(e.iommu.kernel_cmdline));
  out.push_back(virtualization_line(e.virtualization));
  out.push_back(container_line(e.container));
  out.push_back(environment_line(e));
  for (const auto& n : e.notes) out.push_back("Note: " + shown(n));
  return out;
}

std::vector<std::string> doctor_finding_lines(const std::vector<DiagnosedCause>& findings) {
  if (findings.empty()) return {"Findings: none"};
  std::vector<std::string> out{"Findings: " + std::to_string(findings.size())};
  // Each cause once: its words, its first evidence lines and how many more, its one Next line
  // (whole: the command it names must not be cut).
  constexpr std::size_t kShownPerCause = 3;
  for (const auto& f : findings) {
    out.push_back("  " + f.code + ": " + shown(f.summary));
    for (std::size_t k = 0; k < std::min(f.evidence.size(), kShownPerCause); ++k)
      out.push_back("    " + shown(f.evidence[k].source + ": " + f.evidence[k].fact));
    if (f.evidence.size() > kShownPerCause)
      out.push_back("    ... and " + std::to_string(f.evidence.size() - kShownPerCause) +
                    " more like these");
    out.push_back("    " + sanitize_for_terminal(f.next));
  }
  return out;
}

std::string format_doctor_page(const NodeEvidence& e, const std::vector<DiagnosedCause>& findings) {
  auto evidence = node_evidence_lines(e);
  auto found = doctor_finding_lines(findings);
  // Findings keep at least half the page; the evidence gets what they leave.
  const std::size_t half = kDoctorMaxLines / 2;
  auto cut = [](std::vector<std::string>& lines, std::size_t room) {
    if (lines.size() <= room) return;
    const std::size_t left = lines.size() - (room - 1);
    lines.resize(room - 1);
    lines.push_back("  ... " + count_of(static_cast<long long>(left), "more line") +
                    " (--json holds everything)");
  };
  cut(found, std::max(half, kDoctorMaxLines - std::min(evidence.size(), half)));
  cut(evidence, kDoctorMaxLines - found.size());
  std::string page;
  for (const auto& l : evidence) page += l + "\n";
  for (const auto& l : found) page += l + "\n";
  return page;
}

}  // namespace peerbench
