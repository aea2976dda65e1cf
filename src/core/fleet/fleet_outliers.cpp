// The fleet's groups and outliers: the pairs of one method, GPU model and link kind, judged at the
// size most of them reached; the group's median and spread; each pair's ratio to the median, and
// a fleet-outlier flag on a pair worse than it by more than the tolerance.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "core/base/text.h"
#include "core/fleet/fleet_assembly.h"
#include "core/judge/verdict.h"
#include "core/model/sizes.h"

namespace peerbench {

double quantile(const std::vector<double>& sorted, double q) {
  const double at = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(at));
  const auto hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (at - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

namespace fleet_detail {
namespace {

struct Member {
  FleetNode* node;
  FleetPair* pair;
  const Measurement* at_size = nullptr;
};

// The size a group is judged at: the largest size most of its pairs reached (ties: larger).
std::uint64_t group_size(const std::string& method, const std::vector<Member>& members) {
  std::map<std::uint64_t, int> votes;
  for (const auto& m : members) {
    std::uint64_t largest = 0;
    for (const auto& x : m.pair->measurements)
      if (x.method == method) largest = std::max(largest, x.bytes);
    if (largest) ++votes[largest];
  }
  std::uint64_t best = 0;
  int most = 0;
  for (const auto& [bytes, n] : votes) {
    if (n >= most) std::tie(best, most) = std::tie(bytes, n);
  }
  return best;
}

FleetGroup summarize_group(const std::string& method, std::uint64_t bytes,
                           std::vector<Member>& members) {
  FleetGroup g;
  g.method = method;
  g.gpu_model = members.front().pair->gpu_model;
  g.link = members.front().pair->group_of(method);
  g.bytes = bytes;
  std::vector<double> values;
  std::set<std::string> nodes;
  for (auto& m : members) {
    for (const auto& x : m.pair->measurements) {
      if (x.method == method && x.bytes == bytes) m.at_size = &x;
    }
    if (!m.at_size) continue;
    values.push_back(m.at_size->value);
    nodes.insert(m.node->host);
    g.lower_is_better = m.at_size->lower_is_better;
    g.through_host = m.at_size->through_host;
    g.both_ways = m.at_size->both_ways;
  }
  set_spread(g, std::move(values), nodes.size());
  return g;
}

Flag outlier_flag(const FleetGroup& g, const FleetPair& p, const FleetPosition& pos,
                  double tolerance) {
  const std::string unit = " " + fleet_unit(g.method, g.lower_is_better);
  // The precision the verdicts' own messages give (279.0 GB/s beside 278.97 for one case read as
  // two figures; an audit), and a collective over a node's GPUs counted by nodes, not "pairs".
  const int d = g.lower_is_better ? 2 : 1;
  const std::string members = p.src_pci == "all"
                                  ? count_of(g.nodes, "node")
                                  : count_of(g.pairs, "pair") + " on " + count_of(g.nodes, "node");
  Flag f;
  f.code = "fleet-outlier";
  f.method = g.method;
  // A staged copy never crosses the pair's link: the outlier named NV18 beside a host-memory
  // figure, and a technician would have worked on the NVLink (an audit).
  const std::string route = g.through_host ? " " + host_path_suspect(p.link_label) : "";
  // Both directions' sum, as the run's own flags say it (690 GB/s read as one direction).
  const std::string where = g.both_ways && p.src_pci != "all" && !p.one_gpu
                                ? "both ways together between " + p.src_pci + " and " + p.dst_pci
                                : p.name();
  f.message = g.method + " " + where + route + " " + format_fixed(pos.value, d) + unit + " at " +
              format_size(g.bytes) + " is " + format_fixed(pos.ratio, 3) + " of the fleet median " +
              format_fixed(g.median, d) + unit + " (" + g.gpu_model + ", " + g.link + ", " +
              members + "; tolerance " + format_fixed(100 * tolerance, 0) + "%)";
  f.evidence = {{"value", pos.value},     {"fleet_median", g.median},
                {"ratio", pos.ratio},     {"tolerance", tolerance},
                {"bytes", g.bytes},       {"gpu_model", g.gpu_model},
                {"link", g.link},         {"group_pairs", g.pairs},
                {"group_nodes", g.nodes}, {"fleet_p25", g.p25},
                {"fleet_p75", g.p75},     {"unit", fleet_unit(g.method, g.lower_is_better)}};
  return f;
}

void place_members(const FleetGroup& g, std::vector<Member>& members, double tolerance) {
  for (auto& m : members) {
    if (!m.at_size) {
      if (m.pair->left_out.count({g.method, g.bytes})) {
        if (!m.pair->unsettled()) {
          m.node->unplaced_at_size[g.bytes].add(g.method);
        }
        continue;
      }
      m.node->short_of_size[g.bytes].add(g.method);
      continue;
    }
    FleetPosition pos{g.method,          g.bytes, m.at_size->value, g.median, 0,
                      g.lower_is_better, false,   g.judged};
    if (g.median > 0) pos.ratio = pos.value / g.median;
    const double worse = g.lower_is_better ? pos.ratio - 1 : 1 - pos.ratio;
    // Under the ratio's last digit shown is no outlier, whatever the tolerance: at 0, identical
    // nodes were flagged "1.000 of the fleet median" (an audit).
    pos.outlier = g.judged && worse > tolerance && worse >= 0.0005;
    if (pos.outlier) {
      m.pair->flags.push_back(outlier_flag(g, *m.pair, pos, tolerance));
      // The fleet flagged it: a CSV row read "outlier 1, fleet-outlier, pair_state not-counted"
      // (its run had no bar for it) or "pass" (an audit).
      if (m.pair->state == "pass" || m.pair->state == "not-counted") m.pair->state = "flagged";
    }
    m.pair->positions.push_back(pos);
  }
}

}  // namespace

void set_spread(FleetGroup& g, std::vector<double> values, std::size_t nodes) {
  std::sort(values.begin(), values.end());
  g.pairs = static_cast<int>(values.size());
  g.nodes = static_cast<int>(nodes);
  g.median = g.p25 = g.p75 = g.min = g.max = 0;
  if (!values.empty()) {
    g.min = values.front();
    g.max = values.back();
    g.median = quantile(values, 0.5);
    g.p25 = quantile(values, 0.25);
    g.p75 = quantile(values, 0.75);
  }
  g.judged = g.pairs >= kFleetMinGroupPairs && g.median > 0;
}

std::vector<FleetGroup> place_in_fleet(std::vector<FleetNode>& nodes, double tolerance) {
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<Member>> by_group;
  for (auto& n : nodes) {
    for (auto& p : n.pairs) {
      std::set<std::string> methods;
      for (const auto& x : p.measurements) methods.insert(x.method);
      for (const auto& m : methods) by_group[{m, p.gpu_model, p.group_of(m)}].push_back({&n, &p});
    }
  }
  std::vector<FleetGroup> groups;
  for (auto& [key, members] : by_group) {
    const std::string& method = std::get<0>(key);
    const FleetGroup g = summarize_group(method, group_size(method, members), members);
    place_members(g, members, tolerance);
    groups.push_back(g);
  }
  return groups;
}

}  // namespace fleet_detail
}  // namespace peerbench
