// The PCIe side of each GPU, from sysfs: the path of bridges above it (the components of its
// resolved /sys/devices path), their port type and ACS from `config`, the link, BAR1, the IOMMU
// group and the NUMA node.
#include <cctype>
#include <cstdlib>

#include "core/base/text.h"
#include "core/model/node_evidence_host.h"
#include "core/platform/pci_config.h"

namespace peerbench {
namespace {

const std::string kPciDevices = "/sys/bus/pci/devices/";

// "0000:1b:00.0": domain, bus, device, function in hex.
bool looks_like_bdf(const std::string& s) {
  if (s.size() != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.') return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i == 4 || i == 7 || i == 10) continue;
    if (!std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

std::optional<long long> number_in(const std::optional<std::string>& text, int base) {
  if (!text || text->empty()) return std::nullopt;
  char* end = nullptr;
  const long long v = std::strtoll(text->c_str(), &end, base);
  if (end == text->c_str()) return std::nullopt;
  return v;
}

std::optional<int> small_int(const std::optional<std::string>& text) {
  const auto v = number_in(text, 10);
  if (!v || *v < 0 || *v > 1'000'000) return std::nullopt;
  return static_cast<int>(*v);
}

PcieBridgeEvidence read_bridge(const SysRoot& root, const std::string& device_path) {
  PcieBridgeEvidence b;
  b.bdf = device_path.substr(device_path.rfind('/') + 1);
  const std::string cfg_path = device_path + "/config";
  const auto config = root.read(cfg_path, 4096);
  if (!config) {
    b.note = "config space not readable";
    return b;
  }
  if (auto type = pcie_port_type(*config)) {
    b.kind = *type == "pcie-to-pci-bridge" || *type == "pci-to-pcie-bridge" ? "pci-bridge" : *type;
  } else if (number_in(root.read_line(device_path + "/class"), 16).value_or(0) >> 8 == 0x0604) {
    b.kind = "pci-bridge";
  }
  const AcsReading acs = read_acs(*config, root.size(cfg_path).value_or(0));
  switch (acs.state) {
    case AcsReading::State::kUnreadable:
      b.note = "unreadable without root";
      break;
    case AcsReading::State::kNoExtended:
    case AcsReading::State::kAbsent:
      b.acs_capable = false;
      break;
    case AcsReading::State::kPresent:
      b.acs_capable = true;
      b.acs_redirects = acs_redirects(acs.registers.control);
      b.acs_ctl = acs_words(acs.registers.control);
      break;
  }
  return b;
}

// BAR1 from `resource`: one "start end flags" line per region, BAR1 on the second.
std::optional<std::uint64_t> bar1_bytes(const SysRoot& root, const std::string& device_path) {
  const auto text = root.read(device_path + "/resource");
  if (!text) return std::nullopt;
  const auto lines = split(*text, '\n');
  if (lines.size() < 2) return std::nullopt;
  const auto fields = split(lines[1], ' ');
  if (fields.size() < 2) return std::nullopt;
  const unsigned long long start = std::strtoull(fields[0].c_str(), nullptr, 16);
  const unsigned long long end = std::strtoull(fields[1].c_str(), nullptr, 16);
  if (end <= start) return std::nullopt;
  return end - start + 1;
}

void read_link(const SysRoot& root, const std::string& dev, GpuPcieEvidence& g) {
  if (auto s = root.read_line(dev + "/current_link_speed"))
    g.link_gen = pcie_generation_of_speed(*s);
  if (auto s = root.read_line(dev + "/max_link_speed"))
    g.link_gen_max = pcie_generation_of_speed(*s);
  g.link_width = small_int(root.read_line(dev + "/current_link_width"));
  g.link_width_max = small_int(root.read_line(dev + "/max_link_width"));
}

}  // namespace

std::vector<std::string> nvidia_gpus_in_sysfs(const SysRoot& root) {
  std::vector<std::string> out;
  for (const auto& name : root.list(kPciDevices)) {
    if (!looks_like_bdf(name)) continue;
    const auto vendor = number_in(root.read_line(kPciDevices + name + "/vendor"), 16);
    const auto cls = number_in(root.read_line(kPciDevices + name + "/class"), 16);
    if (vendor != 0x10de || !cls) continue;
    if ((*cls >> 8) == 0x0300 || (*cls >> 8) == 0x0302) out.push_back(name);
  }
  return out;
}

GpuPcieEvidence read_gpu_pcie(const SysRoot& root, const std::string& bus_id) {
  GpuPcieEvidence g;
  g.pci_bus_id = ascii_lower(bus_id);
  const auto dev = root.resolve(kPciDevices + g.pci_bus_id);
  if (!dev) {
    g.note = "not in " + kPciDevices;
    return g;
  }
  // /sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0: each BDF above the GPU is a
  // bridge, the root port first.
  const auto parts = split(*dev, '/');
  std::string path;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    if (!parts[i].empty()) path += "/" + parts[i];
    if (looks_like_bdf(parts[i])) g.bridges.push_back(read_bridge(root, path));
  }
  read_link(root, *dev, g);
  g.bar1_bytes = bar1_bytes(root, *dev);
  if (auto group = root.link_target(*dev + "/iommu_group"))
    g.iommu_group = small_int(group->substr(group->rfind('/') + 1));
  g.numa_node = small_int(root.read_line(*dev + "/numa_node"));  // -1: no NUMA node given
  return g;
}

}  // namespace peerbench
