// Members of a fleet group with no figure at the group's size: a run that stopped at 64 MiB, or
// whose 1 GiB figure was not the link's. The fleet judges each group at one size, so such a pair
// had no place in it and vanished from the chart, the CSV and OpenMetrics while the verdict
// failed its node (an audit). Here each is set beside the fleet at the largest size it has: every
// member's figure at that size, its median and spread, and its own ratio to that median. Nothing
// is judged here: the node is incomplete for the size it lacks, and says so.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "core/fleet/fleet.h"
#include "core/fleet/fleet_assembly.h"

namespace peerbench {
namespace {

using ShortGroupKey = std::tuple<std::string, std::string, std::string>;  // method, GPU model, link
using Members = std::vector<std::pair<const FleetNode*, FleetPair*>>;

const Measurement* measured_at(const FleetPair& p, const std::string& method, std::uint64_t bytes) {
  for (const auto& m : p.measurements)
    if (m.method == method && m.bytes == bytes) return &m;
  return nullptr;
}

// The largest size under `bytes` the pair measured `method` at; null where none.
const Measurement* largest_under(const FleetPair& p, const std::string& method,
                                 std::uint64_t bytes) {
  const Measurement* best = nullptr;
  for (const auto& m : p.measurements) {
    if (m.method == method && m.bytes < bytes && (!best || m.bytes > best->bytes)) best = &m;
  }
  return best;
}

bool placed(const FleetPair& p, const std::string& method) {
  return std::any_of(p.positions.begin(), p.positions.end(),
                     [&](const FleetPosition& x) { return x.method == method; });
}

// The fleet's figures of `of`'s members at `bytes`: every member that measured that size.
FleetGroup group_at(const FleetGroup& of, std::uint64_t bytes, const Members& members) {
  FleetGroup g = of;
  g.bytes = bytes;
  g.fleet_bytes = of.bytes;
  std::vector<double> values;
  std::set<std::string> nodes;
  for (const auto& [n, p] : members) {
    const Measurement* m = measured_at(*p, of.method, bytes);
    if (!m) continue;
    values.push_back(m->value);
    nodes.insert(n->host);
    g.lower_is_better = m->lower_is_better;
  }
  fleet_detail::set_spread(g, std::move(values), nodes.size());
  return g;
}

}  // namespace

void place_short_members(FleetReport& r) {
  std::map<ShortGroupKey, Members> members;
  for (auto& n : r.nodes) {
    for (auto& p : n.pairs) {
      std::set<std::string> methods;
      for (const auto& m : p.measurements) methods.insert(m.method);
      for (const auto& m : methods) members[{m, p.gpu_model, p.group_of(m)}].push_back({&n, &p});
    }
  }
  std::vector<FleetGroup> short_groups;
  for (const auto& g : r.groups) {
    const auto& list = members[{g.method, g.gpu_model, g.link}];
    std::map<std::uint64_t, std::vector<FleetPair*>> short_at;
    for (const auto& [n, p] : list) {
      if (placed(*p, g.method)) continue;
      if (const Measurement* m = largest_under(*p, g.method, g.bytes))
        short_at[m->bytes].push_back(p);
    }
    for (const auto& [bytes, pairs] : short_at) {
      const FleetGroup at = group_at(g, bytes, list);
      for (FleetPair* p : pairs) {
        const Measurement* m = measured_at(*p, g.method, bytes);
        FleetPosition pos{g.method,           bytes, m->value, at.median, 0,
                          m->lower_is_better, false, at.judged};
        if (at.median > 0) pos.ratio = pos.value / at.median;
        pos.fleet_bytes = g.bytes;
        p->short_positions.push_back(pos);
      }
      short_groups.push_back(at);
    }
  }
  r.short_groups = std::move(short_groups);
}

}  // namespace peerbench
