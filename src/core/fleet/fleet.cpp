#include "core/fleet/fleet.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/fleet/fleet_adapter.h"
#include "core/fleet/fleet_assembly.h"
#include "core/platform/input_file.h"

namespace peerbench {

std::string to_string(NodeState s) {
  switch (s) {
    case NodeState::kFlagged:
      return "flagged";
    case NodeState::kIncomplete:
      return "incomplete";
    case NodeState::kMissing:
      return "missing";
    case NodeState::kPass:
      return "pass";
  }
  return "pass";
}

int FleetNode::flag_count() const {
  int n = 0;
  for (const auto& p : pairs) n += static_cast<int>(p.flags.size());
  return n;
}

FlagKind flag_kind(const std::string& code) {
  const FlagInfo* f = find_flag(code);
  return f ? f->kind : FlagKind::kFigure;  // a code this version does not know: a figure's
}

std::string fleet_unit(const std::string& method, bool lower_is_better) {
  if (lower_is_better) return "us";
  return method.rfind("nccl-", 0) == 0 ? "busbw GB/s" : "GB/s";
}

std::string FleetPair::note() const {
  std::vector<std::string> parts;
  for (const auto& [method, reason] : note_by_method) parts.push_back(method + ": " + reason);
  return join(parts, "; ");
}

bool FleetNode::has_flag_of(FlagKind k) const {
  for (const auto& p : pairs) {
    for (const auto& f : p.flags) {
      if (flag_kind(f.code) == k) return true;
    }
  }
  return false;
}

int FleetReport::count(NodeState s) const {
  return static_cast<int>(
      std::count_if(nodes.begin(), nodes.end(), [s](const FleetNode& n) { return n.state == s; }));
}

std::set<std::string> node_cases(const FleetNode& n) {
  std::set<std::string> cases;
  for (const auto& p : n.pairs) {
    for (const auto& m : p.measurements)
      cases.insert(m.method + " " + p.src_pci + "->" + p.dst_pci + " " + std::to_string(m.bytes) +
                   " x" + std::to_string(p.ranks));
  }
  return cases;
}

namespace fleet_detail {

// "a, b, c and 4 more"
std::string some_of(const std::vector<std::string>& names, std::size_t shown) {
  if (names.size() <= shown) return join(names, ", ");
  return join(std::vector<std::string>(names.begin(), names.begin() + shown), ", ") + " and " +
         std::to_string(names.size() - shown) + " more";
}

}  // namespace fleet_detail

namespace {

using fleet_detail::some_of;

void set_state(FleetNode& n) {
  n.worst_ratio = 1;
  bool incomplete = !n.problems.empty();
  for (const auto& p : n.pairs) {
    incomplete = incomplete || p.unsettled();
    if (p.known_good_ratio > 0) {
      n.worst_ratio = std::min(n.worst_ratio, p.known_good_ratio);
      n.has_ratio = true;
    }
    for (const auto& pos : p.positions) {
      if (!pos.group_judged) continue;  // a group too small to judge gives no ratio (review)
      n.worst_ratio = std::min(n.worst_ratio, pos.goodness());
      n.has_ratio = true;
    }
  }
  if (n.state == NodeState::kMissing) return;
  // A node none of whose pairs was judged, or placed in a group large enough to judge it (two
  // ranks on one GPU: not a link; a -z node alone, launch-bound throughout), has shown nothing
  // about its links; it passed before (audits: a one-GPU node, a lone -z node).
  const auto judged_beside_fleet = [](const FleetPair& p) {
    return std::any_of(p.positions.begin(), p.positions.end(),
                       [](const FleetPosition& x) { return x.group_judged; });
  };
  const bool shown = std::any_of(n.pairs.begin(), n.pairs.end(), [&](const FleetPair& p) {
    return p.state != "not-counted" || judged_beside_fleet(p);
  });
  const bool unreadable = n.pairs.empty() && !n.problems.empty();  // its reason says it all
  if (!shown && !n.file.empty() && !unreadable) {
    const bool placed = std::any_of(n.pairs.begin(), n.pairs.end(),
                                    [](const FleetPair& p) { return !p.positions.empty(); });
    n.problems.push_back("nothing on this node was judged or set beside the fleet (" +
                         std::to_string(n.pairs.size()) +
                         " pairs, each not a link, not judged or not applicable" +
                         (placed ? "; its figures' fleet groups hold fewer than " +
                                       std::to_string(kFleetMinGroupPairs) + " pairs"
                                 : std::string()) +
                         ")");
    incomplete = true;
  }
  if (n.flag_count() > 0) {
    n.state = NodeState::kFlagged;
  } else {
    n.state = incomplete ? NodeState::kIncomplete : NodeState::kPass;
  }
}

// The nodes a given site baseline judged no figure of, in words.
std::string baseline_unused_text(const FleetReport& r, const FleetExpectations& e) {
  std::vector<std::string> hosts;
  int read = 0;
  for (const auto& n : r.nodes) {
    if (!n.baseline_judged) continue;
    ++read;
    if (!*n.baseline_judged) hosts.push_back(n.host);
  }
  if (hosts.empty()) return "";
  return "the site baseline (" + e.source + ") judged no figure on " +
         std::to_string(hosts.size()) + " of " + std::to_string(read) + " nodes (" +
         some_of(hosts) + "): its entries are for " + baseline_scope(e.verdicts.baseline);
}

}  // namespace

using fleet_detail::add_coverage_problems;
using fleet_detail::add_expected_hosts;
using fleet_detail::note_shared_gpus;
using fleet_detail::place_in_fleet;
using fleet_detail::read_result_files;
using fleet_detail::resolve_duplicates;
using fleet_detail::say_sizes_not_measured;
using fleet_detail::version_spreads;

FleetReport assemble_fleet(std::vector<FleetNode> nodes, const std::vector<std::string>& hosts,
                           bool hosts_given, double tolerance) {
  FleetReport r;
  r.outlier_tolerance = tolerance;
  r.hosts_given = hosts_given;
  r.nodes = resolve_duplicates(std::move(nodes), r.notes, r.earlier_runs);
  if (hosts_given) add_expected_hosts(r.nodes, hosts, r.notes);
  r.nodes_sharing_gpus = note_shared_gpus(r.nodes, r.notes);
  r.groups = place_in_fleet(r.nodes, tolerance);
  place_short_members(r);
  for (auto& n : r.nodes) say_sizes_not_measured(n);
  add_coverage_problems(r.nodes);
  r.versions = version_spreads(r.nodes);
  r.version_gaps = version_gaps(r.nodes, r.groups, r.versions, tolerance);
  for (auto& n : r.nodes) set_state(n);
  // Flagged nodes with evidence against their hardware first: wrong data outranks a slow figure
  // (a data-corruption node was listed third, after a slow and a misconfigured one; an audit).
  std::stable_sort(r.nodes.begin(), r.nodes.end(), [](const FleetNode& a, const FleetNode& b) {
    const bool ha = !a.has_flag_of(FlagKind::kHardware), hb = !b.has_flag_of(FlagKind::kHardware);
    return std::tie(a.state, ha, a.worst_ratio, a.host) <
           std::tie(b.state, hb, b.worst_ratio, b.host);
  });
  return r;
}

FleetReport build_fleet(const FleetOptions& o, const std::vector<MethodInfo>& catalog) {
  const FleetExpectations e = load_fleet_expectations(o.expect_path, catalog);
  const auto hosts =
      o.hosts_file.empty() ? std::vector<std::string>{} : load_host_list(o.hosts_file);
  const ResultFiles found = collect_result_files(o.paths);
  if (found.files.empty() && found.unreadable.empty()) {
    throw UsageError("fleet: no *.json results files in the paths given");
  }
  std::vector<std::string> skipped;
  std::vector<FleetNode> nodes = read_result_files(found, e, skipped);
  // Only files that are not runs: nothing to pass (it read "PASS: all 0 nodes pass"; a review).
  if (nodes.empty()) {
    throw UsageError("fleet: no runs among the " + std::to_string(found.files.size()) +
                     " *.json files in the paths given (" + skipped.front() + ")");
  }
  FleetReport r =
      assemble_fleet(std::move(nodes), hosts, !o.hosts_file.empty(), e.outlier_tolerance);
  r.notes.insert(r.notes.end(), skipped.begin(), skipped.end());
  r.expectations_source = e.source;
  r.baseline_unused = baseline_unused_text(r, e);
  r.inputs = found.files;
  for (const auto* f : {&o.hosts_file, &o.expect_path}) {
    if (!f->empty()) r.inputs.push_back(*f);
  }
  return r;
}

int fleet_exit_code(const FleetReport& r) {
  return r.count(NodeState::kPass) == static_cast<int>(r.nodes.size()) ? kExitOk : kExitFlagged;
}

}  // namespace peerbench
