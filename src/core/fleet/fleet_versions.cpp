// Version gaps: where a fleet mixes drivers, CUDA or NCCL, the pooled median of a group sits
// between the versions' own, so a version that made every figure 12 % slower flags no node. Each
// group is split by each mixed version field and the versions' medians are compared.
#include <algorithm>
#include <map>

#include "core/base/text.h"
#include "core/fleet/fleet.h"
#include "core/model/sizes.h"

namespace peerbench {
namespace {

// The version a node ran, for one field of VersionSpread ("" unknown).
const std::string& version_of(const FleetNode& n, const std::string& what) {
  if (what == "driver") return n.versions.driver;
  if (what == "CUDA") return n.versions.cuda;
  return n.versions.nccl;
}

struct Side {
  std::vector<double> values;
  int nodes = 0;
  double median() {
    std::sort(values.begin(), values.end());
    return quantile(values, 0.5);
  }
};

// The group's figures of every node, by the version it ran.
std::map<std::string, Side> split_by(const std::vector<FleetNode>& nodes, const FleetGroup& g,
                                     const std::string& what) {
  std::map<std::string, Side> by;
  for (const auto& n : nodes) {
    const std::string& v = version_of(n, what);
    if (n.file.empty() || v.empty()) continue;
    bool counted = false;
    for (const auto& p : n.pairs) {
      if (p.gpu_model != g.gpu_model || p.group_of(g.method) != g.link) continue;
      for (const auto& pos : p.positions) {
        if (pos.method != g.method || pos.bytes != g.bytes || pos.value <= 0) continue;
        by[v].values.push_back(pos.value);
        counted = true;
      }
    }
    by[v].nodes += counted;
  }
  return by;
}

}  // namespace

std::string VersionGap::text() const {
  const int d = lower_is_better ? 2 : 1;
  const std::string unit = " " + fleet_unit(method, lower_is_better);
  return what + " " + slow + " (" + count_of(slow_nodes, "node") + ") is " +
         format_fixed(100 * shortfall, 1) + " % " + (lower_is_better ? "slower" : "lower") +
         " than " + what + " " + fast + " (" + count_of(fast_nodes, "node") + ") on " + method +
         " at " + format_size(bytes) + " (" + gpu_model + ", " + link + "): median " +
         format_fixed(slow_median, d) + unit + " against " + format_fixed(fast_median, d) + unit;
}

std::vector<VersionGap> version_gaps(const std::vector<FleetNode>& nodes,
                                     const std::vector<FleetGroup>& groups,
                                     const std::vector<VersionSpread>& spreads, double tolerance) {
  std::vector<VersionGap> out;
  for (const auto& spread : spreads) {
    if (!spread.mixed()) continue;
    for (const auto& g : groups) {
      if (!g.judged) continue;
      auto by = split_by(nodes, g, spread.what);
      VersionGap worst;
      for (auto& [slow, a] : by) {
        for (auto& [fast, b] : by) {
          if (slow == fast || a.values.size() < 2 || b.values.size() < 2) continue;
          const double ma = a.median(), mb = b.median();
          if (ma <= 0 || mb <= 0) continue;
          const double shortfall = g.lower_is_better ? ma / mb - 1 : 1 - ma / mb;
          if (shortfall <= tolerance || shortfall <= worst.shortfall) continue;
          worst = {spread.what, slow,        fast,     a.nodes, b.nodes,
                   g.method,    g.gpu_model, g.link,   g.bytes, g.lower_is_better,
                   ma,          mb,          shortfall};
        }
      }
      if (worst.shortfall > 0) out.push_back(worst);
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const VersionGap& a, const VersionGap& b) {
    return a.shortfall > b.shortfall;
  });
  return out;
}

}  // namespace peerbench
