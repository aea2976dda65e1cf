// Version gaps: where a fleet mixes drivers, CUDA or NCCL, the pooled median of a group sits
// between the versions' own, so a version that made every figure 12 % slower flags no node. Each
// group is split by each mixed version field and the versions' medians are compared.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "core/base/text.h"
#include "core/fleet/fleet.h"
#include "core/fleet/fleet_assembly.h"
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
  std::set<std::string> hosts;
  double median() {
    std::sort(values.begin(), values.end());
    return quantile(values, 0.5);
  }
};

// The group's figures of every node, by the version it ran.
std::map<std::string, Side> split_by(const std::vector<FleetNode>& nodes, const FleetGroup& g,
                                     const std::string& what) {
  struct Node {
    std::string host;
    std::vector<double> values;
    bool outlier = false;
  };
  std::map<std::string, std::vector<Node>> by_version;
  for (const auto& n : nodes) {
    const std::string& v = version_of(n, what);
    if (n.file.empty() || v.empty()) continue;
    Node x{n.host, {}, false};
    for (const auto& p : n.pairs) {
      if (p.gpu_model != g.gpu_model || p.group_of(g.method) != g.link) continue;
      for (const auto& pos : p.positions) {
        if (pos.method != g.method || pos.bytes != g.bytes || pos.value <= 0) continue;
        x.values.push_back(pos.value);
        x.outlier |= pos.outlier;
      }
    }
    if (!x.values.empty()) by_version[v].push_back(std::move(x));
  }
  std::map<std::string, Side> by;
  for (const auto& [v, members] : by_version) {
    // A node that is the group's outlier is its own finding (fleet-outlier), not its version's:
    // one broken node on a new driver read as that driver's fault (a review). Where every node of
    // a version is an outlier, and enough of them to stand for it, the version is what they
    // share: three nodes on the old driver made both on the new one outliers, and the gap went
    // unsaid (an audit).
    const bool all_outliers =
        members.size() >= static_cast<std::size_t>(kBaselineMinNodes) &&
        std::all_of(members.begin(), members.end(), [](const Node& x) { return x.outlier; });
    for (const auto& x : members) {
      if (x.outlier && !all_outliers) continue;
      auto& side = by[v];
      side.values.insert(side.values.end(), x.values.begin(), x.values.end());
      side.hosts.insert(x.host);
    }
  }
  return by;
}

VersionGap gap_of(const FleetGroup& g, const std::string& what, const std::string& slow,
                  const Side& a, const std::string& fast, const Side& b, double shortfall) {
  VersionGap x;
  x.what = what;
  x.slow = what + " " + slow;
  x.fast = what + " " + fast;
  x.slow_hosts = a.hosts;
  x.fast_hosts = b.hosts;
  x.slow_nodes = static_cast<int>(a.hosts.size());
  x.fast_nodes = static_cast<int>(b.hosts.size());
  x.method = g.method;
  x.gpu_model = g.gpu_model;
  x.link = g.link;
  x.bytes = g.bytes;
  x.lower_is_better = g.lower_is_better;
  x.shortfall = shortfall;
  return x;
}

// The worst pair of versions of one field in one group, or none beyond the tolerance. Each side
// needs the nodes a baseline entry needs: one node's figures are that node's.
std::optional<VersionGap> worst_gap(const std::vector<FleetNode>& nodes, const FleetGroup& g,
                                    const std::string& what, double tolerance) {
  auto by = split_by(nodes, g, what);
  const auto min_nodes = static_cast<std::size_t>(kBaselineMinNodes);
  std::optional<VersionGap> worst;
  for (auto& [slow, a] : by) {
    for (auto& [fast, b] : by) {
      if (slow == fast || a.hosts.size() < min_nodes || b.hosts.size() < min_nodes) continue;
      const double ma = a.median(), mb = b.median();
      if (ma <= 0 || mb <= 0) continue;
      const double shortfall = g.lower_is_better ? ma / mb - 1 : 1 - ma / mb;
      if (shortfall <= tolerance || (worst && shortfall <= worst->shortfall)) continue;
      worst = gap_of(g, what, slow, a, fast, b, shortfall);
      worst->slow_median = ma;
      worst->fast_median = mb;
    }
  }
  return worst;
}

// Driver and NCCL changed on the same nodes give one gap, named by both (it was counted twice).
void merge_same_nodes(std::vector<VersionGap>& gaps) {
  std::vector<VersionGap> out;
  for (auto& g : gaps) {
    auto same = std::find_if(out.begin(), out.end(), [&](const VersionGap& o) {
      return o.method == g.method && o.bytes == g.bytes && o.gpu_model == g.gpu_model &&
             o.link == g.link && o.slow_hosts == g.slow_hosts && o.fast_hosts == g.fast_hosts;
    });
    if (same == out.end()) {
      out.push_back(g);
      continue;
    }
    same->what += ", " + g.what;
    same->slow += " and " + g.slow;
    same->fast += " and " + g.fast;
  }
  gaps = std::move(out);
}

}  // namespace

std::string VersionGap::text() const {
  const int d = lower_is_better ? 2 : 1;
  const std::string unit = " " + fleet_unit(method, lower_is_better);
  return slow + " (" + count_of(slow_nodes, "node") + ") is " + format_fixed(100 * shortfall, 1) +
         " % " + (lower_is_better ? "slower" : "lower") + " than " + fast + " (" +
         count_of(fast_nodes, "node") + ") on " + method + " at " + format_size(bytes) + " (" +
         gpu_model + ", " + link + "): median " + format_fixed(slow_median, d) + unit +
         " against " + format_fixed(fast_median, d) + unit;
}

std::vector<VersionGap> version_gaps(const std::vector<FleetNode>& nodes,
                                     const std::vector<FleetGroup>& groups,
                                     const std::vector<VersionSpread>& spreads, double tolerance) {
  std::vector<VersionGap> out;
  for (const auto& spread : spreads) {
    if (!spread.mixed()) continue;
    for (const auto& g : groups) {
      if (!g.judged) continue;
      if (auto gap = worst_gap(nodes, g, spread.what, tolerance)) out.push_back(*gap);
    }
  }
  merge_same_nodes(out);
  std::stable_sort(out.begin(), out.end(), [](const VersionGap& a, const VersionGap& b) {
    return a.shortfall > b.shortfall;
  });
  return out;
}

namespace fleet_detail {

std::vector<VersionSpread> version_spreads(const std::vector<FleetNode>& nodes) {
  std::vector<VersionSpread> out{{"driver", {}}, {"CUDA", {}}, {"NCCL", {}}};
  for (const auto& n : nodes) {
    // A node read that recorded no version is counted as unknown: the counts add up to the nodes.
    if (n.file.empty()) continue;
    auto name = [](const std::string& v) { return v.empty() ? std::string("unknown") : v; };
    out[0].nodes_by_value[name(n.versions.driver)].push_back(n.host);
    out[1].nodes_by_value[name(n.versions.cuda)].push_back(n.host);
    out[2].nodes_by_value[name(n.versions.nccl)].push_back(n.host);
  }
  return out;
}

}  // namespace fleet_detail
}  // namespace peerbench
