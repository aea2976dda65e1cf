#include "core/present/compare.h"

#include <algorithm>
#include <set>

#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/judge/verdict.h"
#include "core/model/flag_table.h"
#include "core/present/compare_differences.h"
#include "core/present/compare_matching.h"
#include "core/present/report.h"

namespace peerbench {

using compare_detail::card_uuids;

namespace {

// B's burn-in findings in words: its burn-in flags, the later cycles under a bar, a cut short.
std::vector<std::string> burn_in_findings_of(const RunDocument& b,
                                             const std::vector<PairVerdict>& vs) {
  std::vector<std::string> out;
  if (!b.burn_in) return out;
  if (const std::string s = burn_in_cut_short(b); !s.empty()) out.push_back(s);
  std::set<std::string> seen;  // a GPU's own flag stands on each of its pairs
  for (const auto& v : vs) {
    for (const auto& f : v.flags) {
      const FlagInfo* info = find_flag(f.code);
      const bool burn_in = (info && info->family == FlagFamily::kBurnIn) ||
                           (f.evidence.is_object() && (f.evidence.contains("burn_in") ||
                                                       f.evidence.contains("burn_in_cycles")));
      if (burn_in && seen.insert(f.code + ": " + f.message).second)
        out.push_back(f.code + ": " + f.message);
    }
  }
  return out;
}

// Refuses runs that cannot be compared case by case: another node shape, or (under --match
// uuid) no card in common.
void check_alike(const RunDocument& a, const std::string& a_name, const RunDocument& b,
                 const std::string& b_name, const CompareOptions& o) {
  // GPUs, not ranks: two ranks on one GPU against two GPUs is another node shape.
  const auto gpus = [](const RunDocument& d) {
    std::set<std::string> cards;
    for (const auto& r : d.system.ranks)
      cards.insert(!r.gpu.uuid.empty()         ? r.gpu.uuid
                   : !r.gpu.pci_bus_id.empty() ? r.host + "/" + r.gpu.pci_bus_id
                                               : r.host + "/#" + std::to_string(r.gpu.index));
    return cards.size();
  };
  if (gpus(a) != gpus(b)) {
    throw InputError(b_name, "system.ranks",
                     "runs are unlike: " + a_name + " drives " + std::to_string(gpus(a)) +
                         " GPUs, " + b_name + " drives " + std::to_string(gpus(b)) +
                         " (ranks that share a GPU count once); compare runs of the same node "
                         "shape");
  }
  if (a.system.ranks.size() != b.system.ranks.size()) {
    throw InputError(b_name, "system.ranks",
                     "runs are unlike: " + a_name + " has " +
                         std::to_string(a.system.ranks.size()) + " GPUs, " + b_name + " has " +
                         std::to_string(b.system.ranks.size()) +
                         "; compare runs of the same node shape");
  }
  // --match uuid pairs cards, not slots: two nodes' runs share none, and every case read "lost
  // in B" (exit 1) though B measured it all (a hostile audit).
  if (o.match == "uuid") {
    const auto in_a = card_uuids(a), in_b = card_uuids(b);
    // A GPU without a UUID falls back to its position; against a run whose GPUs all have one,
    // nothing matches, and every case read "lost" (an audit).
    if (in_a.count("") != in_b.count("")) {
      const std::string& without = in_a.count("") ? a_name : b_name;
      throw InputError(without, "system.ranks",
                       "--match uuid: " + without +
                           " recorded no UUID for some GPUs, the other run for all; compare "
                           "them by position with --match pci or index");
    }
    const bool any = std::any_of(b.system.ranks.begin(), b.system.ranks.end(),
                                 [&](const RankInfo& r) { return in_a.count(r.gpu.uuid) > 0; });
    if (!any && !in_a.count("")) {
      throw InputError(b_name, "system.ranks",
                       "--match uuid: no GPU of " + a_name + " is in " + b_name +
                           " (their UUIDs differ): other cards; compare them by position "
                           "with --match pci or index");
    }
  }
}

}  // namespace

Comparison compare_runs(const RunDocument& a, const std::string& a_name, const RunDocument& b,
                        const std::string& b_name, const CompareOptions& o) {
  check_alike(a, a_name, b, b_name, o);
  Comparison c;
  c.versions_a = run_versions(a);
  c.versions_b = run_versions(b);
  c.run_hosts_a = join(a.system.hosts, " ");
  c.run_hosts_b = join(b.system.hosts, " ");
  compare_detail::what_differs(a, b, c);
  // Matched by card, not by position, where every GPU has a UUID; one without falls back to its
  // position, and the headline says so still (an audit: UUID-less files, no word).
  if (o.match == "uuid" && !card_uuids(a).count("") && !card_uuids(b).count(""))
    c.other_hosts.clear();
  c.verdicts_a = compute_verdicts(a, {});
  c.verdicts_b = compute_verdicts(b, {});
  c.burn_in_in_b = burn_in_findings_of(b, c.verdicts_b);
  compare_detail::match_results(a, b, o, c);
  if (c.rows.empty()) {
    throw InputError(b_name, "results",
                     "runs are unlike: no method, GPU pair and size measured in both " + a_name +
                         " and " + b_name);
  }
  return c;
}

bool waived_by_fail_on(const Comparison& c, const CompareOptions& o) {
  CompareOptions by_default = o;
  by_default.fail_on = CompareOptions{}.fail_on;
  return comparison_exit_code(c, o) == kExitOk && comparison_exit_code(c, by_default) != kExitOk;
}

int comparison_exit_code(const Comparison& c, const CompareOptions& o) {
  if (o.fail_on == "none") return kExitOk;
  const std::size_t lost =
      c.lost_in_b.size() + static_cast<std::size_t>(c.data_errors) + c.burn_in_in_b.size();
  if (o.fail_on == "any") return (c.regressions + c.improvements + lost) ? kExitFlagged : kExitOk;
  return (c.regressions + lost) ? kExitFlagged : kExitOk;
}

}  // namespace peerbench
