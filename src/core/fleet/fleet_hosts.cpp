// One node per host: the --hosts list read and held to the nodes found, a host's several runs
// (the latest counts), and nodes whose results name the same GPUs.
#include <algorithm>
#include <set>
#include <string_view>
#include <tuple>

#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/fleet/fleet_assembly.h"
#include "core/platform/input_file.h"

namespace peerbench {
namespace {

// Whether two files hold the same bytes (a run collected twice, a backup folder beside it).
bool same_bytes(const std::string& a, const std::string& b) {
  try {
    return read_input_file(a, InputKind::kResults) == read_input_file(b, InputKind::kResults);
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

std::vector<std::string> load_host_list(const std::string& path) {
  const std::string text = read_input_file(path, InputKind::kHosts);
  const std::string_view bom = "\xEF\xBB\xBF";  // editors on Windows start files with it
  std::size_t pos = text.compare(0, bom.size(), bom) == 0 ? bom.size() : 0;
  std::vector<std::string> hosts;
  for (std::size_t line = 1; pos < text.size(); ++line) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view name(text.data() + pos, end - pos);
    name = name.substr(0, name.find('#'));
    pos = end + 1;
    const auto b = name.find_first_not_of(" \t\r");
    if (b == std::string_view::npos) continue;
    name = name.substr(b, name.find_last_not_of(" \t\r") + 1 - b);
    const auto refuse = [&](const std::string& why) {
      throw InputError(quoted_path(path), "",
                       "--hosts file, line " + std::to_string(line) + ": " + why);
    };
    if (name.size() > kMaxHostNameBytes) {
      refuse("a host name of " + std::to_string(name.size()) + " bytes; at most " +
             std::to_string(kMaxHostNameBytes));
    }
    if (std::any_of(name.begin(), name.end(),
                    [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; })) {
      refuse("'" + sanitize_for_terminal(name) + "' holds control characters");
    }
    // "n0 n1" was read as one host that no run names: two hosts on a line, or a typo.
    if (name.find_first_of(" \t,") != std::string_view::npos)
      refuse("'" + std::string(name) + "' holds a space or comma; one host name per line");
    if (hosts.size() == kMaxHosts) {
      refuse("more than " + std::to_string(kMaxHosts) + " host names; a fleet reads " +
             std::to_string(kMaxHosts) +
             " at most: split it, a --hosts file and a fleet for each part");
    }
    hosts.emplace_back(name);
  }
  if (hosts.empty()) {
    throw InputError(quoted_path(path), "",
                     "the --hosts file names no host (empty, or only comments)");
  }
  return hosts;
}

namespace fleet_detail {

// One node per host: the later run counts; the earlier ones are kept in `earlier`.
std::vector<FleetNode> resolve_duplicates(
    std::vector<FleetNode> nodes, std::vector<std::string>& notes,
    std::map<std::string, std::vector<FleetReport::EarlierRun>>& earlier) {
  std::stable_sort(nodes.begin(), nodes.end(), [](const FleetNode& a, const FleetNode& b) {
    return std::tie(a.host, a.started_at) < std::tie(b.host, b.started_at);
  });
  std::vector<FleetNode> out;
  for (auto& n : nodes) {
    if (!out.empty() && out.back().host == n.host && out.back().started_at == n.started_at &&
        !n.started_at.empty() && same_bytes(out.back().file, n.file)) {
      notes.push_back(n.host + ": " + out.back().file + " and " + n.file +
                      " hold the same run (a copy); counted once");
      continue;
    }
    if (!out.empty() && out.back().host == n.host && out.back().started_at == n.started_at &&
        !n.started_at.empty()) {
      // Which is later cannot be told: the file order would decide, and a flagged run could hide
      // behind a healthy one of the same start time (an audit). Neither is taken as the node's,
      // nor do its figures join the fleet's groups (the file named first had been judged).
      out.back().pairs.clear();
      out.back().problems.push_back("runs in " + out.back().file + " and " + n.file +
                                    " both started at " + n.started_at +
                                    ": which is later cannot be told; keep one");
      notes.push_back(n.host + ": results in " + out.back().file + " and " + n.file +
                      " started at the same time; the node is incomplete until one is kept");
      continue;
    }
    if (!out.empty() && out.back().host == n.host) {
      // Named once, with the run that counts, in the report's section of earlier runs: a note per
      // step ("the later run (B) counts", then C) read as B counting (an audit).
      const FleetNode& e = out.back();
      earlier[n.host].push_back(
          {e.file, e.flag_count(),
           !e.problems.empty() || std::any_of(e.pairs.begin(), e.pairs.end(),
                                              [](const FleetPair& p) { return p.unsettled(); }),
           node_cases(e)});
      out.back() = std::move(n);
    } else {
      out.push_back(std::move(n));
    }
  }
  return out;
}

void add_expected_hosts(std::vector<FleetNode>& nodes, const std::vector<std::string>& hosts,
                        std::vector<std::string>& notes) {
  const std::set<std::string> expected(hosts.begin(), hosts.end());
  std::set<std::string> present;
  for (const auto& n : nodes) {
    present.insert(n.host);
    if (!expected.count(n.host))
      notes.push_back(n.host + " (" + n.file + ") is not in the --hosts list; counted anyway");
  }
  for (const auto& h : expected) {
    if (present.count(h)) continue;
    FleetNode n;
    n.host = h;
    n.state = NodeState::kMissing;
    n.problems.push_back("expected (--hosts) but no results file names it");
    nodes.push_back(std::move(n));
  }
}

// One GPU is in one node: nodes that name the same UUID are one machine's results under several
// host names (a copied file, a misnamed host, PEERBENCH_HOST_ID). Three copies of one run had
// passed as three nodes (an audit). A note, not a failure: a fleet simulated on one machine with
// PEERBENCH_HOST_ID is a way to test the fleet's own workings.
int note_shared_gpus(std::vector<FleetNode>& nodes, std::vector<std::string>& notes) {
  std::map<std::string, std::set<std::string>> hosts_of;
  for (const auto& n : nodes)
    for (const auto& u : n.gpu_uuids) hosts_of[u].insert(n.host);
  std::map<std::set<std::string>, std::vector<std::string>> uuids_of;
  for (const auto& [uuid, hosts] : hosts_of)
    if (hosts.size() > 1) uuids_of[hosts].push_back(uuid);
  std::set<std::string> sharing;
  for (const auto& [hosts, uuids] : uuids_of) {
    sharing.insert(hosts.begin(), hosts.end());
    for (auto& n : nodes) {
      if (!hosts.count(n.host)) continue;
      for (const auto& h : hosts)
        if (h != n.host) n.shares_gpus_with.insert(h);
    }
    notes.push_back(some_of({hosts.begin(), hosts.end()}) + " name the same GPU" +
                    (uuids.size() > 1 ? "s" : "") + " (" + some_of(uuids) +
                    "): one GPU is in one node, so these are one machine's results under several "
                    "host names (a copied file, a misnamed host, or PEERBENCH_HOST_ID), not "
                    "independent nodes");
  }
  return static_cast<int>(sharing.size());
}

}  // namespace fleet_detail
}  // namespace peerbench
