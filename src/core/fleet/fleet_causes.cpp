// The fleet's causes: nodes grouped by the cause of their flags ("3 nodes: ACS enabled on their
// PCIe switches"), each group with a Next line (fleet_verdict_words.h).
#include <algorithm>
#include <map>

#include "core/base/text.h"
#include "core/fleet/fleet_assembly.h"
#include "core/fleet/fleet_verdict_words.h"
#include "core/judge/cause_table.h"

namespace peerbench::fleet_detail {

namespace {

struct CauseGroup {
  std::vector<std::string> hosts;
  std::vector<std::string> nexts;  // each node's own Next line, in host order
};

}  // namespace

std::vector<std::string> cause_lines(const FleetReport& r) {
  std::vector<std::string> order;  // cause codes, as first met (nodes are worst first)
  std::map<std::string, CauseGroup> by_code;
  for (const auto& n : r.nodes) {
    for (const auto& c : n.causes) {
      const CauseInfo* info = find_cause(c.code);
      if (info && info->kind == CauseKind::kContext) continue;  // said in each node's report
      auto& g = by_code[c.code];
      if (g.hosts.empty()) order.push_back(c.code);
      if (!g.hosts.empty() && g.hosts.back() == n.host) continue;  // one node, several causes
      g.hosts.push_back(n.host);
      g.nexts.push_back(c.next);
    }
  }
  std::stable_sort(order.begin(), order.end(), [&](const std::string& a, const std::string& b) {
    return by_code[a].hosts.size() > by_code[b].hosts.size();
  });
  std::vector<std::string> out;
  for (const auto& code : order) {
    const CauseGroup& g = by_code[code];
    const CauseInfo* info = find_cause(code);
    const std::size_t n = g.hosts.size();
    out.push_back(std::to_string(n) + (n == 1 ? " node: " : " nodes: ") +
                  (info ? info->group : code) + " (" + some_of(g.hosts) + ")");
    const bool same = std::all_of(g.nexts.begin(), g.nexts.end(),
                                  [&](const std::string& x) { return x == g.nexts.front(); });
    out.push_back(
        g.nexts.front() +
        (same || n == 1 ? "" : " (" + g.hosts.front() + "; each node's report names its own)"));
  }
  return out;
}

}  // namespace peerbench::fleet_detail
