#include "core/model/topology.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace peerbench {

std::string to_string(LinkKind k) {
  switch (k) {
    case LinkKind::kNvLink:
      return "nvlink";
    case LinkKind::kPcieSwitch:
      return "pcie-switch";
    case LinkKind::kPcieHostBridge:
      return "pcie-host-bridge";
    case LinkKind::kPcieNode:
      return "pcie-numa-node";
    case LinkKind::kPcieSystem:
      return "pcie-cross-socket";
    case LinkKind::kCrossHost:
      return "cross-host";
    case LinkKind::kSameGpu:
      return "same-gpu";
    case LinkKind::kUnknown:
      return "unknown";
  }
  return "unknown";
}

std::string LinkClass::describe() const {
  switch (kind) {
    case LinkKind::kNvLink:
      return "NVLink x" + std::to_string(nvlinks);
    case LinkKind::kPcieSwitch:
      return "PCIe through a switch (" + label + ")";
    case LinkKind::kPcieHostBridge:
      return "PCIe through the CPU host bridge (PHB)";
    case LinkKind::kPcieNode:
      return "PCIe across host bridges of one NUMA node (NODE)";
    case LinkKind::kPcieSystem:
      return "PCIe across CPU sockets (SYS)";
    case LinkKind::kCrossHost:
      return "across hosts (network)";
    case LinkKind::kSameGpu:
      return "same GPU";
    case LinkKind::kUnknown:
      return "unknown link";
  }
  return "unknown link";
}

LinkClass classify_link(const GpuPairTopology& p) {
  LinkClass c;
  if (p.gpu_a == p.gpu_b && p.gpu_a >= 0) {
    c.kind = LinkKind::kSameGpu;
    c.label = "X";
    return c;
  }
  if (p.nvlink_count > 0) {
    c.kind = LinkKind::kNvLink;
    c.nvlinks = p.nvlink_count;
    c.label = "NV" + std::to_string(p.nvlink_count);
    return c;
  }
  c.label = p.pcie_path.empty() ? "?" : p.pcie_path;
  if (p.pcie_path == "PIX" || p.pcie_path == "PXB") {
    c.kind = LinkKind::kPcieSwitch;
  } else if (p.pcie_path == "PHB") {
    c.kind = LinkKind::kPcieHostBridge;
  } else if (p.pcie_path == "NODE") {
    c.kind = LinkKind::kPcieNode;
  } else if (p.pcie_path == "SYS") {
    c.kind = LinkKind::kPcieSystem;
  } else if (p.pcie_path == "SELF") {
    c.kind = LinkKind::kSameGpu;
    c.label = "X";
  }
  return c;
}

LinkClass cross_host_link() {
  LinkClass c;
  c.kind = LinkKind::kCrossHost;
  c.label = "NET";
  return c;
}

double nvlink_gbps_per_link(int cc_major) {
  if (cc_major >= 10) return 50.0;
  if (cc_major == 9) return 26.5625;
  if (cc_major >= 7) return 25.0;
  return 0.0;
}

double pcie_lane_gbps(int gen) {
  switch (gen) {
    case 1:
      return 0.25;
    case 2:
      return 0.5;
    case 3:
      return 0.985;
    case 4:
      return 1.969;
    case 5:
      return 3.938;
    case 6:
      return 7.563;
    default:
      return 0.0;
  }
}

// The bar is what GPU and slot both support, not what the link trained to: a downtrained link
// must not lower its own bar, and idle GPUs drop their generation anyway (pcie-downtrained judges
// the trained link, read under load).
int pcie_gen_bar(const GpuTopology& g) {
  std::optional<int> v = g.pcie_gen_max;
  if (g.pcie_gen_gpu_max) v = v ? std::min(*v, *g.pcie_gen_gpu_max) : g.pcie_gen_gpu_max;
  return v.value_or(g.pcie_gen_current.value_or(0));
}

int pcie_width_bar(const GpuTopology& g) {
  return g.pcie_width_max.value_or(g.pcie_width_current.value_or(0));
}

std::optional<LinkExpectation> expected_link_bandwidth(const LinkClass& link, const GpuTopology& a,
                                                       const GpuTopology& b) {
  LinkExpectation e;
  std::ostringstream basis;
  basis << std::fixed << std::setprecision(2);
  if (link.kind == LinkKind::kNvLink) {
    const int cc = std::min(a.cc_major, b.cc_major);
    const double per = nvlink_gbps_per_link(cc);
    if (per <= 0) return std::nullopt;
    e.raw_gbps = per * link.nvlinks;
    basis << link.nvlinks << " NVLinks x " << per << " GB/s per direction (sm_" << cc << "x)";
    e.basis = basis.str();
    return e;
  }
  if (link.kind == LinkKind::kPcieSwitch || link.kind == LinkKind::kPcieHostBridge ||
      link.kind == LinkKind::kPcieNode || link.kind == LinkKind::kPcieSystem) {
    // The slower end bounds the path.
    const int gmin = std::min(pcie_gen_bar(a), pcie_gen_bar(b));
    const int wmin = std::min(pcie_width_bar(a), pcie_width_bar(b));
    const double lane = pcie_lane_gbps(gmin);
    if (lane <= 0 || wmin <= 0) return std::nullopt;
    e.raw_gbps = lane * wmin;
    basis << "PCIe Gen" << gmin << " x" << wmin << " = " << e.raw_gbps << " GB/s per direction";
    e.basis = basis.str();
    return e;
  }
  return std::nullopt;
}

}  // namespace peerbench
