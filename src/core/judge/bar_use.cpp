// Which bars judged a run's figures, for one line above the verdicts: a site baseline that
// matches no case (another model, rank count or version) would otherwise leave a report that
// reads "pass" against it while every figure was judged by other bars.
#include <map>
#include <set>

#include "core/base/text.h"
#include "core/judge/verdict.h"
#include "core/model/sizes.h"

namespace peerbench {
namespace {

std::string listed(const std::set<std::string>& s) {
  return join(std::vector<std::string>(s.begin(), s.end()), ", ");
}

// "8 B, 64 MiB, 1 GiB", smallest first.
std::string sizes_listed(const std::set<std::uint64_t>& sizes) {
  std::vector<std::string> out;
  for (auto b : sizes) out.push_back(format_size(b));
  return join(out, ", ");
}

}  // namespace

// What an entry matches by, for the entries and for the run: model and rank count, groups (link,
// hosts, settings), sizes and versions, so a mismatch of any of them can be read off the sentence.

std::string baseline_scope(const std::vector<BaselineEntry>& entries) {
  std::set<std::string> models, groups, drivers, cudas, nccls;
  std::set<std::uint64_t> sizes;
  for (const auto& b : entries) {
    models.insert(b.model + " over " + std::to_string(b.ranks) + " ranks");
    groups.insert(b.group);
    sizes.insert(b.bytes);
    if (!b.driver.empty()) drivers.insert(b.driver);
    if (!b.cuda.empty()) cudas.insert(b.cuda);
    if (!b.nccl.empty()) nccls.insert(b.nccl);
  }
  // CUDA and NCCL too: entries split by NCCL alone read as a driver that matched (an audit).
  return listed(models) + " in groups " + listed(groups) + ", at sizes " + sizes_listed(sizes) +
         (drivers.empty() ? "" : ", driver " + listed(drivers)) +
         (cudas.empty() ? "" : ", CUDA " + listed(cudas)) +
         (nccls.empty() ? "" : ", NCCL " + listed(nccls));
}

namespace {

std::string run_scope(const RunDocument& d, const std::vector<PairVerdict>& v) {
  std::set<std::string> models, groups;
  std::set<std::uint64_t> sizes;
  for (const auto& r : d.system.ranks)
    models.insert(r.gpu.name.empty() ? "(unnamed GPU)" : r.gpu.name);
  for (const auto& p : v) {
    groups.insert(baseline_group(d, p));
    for (const auto& m : p.methods)
      if (m.bar) sizes.insert(m.bytes);
  }
  const RunVersions rv = run_versions(d);
  // The sizes too: entries at 1 GiB met figures judged at 64 MiB, and the two scopes read the
  // same (an audit).
  return listed(models) + " over " + std::to_string(d.system.ranks.size()) + " ranks in groups " +
         listed(groups) + (sizes.empty() ? "" : ", judged at " + sizes_listed(sizes)) +
         ", driver " + rv.driver + ", CUDA " + rv.cuda + ", NCCL " + rv.nccl;
}

}  // namespace

namespace {

// How a run's figures met their bars: by whose bar, and where the site baseline did not judge.
struct BarTally {
  std::map<std::string, int> by;  // bar_source -> figures
  int judged = 0, without_entry = 0, under_known_good = 0, also_at_smaller = 0;
  std::vector<std::string> no_entry;  // which: "4 had no entry" named none (an audit)
};

// "ce-write 0->1 at 1 GiB": a figure judged by no baseline entry.
std::string figure_named(const PairVerdict& p, const MethodVerdict& m) {
  const std::string pair = p.src < 0        ? "all ranks"
                           : p.src == p.dst ? "rank " + std::to_string(p.src)
                                            : std::to_string(p.src) + "->" + std::to_string(p.dst);
  return m.method + " " + pair + " at " + format_size(m.bytes);
}

BarTally tally_bars(const std::vector<PairVerdict>& v, const Expectations& e) {
  BarTally t;
  for (const auto& p : v) {
    for (const auto& m : p.methods) {
      t.also_at_smaller += m.baseline_also_at > 0;
      if (!m.bar) continue;
      ++t.judged;
      ++t.by[m.bar_source];
      // Held to the baseline at its own smaller size: an entry judged it, so not "no entry".
      if (m.bar_source != kBarSiteBar && m.bar_source != kBarSiteBaseline &&
          m.baseline_also_at == 0) {
        ++t.without_entry;
        if (t.no_entry.size() < 4) t.no_entry.push_back(figure_named(p, m));
      }
      // A baseline from a fleet slower than the card's known-good figures bars lower than they
      // would: a figure it passed at 0.81 of known-good passed without a word (an audit).
      if (m.bar_source == kBarSiteBaseline && m.state == verdict_state::kPass && m.expected_ratio &&
          e.expected_fraction > 0 && *m.expected_ratio < e.expected_fraction)
        ++t.under_known_good;
    }
  }
  return t;
}

// "12 figures judged: 8 by site baseline, 4 by known-good figures (75 %)"
std::string judged_by_line(const BarTally& t, const Expectations& e) {
  // In the order a bar is chosen (verdict_bars.cpp): the site's own, its baseline, known-good,
  // the link-rate rule; latency bars by link kind beside them.
  const std::vector<std::pair<std::string, std::string>> kinds = {
      {kBarSiteBar, "site bars"},
      {kBarSiteBaseline, "site baseline"},
      {kBarKnownGood, "known-good figures (" + format_fixed(e.expected_fraction * 100, 0) + " %)"},
      {kBarLinkRate, "link-rate rule"},
      {kBarLatencyTable, "latency bars"}};
  std::vector<std::string> parts;
  for (const auto& [key, words] : kinds)
    if (t.by.count(key)) parts.push_back(std::to_string(t.by.at(key)) + " by " + words);
  return std::to_string(t.judged) + (t.judged == 1 ? " figure" : " figures") +
         " judged: " + join(parts, ", ");
}

// What the site baseline left to other bars, or passed under known-good, after the line.
std::string baseline_clauses(const BarTally& t, const Expectations& e) {
  std::string line;
  if (t.without_entry > 0)
    line += "; " + std::to_string(t.without_entry) + " had no entry in the site baseline (" +
            e.source + "): " + join(t.no_entry, ", ") +
            (t.without_entry > 4 ? " and " + std::to_string(t.without_entry - 4) + " more" : "") +
            " (each verdict's bar_basis says why)";
  if (t.under_known_good > 0)
    line += "; " + std::to_string(t.under_known_good) +
            (t.under_known_good == 1 ? " figure passed" : " figures passed") +
            " the site baseline under " + format_fixed(e.expected_fraction * 100, 0) +
            " % of its known-good figure: the fleet the baseline came from ran slower than the "
            "card should";
  return line;
}

}  // namespace

std::string bars_used_line(const RunDocument& d, const std::vector<PairVerdict>& v,
                           const Expectations& e) {
  const BarTally t = tally_bars(v, e);
  if (t.judged == 0) return "no figure was judged against a bar";
  std::string line = judged_by_line(t, e);
  if (e.baseline.empty()) return line;
  if (t.also_at_smaller > 0)
    line += "; " + std::to_string(t.also_at_smaller) + (t.also_at_smaller == 1 ? " was" : " were") +
            " also held to the site baseline at the largest size it has an entry for, under the "
            "size judged";
  if (t.by.count(kBarSiteBaseline) == 0 && t.also_at_smaller == 0)
    return line + "; the site baseline (" + e.source +
           ") judged none of them: its entries are for " + baseline_scope(e.baseline) +
           "; this run is " + run_scope(d, v);
  line += baseline_clauses(t, e);
  // A one-version baseline judges a run on any version: said here, not only on a flag (a passing
  // node on a new driver read "judged by site baseline" with no word of it; an audit).
  BaselineEntry any;
  const std::string versions = baseline_version_note(any, e.baseline_origin, run_versions(d));
  if (!versions.empty()) line += "; " + versions;
  return line;
}

bool baseline_judged_any(const std::vector<PairVerdict>& v) {
  for (const auto& p : v) {
    for (const auto& m : p.methods)
      if (m.bar && m.bar_source == kBarSiteBaseline) return true;
  }
  return false;
}

std::string recorded_verdicts_note(const RunDocument& d, const std::vector<PairVerdict>& now) {
  if (d.verdicts.empty()) return "";
  auto codes_of = [](const std::vector<PairVerdict>& vs) {
    std::set<std::string> codes;
    for (const auto& v : vs)
      for (const auto& f : v.flags) codes.insert(f.code);
    return codes;
  };
  const std::string then = verdict_headline(count_verdicts(d.verdicts));
  const std::string here = verdict_headline(count_verdicts(now));
  // Only where the verdict itself differs: a line on every old file ("recomputed: ...") read as
  // an alarm in an attached acceptance report (issue 39).
  if (then == here) return "";
  const auto then_codes = codes_of(d.verdicts), here_codes = codes_of(now);
  std::vector<std::string> gone, raised;
  for (const auto& c : then_codes)
    if (!here_codes.count(c)) gone.push_back(c);
  for (const auto& c : here_codes)
    if (!then_codes.count(c)) raised.push_back(c);
  std::string changes;
  if (!gone.empty()) changes += "; flags this peerbench no longer raises here: " + join(gone);
  if (!raised.empty()) changes += "; flags it raises that the file had not: " + join(raised);
  return "the verdict differs from the one the file recorded: when it ran, peerbench " +
         d.tool.version + " (" + d.tool.git_revision + ") judged " + then +
         "; judged again by this peerbench's rules and bars, it is " + here + changes +
         " (the file keeps its own verdicts and their evidence)";
}

}  // namespace peerbench
