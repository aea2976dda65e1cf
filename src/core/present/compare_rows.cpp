// A case both runs measured, compared: the figure `report` shows, B / A, and whether the change
// is a regression, an improvement, the same or within the noise (or not compared: wrong data,
// other settings, another job or held clocks).
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "core/judge/verdict.h"
#include "core/present/compare_rows.h"
#include "core/present/report.h"

namespace peerbench::compare_detail {
namespace {

// The spread a row's figure must leave to count as changed: the interquartile range of the
// samples where the run recorded four or more (sample_time_us), else min-max. With min-max one
// slow sample of five hid a 20 % drop in every other sample (audit).
std::pair<double, double> spread_of(const Stats& s, const Result& r, bool time) {
  std::vector<double> t = r.sample_time_us;
  if (t.size() < 4 || s.median <= 0) return {s.min, s.max};
  std::sort(t.begin(), t.end());
  const double q1 = t[t.size() / 4], q3 = t[t.size() - 1 - t.size() / 4];
  if (time) return {q1, q3};
  // A bandwidth is bytes over time: the figures at the quartile times, scaled from the median.
  const double mid = t[t.size() / 2];
  if (q1 <= 0 || q3 <= 0 || mid <= 0) return {s.min, s.max};
  return {s.median * mid / q3, s.median * mid / q1};
}

// The figure `report` shows: the time for latency methods and at latency sizes (8 B is 0.00
// GB/s in both runs however much slower one is), busbw for NCCL methods (where both runs
// recorded it), algbw otherwise.
void choose_figure(CompareRow& row, const MethodInfo* m, const Result& ra, const Result& rb) {
  row.lower_is_better = figure_is_time(m, row.bytes) && ra.time_us && rb.time_us;
  if (row.lower_is_better) {
    row.metric = "time_us";
    row.a = *ra.time_us;
    row.b = *rb.time_us;
  } else if (m && m->uses_nccl && ra.busbw_gbps && rb.busbw_gbps) {
    row.metric = "busbw_gbps";
    row.a = *ra.busbw_gbps;
    row.b = *rb.busbw_gbps;
  } else {
    row.metric = "algbw_gbps";
    row.a = *ra.algbw_gbps;
    row.b = *rb.algbw_gbps;
  }
}

// What a row's figures say, counted in `c`: a change only beyond the threshold and outside both
// runs' spreads, and none where B's data was wrong, the settings differ or a run was disturbed.
std::string change_of(const CompareRow& row, const Result& ra, const Result& rb, bool wrong,
                      bool other_settings, const CompareOptions& o, Comparison& c) {
  if (wrong) {
    // Wrong data in B outweighs any figure: a case that delivered garbage at the old speed read
    // "same" (an audit).
    ++c.data_errors;
    return "data-errors";
  }
  if (other_settings) {
    // -R 2's symmetric kernels, another rank's time (-a), blocking (-z) or graphs (-G): another
    // figure, not a change of the same one (an audit saw -R 2 called a 26 % regression).
    ++c.other_settings;
    return "other-settings";
  }
  if (contended(ra) || contended(rb) || throttled(ra) || throttled(rb)) {
    // Another job on a GPU or held clocks in either run: no regression is called on that figure.
    ++c.untrusted;
    return contended(ra) || contended(rb) ? "contended" : "throttled";
  }
  const bool beyond = std::abs(row.ratio - 1.0) > o.threshold;
  if (!beyond) return "same";
  const auto [a_lo, a_hi] = spread_of(row.a, ra, row.lower_is_better);
  const auto [b_lo, b_hi] = spread_of(row.b, rb, row.lower_is_better);
  if (!(b_hi < a_lo || b_lo > a_hi)) {
    if (ra.sample_time_us.size() < 4 || rb.sample_time_us.size() < 4) ++c.min_max_inconclusive;
    return "within-noise";
  }
  const bool worse =
      row.lower_is_better ? row.b.median > row.a.median : row.b.median < row.a.median;
  if (worse) {
    ++c.regressions;
    return "regression";
  }
  ++c.improvements;
  return "improvement";
}

}  // namespace

CompareRow compare_row(const CaseKey& key, const Result& ra_, const Result& rb_,
                       const RunDocument& a, const RunDocument& b, const CompareOptions& o,
                       Comparison& c) {
  // The measurement that settled each case's verdict (built-in bars): a confirmation repeat
  // where one did, else the plan's.
  const Result* ra = settled_result(a, ra_, settled_attempt(c.verdicts_a, ra_));
  const Result* rb = settled_result(b, rb_, settled_attempt(c.verdicts_b, rb_));
  const auto* m = find_method(a.methods, key.method);
  CompareRow row;
  row.method = key.variant.empty() ? key.method : key.method + " " + key.variant;
  row.pair = pair_name(ra->src, ra->dst);
  row.gpu_pair = gpu_pair_text(key, ra);
  row.bytes = key.bytes;
  row.latency_method = m && m->metric == Metric::kLatency;
  choose_figure(row, m, *ra, *rb);
  row.ratio = row.a.median > 0 ? row.b.median / row.a.median : 0;
  const bool wrong = rb_.wrong || rb->wrong;
  const bool other_settings = measurement_mode(a, m) != measurement_mode(b, m);
  row.change = change_of(row, *ra, *rb, wrong, other_settings, o, c);
  return row;
}

}  // namespace peerbench::compare_detail
