// The fleet's verdict in words: the verdict line with what it leaves unsaid (earlier runs, the
// kinds of incomplete nodes, version gaps), and each node's cause: its flags by kind, or why it is
// incomplete and what to do.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/fleet/fleet_verdict_words.h"
#include "core/model/gpu_activity.h"

namespace peerbench::fleet_detail {
namespace {

// "; 6 earlier runs of 1 host not counted (...)": said in the verdict itself, since a folder of
// one host's history otherwise reads as a fleet that passed.
std::string earlier_runs_clause(const FleetReport& r) {
  if (r.earlier_runs.empty()) return "";
  std::size_t runs = 0, failing = 0;
  for (const auto& [host, earlier] : r.earlier_runs) {
    runs += earlier.size();
    for (const auto& e : earlier) failing += e.flags > 0 || e.unsettled;
  }
  const std::size_t hosts = r.earlier_runs.size();
  return "; " + std::to_string(runs) + " earlier run" + (runs == 1 ? "" : "s") + " of " +
         std::to_string(hosts) + " host" + (hosts == 1 ? "" : "s") + " not counted" +
         (failing ? " (" + std::to_string(failing) + " of them flagged or incomplete)" : "") +
         ": a fleet counts each host's latest run (a host's history: peerbench compare A.json "
         "B.json C.json ...)";
}

// Whether a node's unsettled pairs ran under clocks held by the hardware (hw-thermal,
// hw-slowdown, power-brake: a cooling or power fault, not another job), not by software.
bool held_by_hardware(const FleetNode& n) {
  for (const auto& p : n.pairs) {
    if (p.state != "throttled" && p.state != "contended") continue;
    for (const auto& r : p.throttle_reasons) {
      if (peerbench::held_by_hardware(r)) return true;
    }
  }
  return false;
}

// Of the incomplete nodes, those held back by another job, held clocks or spread samples: to be
// measured again when idle, which is not the action a cut-short run calls for (audit).
std::string incomplete_kinds(const FleetReport& r) {
  std::map<std::string, int> by;
  for (const auto& n : r.nodes) {
    if (n.state != NodeState::kIncomplete) continue;
    std::set<std::string> states;
    for (const auto& p : n.pairs) states.insert(p.state);
    // Clocks held by the hardware first: beside another job too, it is still a fault (a review).
    if (held_by_hardware(n)) {
      ++by["hardware"];
      continue;
    }
    for (const char* s : {"contended", "throttled", "noisy"}) {
      if (states.count(s)) {
        ++by[s];
        break;
      }
    }
  }
  std::vector<std::string> parts;
  if (by.count("contended"))
    parts.push_back(std::to_string(by["contended"]) + " beside another job");
  if (by.count("throttled")) parts.push_back(std::to_string(by["throttled"]) + " with clocks held");
  if (by.count("noisy")) parts.push_back(std::to_string(by["noisy"]) + " noisy");
  std::string out;
  if (!parts.empty()) out = join(parts, ", ") + ": measure again when idle";
  // A thermal or power slowdown on an idle node is a fault to look at, not a busy node (audit).
  if (by.count("hardware"))
    out += (out.empty() ? "" : "; ") + std::to_string(by["hardware"]) +
           " with clocks held by the hardware: check cooling and power";
  return out.empty() ? "" : " (" + out + ")";
}

// The worst version gap, on the verdict line: the nodes pass, but one version is slower.
std::string version_gap_clause(const FleetReport& r) {
  if (r.version_gaps.empty()) return "";
  const auto more = r.version_gaps.size() - 1;
  return "; versions differ in speed: " + r.version_gaps.front().text() +
         (more ? " (and " + count_of(static_cast<long long>(more), "more group") + ")" : "") +
         ": see Versions";
}

// Flag codes by count, hardware evidence first: "data-errors x1; off-baseline x20 (...)".
std::string flag_codes_text(const FleetNode& n) {
  std::map<std::string, int> codes;
  for (const auto& p : n.pairs) {
    for (const auto& f : p.flags) codes[f.code]++;
  }
  std::string out;
  for (const FlagKind kind : {FlagKind::kHardware, FlagKind::kPath, FlagKind::kFigure}) {
    std::string these;
    for (const auto& [c, k] : codes) {
      if (flag_kind(c) == kind) these += (these.empty() ? "" : ", ") + c + " x" + std::to_string(k);
    }
    if (!these.empty()) out += (out.empty() ? "" : "; ") + these + " (" + kind_words(kind) + ")";
  }
  return out;
}

// Why an incomplete node is, and what to do: the first of another job, held clocks, spread
// samples, a problem of the run.
std::string incomplete_cause(const FleetNode& n) {
  std::set<std::string> states;
  for (const auto& p : n.pairs) states.insert(p.state);
  if (held_by_hardware(n)) {
    return std::string("clocks held by the hardware (thermal or power)") +
           (states.count("contended") ? ", beside another job too" : "") +
           ": check the node's cooling and power, then measure again";
  }
  if (states.count("contended")) return "ran beside another job; measure again when idle";
  if (states.count("throttled")) return "clocks held; measure again when idle";
  if (states.count("noisy")) return "samples spread too far to judge; measure again";
  return n.problems.empty() ? "not every case was measured" : n.problems.front();
}

std::string node_cause(const FleetNode& n) {
  if (n.state == NodeState::kMissing)
    return "missing: expected (--hosts), no results file names it";
  if (n.state == NodeState::kFlagged) return "flagged: " + flag_codes_text(n);
  return "incomplete: " + incomplete_cause(n);
}

}  // namespace

std::string verdict_line(const FleetReport& r) {
  const int n = static_cast<int>(r.nodes.size());
  const std::string unused =
      (r.baseline_unused.empty() ? "" : "; " + r.baseline_unused) + version_gap_clause(r) +
      (r.nodes_sharing_gpus ? "; " + count_of(r.nodes_sharing_gpus, "node") +
                                  " name GPUs another names too (same UUIDs): not independent, "
                                  "see Notes"
                            : std::string());
  if (fleet_exit_code(r) == kExitOk)
    return (n == 1 ? std::string("PASS: 1 node passes")
                   : "PASS: all " + count_of(n, "node") + " pass") +
           earlier_runs_clause(r) + unused;
  return "FAIL: " + std::to_string(r.count(NodeState::kFlagged)) + " flagged, " +
         std::to_string(r.count(NodeState::kIncomplete)) + " incomplete" + incomplete_kinds(r) +
         ", " + std::to_string(r.count(NodeState::kMissing)) + " missing, " +
         std::to_string(r.count(NodeState::kPass)) + " pass, of " + count_of(n, "node") +
         earlier_runs_clause(r) + unused;
}

std::string flag_summary(const FleetNode& n) {
  std::map<std::string, int> codes;
  for (const auto& p : n.pairs) {
    for (const auto& f : p.flags) codes[f.code]++;
  }
  std::string s;
  for (const auto& [c, k] : codes) s += (s.empty() ? "" : ", ") + c + " x" + std::to_string(k);
  if (!n.problems.empty()) s += (s.empty() ? "" : ", ") + n.problems.front();
  // Beside another job or under held clocks there is no flag and no problem: the cell was empty.
  if (s.empty() && n.state == NodeState::kIncomplete) s = incomplete_cause(n);
  return s;
}

// One line per node that does not pass, in the table's order, under the verdict (an audit: the
// first screen named no node; they sat 2,000 px down).
constexpr std::size_t kDigestNodes = 10;
std::vector<std::string> node_digest(const FleetReport& r) {
  std::vector<std::string> out;
  std::size_t left = 0;
  for (const auto& n : r.nodes) {
    if (n.state == NodeState::kPass) continue;
    if (out.size() < kDigestNodes) {
      out.push_back(n.host + ": " + node_cause(n));
    } else {
      ++left;
    }
  }
  if (left > 0) out.push_back("... and " + std::to_string(left) + " more not passing: see Nodes");
  return out;
}

}  // namespace peerbench::fleet_detail
