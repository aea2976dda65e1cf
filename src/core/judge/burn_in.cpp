#include "core/judge/burn_in.h"

#include <algorithm>
#include <cmath>

#include "core/judge/verdict.h"
#include "core/model/statistics.h"

namespace peerbench {

BurnInSeries& BurnInRecorder::series_for(BurnIn& b, const Result& r, const MethodInfo* m) {
  if (index_.size() != b.series.size()) {  // series this recorder did not add (a file read back)
    index_.clear();
    for (std::size_t i = 0; i < b.series.size(); ++i) {
      const BurnInSeries& s = b.series[i];
      index_.emplace(Key{s.method, s.src, s.dst, s.bytes, s.datatype, s.op}, i);
    }
  }
  const auto [it, added] =
      index_.emplace(Key{r.method, r.src, r.dst, r.bytes, r.datatype, r.op}, b.series.size());
  if (added) {
    BurnInSeries s;
    s.method = r.method;
    s.src = r.src;
    s.dst = r.dst;
    s.bytes = r.bytes;
    s.datatype = r.datatype;
    s.op = r.op;
    s.unit = burn_in_unit(m, r.bytes);
    b.series.push_back(std::move(s));
  }
  return b.series[it->second];
}

bool burn_in_failure(const Result& r) {
  return r.status == ResultStatus::kError || r.status == ResultStatus::kTimeout;
}

namespace {

// A cycle once per list: two requested sizes that round to one size are one case, recorded twice.
void note_cycle(std::vector<int>& cycles, int cycle) {
  if (cycles.empty() || cycles.back() != cycle) cycles.push_back(cycle);
}

bool has_cycle(const std::vector<int>& cycles, int cycle) {
  return !cycles.empty() && cycles.back() == cycle;
}

}  // namespace

void BurnInRecorder::record(BurnIn& b, int cycle, const Result& r, const MethodInfo* m) {
  BurnInSeries& s = series_for(b, r, m);
  if (s.values.size() < static_cast<std::size_t>(cycle)) s.values.resize(cycle);
  const bool interfered = contended(r) || throttled(r);
  if (r.wrong > 0) note_cycle(s.error_cycles, cycle);
  if (burn_in_failure(r)) note_cycle(s.failed_cycles, cycle);
  if (interfered) note_cycle(s.contended_cycles, cycle);
  if (throttled(r) && !contended(r)) note_cycle(s.throttled_cycles, cycle);
  // A case recorded twice in a cycle (two requested sizes that round to one) keeps no figure
  // if either ran beside another job: a contended cycle has none.
  if (interfered) {
    s.values[cycle - 1].reset();
  } else if (has_figure(r) && !has_cycle(s.contended_cycles, cycle)) {
    s.values[cycle - 1] = figure_value(m, r);
  }
}

BurnInFindings burn_in_findings(const BurnInSeries& s) {
  BurnInFindings f;
  f.series = &s;
  std::vector<double> v;
  for (const auto& x : s.values) {
    if (x) v.push_back(*x);
  }
  f.cycles = static_cast<int>(v.size());
  if (v.empty()) return f;
  const Stats st = summarize(v);
  f.min = st.min;
  f.median = st.median;
  f.max = st.max;
  double var = 0;
  for (double x : v) var += (x - st.mean) * (x - st.mean);
  f.cv = st.mean > 0 ? std::sqrt(var / static_cast<double>(v.size())) / st.mean : 0;
  // Two figures a quarter at least: over 4-7 cycles one cycle against one called noise drift
  // (an audit), and waiting for 8 let a steady slide over 6 pass (a review).
  if (v.size() >= kBurnInDriftMinCycles) {
    const std::size_t q = std::max<std::size_t>(2, v.size() / 4);
    const double first = summarize({v.begin(), v.begin() + static_cast<long>(q)}).median;
    const double last = summarize({v.end() - static_cast<long>(q), v.end()}).median;
    if (first > 0) f.drift = (last - first) / first;
  }
  return f;
}

std::string cycle_list(const std::vector<int>& cycles) {
  // Hundreds of cycles made one flag a page long: the first ten, then how many more.
  constexpr std::size_t kShown = 10;
  const std::size_t shown = cycles.size() > kShown + 2 ? kShown : cycles.size();
  std::string s;
  for (std::size_t i = 0; i < shown; ++i) {
    if (i) s += i + 1 == cycles.size() ? " and " : ", ";
    s += std::to_string(cycles[i]);
  }
  if (shown < cycles.size()) s += " and " + std::to_string(cycles.size() - shown) + " more";
  return s;
}

}  // namespace peerbench
