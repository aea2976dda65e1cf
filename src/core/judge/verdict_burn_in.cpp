// What a burn-in's cycles say of a pair's methods: data errors with the cycles they came in and
// failures that come and go (intermittent: what a single pass would miss), over every size and
// variant of the method; at the judged size, figures that fell under the method's bar in later
// cycles, drift from the first cycles to the last, and too few cycles free of other jobs to judge.
// The spread across cycles goes into each method's evidence.
#include <algorithm>
#include <set>

#include "core/base/text.h"
#include "core/judge/burn_in.h"
#include "core/judge/verdict_context.h"
#include "core/model/sizes.h"

namespace peerbench::verdict_detail {

using nlohmann::json;
namespace vs = verdict_state;

namespace {

using SeriesList = std::vector<const BurnInSeries*>;

// The cycles a method ran in: the whole ones, and the one cut short where it got that far (an
// error in it read "cycle 11 of 10"; an audit).
int cycles_ran(const BurnIn& b, const SeriesList& all) {
  int ran = b.cycles_done;
  for (const auto* s : all) ran = std::max(ran, static_cast<int>(s->values.size()));
  return ran;
}

std::string seconds_text(double s) {
  if (s < 120) return format_fixed(s, 0) + " s";
  if (s < 7200) return format_fixed(s / 60, 0) + " min";
  return format_fixed(s / 3600, 1) + " h";
}

// "cycles 3 and 7 of 12 (cycle 3 began 40 s into the run)": when to look in the node's logs.
std::string cycles_text(const BurnIn& b, const std::vector<int>& cycles, int of) {
  std::string s = std::string(cycles.size() > 1 ? "cycles " : "cycle ") + cycle_list(cycles) +
                  " of " + std::to_string(of);
  for (const auto& k : b.cycles) {
    if (k.cycle == cycles.front())
      return s + " (cycle " + std::to_string(k.cycle) + " began " + seconds_text(k.started_s) +
             " into the run)";
  }
  return s;
}

std::string variant_text(const BurnInSeries& s) {
  std::string v = format_size(s.bytes);
  if (!s.datatype.empty()) v += " " + s.datatype + (s.op.empty() ? "" : "/" + s.op);
  return v;
}

// Wrong elements and failures in any series of the method: any size, any datatype or reduction.
void errors_and_failures(const Ctx& c, PairVerdict& v, const std::string& method,
                         const SeriesList& all) {
  const BurnIn& b = *c.d.burn_in;
  const int ran = cycles_ran(b, all);
  std::set<int> errors, failed;
  std::vector<std::string> where;
  json cases = json::array();
  for (const auto* s : all) {
    errors.insert(s->error_cycles.begin(), s->error_cycles.end());
    failed.insert(s->failed_cycles.begin(), s->failed_cycles.end());
    if (s->error_cycles.empty()) continue;
    where.push_back(variant_text(*s));
    cases.push_back({{"bytes", s->bytes},
                     {"datatype", s->datatype},
                     {"op", s->op},
                     {"error_cycles", s->error_cycles}});
  }
  const std::string what = method + where_text(c, v, method);
  if (!errors.empty()) {
    const std::vector<int> list(errors.begin(), errors.end());
    v.flags.push_back(make_flag("burn-in-errors", method,
                                what + " delivered wrong elements in " + cycles_text(b, list, ran) +
                                    ", at " + join(where, ", "),
                                {{"error_cycles", list}, {"cycles", ran}, {"cases", cases}}));
  }
  // A failure at one size leaves the larger ones of that cycle not run: the cycle failed once.
  const auto n = static_cast<int>(failed.size());
  if (n > 0 && n < ran) {
    const std::vector<int> list(failed.begin(), failed.end());
    v.flags.push_back(
        make_flag("intermittent", method,
                  what + " failed in " + cycles_text(b, list, ran) + " and ran in the others",
                  {{"failed_cycles", list}, {"cycles", ran}}));
  }
}

// The flag the method's own bar raises (verdict_bars.cpp), for a later cycle under it.
std::string bar_flag_code(const MethodVerdict& mv, bool time) {
  if (mv.bar_source == kBarSiteBaseline) return "off-baseline";
  if (time) return "high-latency";
  return mv.bar_source == kBarKnownGood ? "below-expected" : "below-link";
}

// Cycles after the first whose figure is worse than the bar the verdict held cycle 1 to (cycle 1
// is the judged measurement, its confirmation repeats included). Cycles beside another job or
// under held clocks carry no figure. A collapse in 2 of 8 cycles passed (an audit); one cycle
// alone is not confirmed (cycle 1 needs a repeat to be flagged), so it stays in the evidence.
void cycles_under_bar(const Ctx& c, PairVerdict& v, MethodVerdict& mv, const BurnInSeries& s) {
  const bool time = s.unit == "us";
  if (!mv.bar || time != (mv.unit == "us")) return;
  std::vector<int> worse;
  double worst = *mv.bar;
  int worst_cycle = 0;
  for (std::size_t i = 1; i < s.values.size(); ++i) {
    if (!s.values[i]) continue;
    const double x = *s.values[i];
    if (time ? x <= *mv.bar : x >= *mv.bar) continue;
    worse.push_back(static_cast<int>(i) + 1);
    if (time ? x > worst : x < worst) {
      worst = x;
      worst_cycle = static_cast<int>(i) + 1;
    }
  }
  if (worse.empty()) return;
  const BurnIn& b = *c.d.burn_in;
  const int ran = cycles_ran(b, {&s});
  if (worse.size() < kBurnInUnderBarMinCycles) {
    mv.evidence["burn_in"]["under_bar_unconfirmed"] =
        json{{"cycle", worst_cycle}, {"value", worst}};
    return;
  }
  const std::string unit = " " + (mv.unit.empty() ? s.unit : mv.unit);
  const int d = time ? 2 : 1;
  const std::string code = bar_flag_code(mv, time);
  const std::string text =
      std::string(time ? "went over" : "fell under") + " its " + format_fixed(*mv.bar, d) + unit +
      " bar in " + cycles_text(b, worse, ran) +
      ", with no other job or held clocks seen in them (" + (time ? "highest " : "lowest ") +
      format_fixed(worst, d) + unit + ", cycle " + std::to_string(worst_cycle) + ")";
  const json ev = {{"burn_in_cycles", worse},
                   {"cycles", ran},
                   {"worst", worst},
                   {"worst_cycle", worst_cycle},
                   {"bar", *mv.bar}};
  for (auto& f : v.flags) {  // cycle 1 under the bar too: one flag, both said
    if (f.code != code || f.method != mv.method) continue;
    f.message += "; in the burn-in it also " + text;
    f.evidence["burn_in"] = ev;
    return;
  }
  v.flags.push_back(make_flag(code, mv.method,
                              mv.method + " at " + format_size(s.bytes) +
                                  where_text(c, v, mv.method) + " " + text + ": " + mv.bar_basis,
                              ev));
}

void drift_flag(const Ctx& c, PairVerdict& v, const MethodVerdict& mv, const BurnInFindings& f) {
  const BurnInSeries& s = *f.series;
  const bool lower_is_better = s.unit == "us";
  // Under the message's last digit is no drift, whatever the tolerance (drift_tolerance 0 called
  // "drifted -0.0%"; an audit).
  const double worse = f.drift ? (lower_is_better ? *f.drift : -*f.drift) : 0;
  if (worse <= c.e.drift_tolerance || worse < 0.0005) return;
  v.flags.push_back(
      make_flag("drift", mv.method,
                mv.method + " at " + format_size(s.bytes) + where_text(c, v, mv.method) +
                    " drifted " + format_fixed(100 * *f.drift, 1) +
                    "% from the first quarter of the cycles to the last (tolerance " +
                    format_fixed(100 * c.e.drift_tolerance, 0) + "%; across cycles min " +
                    format_fixed(f.min, 2) + ", median " + format_fixed(f.median, 2) + ", max " +
                    format_fixed(f.max, 2) + " " + s.unit + ")",
                {{"drift", *f.drift}, {"tolerance", c.e.drift_tolerance}, {"cycles", f.cycles}}));
}

// A case with another job beside it (or clocks held) in most cycles has too few clean ones to
// say what the burn-in showed: not a pass (7 of 8 cycles contended passed; an audit).
void too_few_clean_cycles(const BurnIn& b, MethodVerdict& mv, const BurnInFindings& f) {
  const BurnInSeries& s = *f.series;
  const int ran = cycles_ran(b, {&s});
  if (mv.state != vs::kPass || s.contended_cycles.empty() || 2 * f.cycles >= ran) return;
  // Held clocks alone are no other job (a review: an hw-thermal burn-in read "measure again when
  // idle"): throttled, and the fleet's advice follows the state.
  const bool clocks_only = s.throttled_cycles.size() == s.contended_cycles.size();
  mv.state = clocks_only ? vs::kThrottled : vs::kContended;
  mv.reason = std::string(clocks_only ? "clocks held" : "another job or held clocks") + " in " +
              cycles_text(b, s.contended_cycles, ran) + ": " + std::to_string(f.cycles) +
              " clean cycle" + (f.cycles == 1 ? " is" : "s are") + " too few to judge the burn-in" +
              (clocks_only ? "; see the GPU's clock event reasons" : "; measure again when idle");
}

void judged_series_findings(const Ctx& c, PairVerdict& v, MethodVerdict& mv,
                            const BurnInFindings& f) {
  const BurnInSeries& s = *f.series;
  const BurnIn& b = *c.d.burn_in;
  mv.evidence["burn_in"] = {{"cycles", b.cycles_done},
                            {"unit", s.unit},
                            {"cycles_with_figure", f.cycles},
                            {"min", f.min},
                            {"median", f.median},
                            {"max", f.max},
                            {"cv", f.cv},
                            {"drift", f.drift ? json(*f.drift) : json()},
                            {"error_cycles", s.error_cycles},
                            {"failed_cycles", s.failed_cycles},
                            {"contended_cycles", s.contended_cycles}};
  cycles_under_bar(c, v, mv, s);
  drift_flag(c, v, mv, f);
  too_few_clean_cycles(b, mv, f);
}

}  // namespace

void burn_in_flags(const Ctx& c, PairVerdict& v) {
  if (!c.d.burn_in) return;
  for (auto& mv : v.methods) {
    const auto all = c.burn_in_of_method.find({mv.method, v.src, v.dst});
    if (all == c.burn_in_of_method.end()) continue;
    errors_and_failures(c, v, mv.method, all->second);
    if (mv.bytes == 0) continue;
    const auto& judged = c.idx.of(mv.method, v.src, v.dst);  // the judged variant's results
    const auto r = std::find_if(judged.begin(), judged.end(),
                                [&](const Result* x) { return x->bytes == mv.bytes; });
    if (r == judged.end()) continue;
    const auto it =
        c.burn_in_series.find({mv.method, v.src, v.dst, mv.bytes, (*r)->datatype, (*r)->op});
    if (it != c.burn_in_series.end())
      judged_series_findings(c, v, mv, burn_in_findings(*it->second));
  }
}

}  // namespace peerbench::verdict_detail
