// States and counting: the flag codes, which states fail a run, the counts and the headline of a
// report, the exit code; the words that name a card.
#include <algorithm>
#include <set>

#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/judge/verdict.h"
#include "core/judge/verdict_context.h"
#include "core/model/flag_table.h"

namespace peerbench {

namespace vs = verdict_state;
using namespace verdict_detail;

std::vector<std::string> known_flag_codes() {
  // The codes a run's verdicts raise: every row of the table but the fleet's own.
  std::vector<std::string> codes;
  for (const auto& f : flag_table()) {
    if (f.family != FlagFamily::kFleet) codes.emplace_back(f.code);
  }
  return codes;
}

VerdictCounts count_verdicts(const std::vector<PairVerdict>& v) {
  VerdictCounts c;
  // A GPU's own flag (link-errors, pcie-downtrained) stands on every pair of that GPU: counted
  // once ("4 flags" for two problems read as four).
  std::set<std::pair<std::string, std::string>> flags;
  for (const auto& p : v) {
    ++c.verdicts;
    c.pass += p.verdict == vs::kPass;
    c.flagged += p.verdict == vs::kFlagged;
    c.incomplete += p.verdict == vs::kIncomplete;
    c.not_applicable += p.verdict == vs::kNotApplicable;
    c.not_a_link += p.verdict == vs::kNotALink;
    c.not_judged += p.verdict == vs::kNotJudged;
    c.contended += p.verdict == vs::kContended;
    c.throttled += p.verdict == vs::kThrottled;
    c.noisy += p.verdict == vs::kNoisy;
    for (const auto& f : p.flags) flags.insert({f.code, f.message});
    for (const auto& m : p.methods) {
      c.incomplete_methods += m.state == vs::kIncomplete;
      c.contended_methods += m.state == vs::kContended;
      c.throttled_methods += m.state == vs::kThrottled;
      c.noisy_methods += m.state == vs::kNoisy;
      c.not_judged_methods += m.state == vs::kNotJudged;
    }
  }
  c.flags = static_cast<int>(flags.size());
  return c;
}

std::string verdict_headline(const VerdictCounts& c) {
  if (c.verdicts == 0) return "nothing was judged";
  if (c.pass == c.verdicts)
    return c.verdicts == 1 ? "the 1 verdict passes" : "all " + std::to_string(c.verdicts) + " pass";
  std::string s;
  const std::pair<int, const char*> parts[] = {{c.flagged, "flagged"},
                                               {c.contended, "contended"},
                                               {c.throttled, "throttled"},
                                               {c.noisy, "noisy"},
                                               {c.incomplete, "incomplete"},
                                               {c.pass, "pass"},
                                               {c.not_judged, "not judged"},
                                               {c.not_a_link, "not a link"},
                                               {c.not_applicable, "not applicable"}};
  for (const auto& [n, what] : parts) {
    if (n) s += (s.empty() ? "" : ", ") + std::to_string(n) + " " + what;
  }
  s += " of " + count_of(c.verdicts, "verdict");
  if (c.flags) s += " (" + std::to_string(c.flags) + " flag" + (c.flags == 1 ? "" : "s") + ")";
  return s;
}

std::string verdict_summary(const VerdictCounts& c) {
  const auto n = [](int k) { return std::to_string(k); };
  return count_of(c.verdicts, "verdict") + ", " + n(c.pass) + " pass, " + n(c.flagged) +
         " flagged, " + n(c.contended) + " contended, " + n(c.throttled) + " throttled, " +
         n(c.noisy) + " noisy, " + n(c.incomplete) + " incomplete, " + n(c.not_judged) +
         " not judged, " + n(c.not_applicable) + " not applicable, " + n(c.not_a_link) +
         " not a link; " + count_of(c.flags, "flag") + ", " +
         count_of(c.incomplete_methods, "requested measurement") + " missing, " +
         count_of(c.not_judged_methods, "figure") + " judged by no bar";
}

const std::vector<std::string>& failing_states() {
  static const std::vector<std::string> states{vs::kIncomplete, vs::kContended, vs::kThrottled,
                                               vs::kNoisy};
  return states;
}

const std::vector<std::string>& opt_in_failing_states() {
  static const std::vector<std::string> states{vs::kNotJudged};
  return states;
}

namespace {

std::string pair_words(const PairVerdict& pv) {
  if (pv.src < 0 && pv.dst < 0) return "all ranks";
  if (pv.src == pv.dst) return "rank " + std::to_string(pv.src);
  return std::to_string(pv.src) + "->" + std::to_string(pv.dst);
}

bool listed(const std::vector<std::string>& list, const std::string& s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

}  // namespace

std::vector<std::string> failing_items(const std::vector<PairVerdict>& v,
                                       const std::string& fail_on) {
  std::vector<std::string> items;
  if (fail_on == "none") return items;
  const auto codes = split(fail_on, ',');
  const bool all = listed(codes, "all");
  for (const auto& pv : v) {
    for (const auto& f : pv.flags) {
      // A code this version does not know (a newer file's) counts under "all": never waved by.
      const FlagInfo* info = find_flag(f.code);
      if ((all && (!info || info->fails_by_default)) || listed(codes, f.code))
        items.push_back(f.code + " flag on " + (f.method.empty() ? "" : f.method + " ") +
                        pair_words(pv));
    }
    for (const auto& m : pv.methods) {
      const bool counted = (listed(failing_states(), m.state) && (all || listed(codes, m.state))) ||
                           (listed(opt_in_failing_states(), m.state) && listed(codes, m.state));
      if (counted) items.push_back(m.method + " " + pair_words(pv) + " " + m.state);
    }
  }
  return items;
}

int count_failing(const std::vector<PairVerdict>& v, const std::string& fail_on) {
  return static_cast<int>(failing_items(v, fail_on).size());
}

int verdict_exit_code(const std::vector<PairVerdict>& v, const std::string& fail_on) {
  return count_failing(v, fail_on) > 0 ? kExitFlagged : kExitOk;
}

std::string burn_in_cut_short(const RunDocument& d) {
  if (!d.burn_in) return "";
  const BurnIn& b = *d.burn_in;
  const std::string done =
      std::to_string(b.cycles_done) + " whole cycle" + (b.cycles_done == 1 ? "" : "s");
  // A file whose burn-in never said why it ended: the job was killed, or is still running.
  if (b.stopped_by.empty())
    return "the burn-in has no end recorded after " + done + " (killed, or still running)";
  // A signal is how a burn-in without bound ends (-N 0, no --duration); one with a bound stopped
  // short of what was asked (a SIGINT at 4 s of a 2 h burn-in passed; an audit).
  if (b.stopped_by.rfind("SIG", 0) != 0 || (b.cycles_requested == 0 && b.duration_s <= 0))
    return "";
  // The cycles' own end: the run's elapsed time also counts what came after them (an elapsed
  // time edited past the bound passed a burn-in that ran 5 s of 2 h; an audit).
  double t = d.timing.elapsed_s.value_or(0);
  if (!b.cycles.empty()) t = b.cycles.back().started_s + b.cycles.back().elapsed_s;
  // A signal after the bound was reached (files before the job named the bound first) ran all
  // that was asked (a review).
  if ((b.cycles_requested > 0 && b.cycles_done >= b.cycles_requested) ||
      (b.duration_s > 0 && t >= b.duration_s))
    return "";
  std::string asked = b.duration_s > 0 ? format_fixed(b.duration_s, 0) + " s" : "";
  if (b.cycles_requested > 0)
    asked += (asked.empty() ? "" : " or ") + std::to_string(b.cycles_requested) + " cycles";
  return "the burn-in was stopped by " + b.stopped_by + " after " + done +
         (t > 0 ? " in " + format_fixed(t, 0) + " s" : "") + ", short of the " + asked +
         " asked for";
}

std::string run_cut_short(const RunDocument& d) {
  if (std::string b = burn_in_cut_short(d); !b.empty()) return b;
  // The job clears in_progress when it ends; one left set is a job that never did. Killed in
  // its confirmation repeats, a file with every case measured read "all 3 pass", exit 0, while
  // `fleet` called the node incomplete.
  if (d.status == "complete" || d.status == "failed" || !d.in_progress.is_object()) return "";
  std::string s = "the run has no end recorded";
  const auto m = d.in_progress.find("method");
  if (m != d.in_progress.end() && m->is_string())
    s += ": it stopped while running " + m->get<std::string>();
  return s + " (killed, or still running)";
}

std::vector<std::string> run_failing_items(const RunDocument& d, const std::vector<PairVerdict>& v,
                                           const std::string& fail_on) {
  // The run's own state first: six items are named, and it must not hide among the rest.
  std::vector<std::string> items;
  const auto codes = split(fail_on, ',');
  const bool selected = listed(codes, "all") || listed(codes, vs::kIncomplete);
  if (selected && d.status == "failed") items.emplace_back("the run failed");
  if (selected && d.status != "failed" && !run_cut_short(d).empty())
    items.emplace_back("the run was cut short");
  const auto verdicts = failing_items(v, fail_on);
  items.insert(items.end(), verdicts.begin(), verdicts.end());
  return items;
}

int run_failing(const RunDocument& d, const std::vector<PairVerdict>& v,
                const std::string& fail_on) {
  return static_cast<int>(run_failing_items(d, v, fail_on).size());
}

std::string failing_line(const RunDocument& d, const std::vector<PairVerdict>& v,
                         const std::string& fail_on) {
  return failing_line(run_failing_items(d, v, fail_on), fail_on);
}

namespace {

// The first items by name, the rest counted: a burn-in's hundreds of items stay one line. One
// item at several sizes is named once with how many ("data-errors flag on ce-write 0->1 (3
// times)" had read three times over; a review).
std::string named_items(const std::vector<std::string>& items) {
  constexpr std::size_t kNamed = 6;
  std::vector<std::pair<std::string, int>> distinct;
  for (const auto& i : items) {
    auto at = std::find_if(distinct.begin(), distinct.end(),
                           [&](const std::pair<std::string, int>& d) { return d.first == i; });
    if (at == distinct.end()) {
      distinct.emplace_back(i, 1);
    } else {
      ++at->second;
    }
  }
  std::vector<std::string> named;
  std::size_t shown = 0;
  for (const auto& [item, n] : distinct) {
    if (named.size() == kNamed) break;
    named.push_back(n > 1 ? item + " (" + std::to_string(n) + " times)" : item);
    shown += static_cast<std::size_t>(n);
  }
  std::string s = join(named, "; ");
  if (items.size() > shown) s += "; and " + std::to_string(items.size() - shown) + " more";
  return s;
}

}  // namespace

std::string failing_line(const std::vector<std::string>& items, const std::string& fail_on) {
  if (items.empty()) return "";
  return "--fail-on " + fail_on + " counts " + named_items(items);
}

std::string waived_line(const RunDocument& d, const std::vector<PairVerdict>& v,
                        const std::string& fail_on) {
  auto counted = run_failing_items(d, v, fail_on);
  std::vector<std::string> left;  // what "all" counts less what fail_on does, repeats and all
  for (auto& item : run_failing_items(d, v, "all")) {
    const auto at = std::find(counted.begin(), counted.end(), item);
    if (at != counted.end()) {
      counted.erase(at);
    } else {
      left.push_back(std::move(item));
    }
  }
  if (left.empty()) return "";
  return "--fail-on " + fail_on + " leaves out " + std::to_string(left.size()) +
         " that the default (all) counts: " + named_items(left);
}

int run_exit_code(const RunDocument& d, const std::vector<PairVerdict>& v,
                  const std::string& fail_on) {
  return run_failing(d, v, fail_on) > 0 ? kExitFlagged : kExitOk;
}

std::string interference_text(const RunDocument& d, const Result& r) {
  return verdict_detail::interference_text_by(r, [&](int rank) {
    return "rank " + std::to_string(rank) + " (" + card_label(card_of(d, rank)) + ")";
  });
}

std::string run_headline(const RunDocument& d, const std::vector<PairVerdict>& v) {
  std::string s = verdict_headline(count_verdicts(v));
  if (d.status != "failed") {
    const std::string short_of = run_cut_short(d);
    return short_of.empty() ? s : short_of + "; " + s;
  }
  // "all 3 pass" over a failed run read as a clean bill (an audit): the failure comes first.
  return "the run failed" +
         (d.errors.empty()
              ? std::string()
              : ": " + d.errors.front() +
                    (d.errors.size() > 1 ? " (and " + std::to_string(d.errors.size() - 1) + " more)"
                                         : "")) +
         "; " + s;
}

CardId card_of(const RunDocument& d, int rank) {
  return card_from(rank_info(d, rank), rank);
}

std::string card_label(const CardId& c) {
  if (c.gpu_index < 0) return "rank " + std::to_string(c.rank) + ", GPU unknown";
  std::string s = "GPU " + std::to_string(c.gpu_index);
  std::string ids = c.pci_bus_id;
  if (!c.serial.empty()) ids += (ids.empty() ? "" : ", ") + std::string("serial ") + c.serial;
  if (!ids.empty()) s += " (" + ids + ")";
  return s + " on " + c.host;
}

double headline_value(const MethodInfo* m, const Result& r) {
  if (m && m->metric == Metric::kLatency) return r.time_us ? r.time_us->median : 0;
  if (m && m->uses_nccl && r.busbw_gbps) return r.busbw_gbps->median;
  return r.algbw_gbps ? r.algbw_gbps->median : 0;
}

double figure_value(const MethodInfo* m, const Result& r, std::uint64_t small_max) {
  if (figure_is_time(m, r.bytes, small_max)) return r.time_us ? r.time_us->median : 0;
  return headline_value(m, r);
}

}  // namespace peerbench
