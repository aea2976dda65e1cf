#include "core/present/report_charts.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "core/base/text.h"
#include "core/judge/verdict.h"
#include "core/present/report_document.h"
#include "core/present/report_parts.h"

namespace peerbench {
namespace {

using namespace report_parts;

std::string y_label(const MethodInfo* m) {
  if (m->metric == Metric::kLatency) return "time per transfer (us, median)";
  return m->uses_nccl ? "bus bandwidth (busbw GB/s, median)" : "bandwidth (GB/s, median)";
}

const char* kSizeAxis = "transfer size (bytes, log-2 scale)";

std::string hosts_of(const RunDocument& d) {
  return join(d.system.hosts);
}

// The method's verdict for a pair; a bidirectional method has one, on the pair in rank order.
const MethodVerdict* verdict_of(const std::vector<PairVerdict>& vs, const MethodInfo* m, int s,
                                int t) {
  if (m->bidirectional && s > t) std::swap(s, t);
  for (const auto& v : vs) {
    if (v.src != s || v.dst != t) continue;
    for (const auto& mv : v.methods) {
      if (mv.method == m->name) return &mv;
    }
  }
  return nullptr;
}

// A flag about the pair as a whole (NCCL's transport, peer access), not about one method.
bool pair_flagged(const std::vector<PairVerdict>& vs, int s, int t) {
  for (const auto& v : vs) {
    if (v.src != s || v.dst != t) continue;
    for (const auto& f : v.flags) {
      if (f.method.empty()) return true;
    }
  }
  return false;
}

bool flagged_for(const std::vector<PairVerdict>& vs, const MethodInfo* m, int s, int t) {
  if (m->bidirectional && s > t) std::swap(s, t);
  for (const auto& v : vs) {
    if (v.src != s || v.dst != t) continue;
    for (const auto& f : v.flags) {
      if (f.method == m->name) return true;
    }
  }
  return false;
}

// The cell's colour basis: the known-good ratio, else the ratio to the verdict's bar.
// `host_bound`: the figure shown is launch-bound or has launch gaps in its times (start gate timed
// out): the host's pace, not the link's.
svg::HeatCell heat_cell(const std::string& text, const MethodVerdict* mv, bool flagged,
                        bool host_bound) {
  svg::HeatCell c;
  c.text = text;
  c.flagged = flagged || (mv && mv->state == verdict_state::kFlagged);
  if (mv && (mv->state == verdict_state::kContended || mv->state == verdict_state::kThrottled)) {
    // Not coloured: red would read as a bad link (an audit's screenshot).
    c.detail = mv->state + ": another job or held clocks beside it, not the link's figure";
    return c;
  }
  if (mv && mv->state == verdict_state::kNotJudged) {
    // Nor a figure no bar judged (of the host's pace, or under the size judged): green beside
    // "5.27g" read as a healthy link, red beside 64 MiB SHM figures as a bad one (audits).
    c.detail = mv->reason.rfind("not judged", 0) == 0 ? mv->reason : "not judged: " + mv->reason;
    (void)host_bound;
    return c;
  }
  if (mv && mv->expected_ratio) {
    c.basis = svg::Basis::kExpected;
    c.goodness = *mv->expected_ratio;
    c.detail = format_fixed(c.goodness, 2) + " of known-good";
  } else if (mv && mv->bar && mv->value && *mv->bar > 0 && *mv->value > 0) {
    c.basis = svg::Basis::kBar;
    c.goodness = mv->unit == "us" ? *mv->bar / *mv->value : *mv->value / *mv->bar;
    c.detail = format_fixed(c.goodness, 2) + " of its bar (no known-good figure)";
  } else if (mv && mv->value) {
    c.detail = "no known-good figure or bar";
  }
  return c;
}

// A bandwidth at a latency size (8 B is 0.0 GB/s): the time per operation the verdicts judge.
std::string time_aside(const MethodInfo* m, const Result& r) {
  if (m->metric == Metric::kLatency || !figure_is_time(m, r.bytes)) return "";
  return format_fixed(figure_value(m, r), 2) + " us per op";
}

// Per pair (or per GPU for host<->GPU methods), the method's figure at each size.
std::map<std::pair<int, int>, std::vector<svg::Point>> points_by_pair(const RunDocument& d,
                                                                      const MethodInfo* m) {
  std::map<std::pair<int, int>, std::vector<svg::Point>> out;
  for (const auto& r : d.results) {
    if (r.method != m->name || r.src < 0 || !has_figure(r)) continue;
    out[{r.src, r.dst}].push_back(
        {static_cast<double>(r.bytes), headline_value(m, r), time_aside(m, r)});
  }
  return out;
}

// Past kMaxPairLines pairs: the median, slowest and fastest pair at each size; the slowest
// named where one pair is the slowest at every size.
std::vector<svg::Series> summary_series(
    const std::map<std::pair<int, int>, std::vector<svg::Point>>& pairs, bool lower_is_better) {
  struct At {
    double y;
    std::pair<int, int> pair;
    const std::string* aside;
    bool operator<(const At& o) const { return std::tie(y, pair) < std::tie(o.y, o.pair); }
  };
  std::map<double, std::vector<At>> by_size;
  for (const auto& [pair, pts] : pairs) {
    for (const auto& p : pts) by_size[p.x].push_back({p.y, pair, &p.aside});
  }
  svg::Series median{"median of " + std::to_string(pairs.size()) + " pairs", {}};
  svg::Series slow{"", {}};
  svg::Series fast{"fastest pair at each size", {}};
  std::set<std::pair<int, int>> slowest;
  for (auto& [x, ys] : by_size) {
    std::sort(ys.begin(), ys.end());
    const At& worst = lower_is_better ? ys.back() : ys.front();
    const At& best = lower_is_better ? ys.front() : ys.back();
    const At& mid = ys[ys.size() / 2];
    median.points.push_back({x, mid.y, *mid.aside});
    slow.points.push_back({x, worst.y, *worst.aside});
    fast.points.push_back({x, best.y, *best.aside});
    slowest.insert(worst.pair);
  }
  slow.name = slowest.size() == 1
                  ? "slowest pair: " + pair_name(slowest.begin()->first, slowest.begin()->second)
                  : "slowest pair at each size";
  return {median, slow, fast};
}

// Known-good curves of `method` among pairs or GPUs (all_ranks false) or over all ranks: one
// series per model and link, its figure at each size (the same for every pair on that link).
// Past kMaxKnownGoodLines curves (a node of mixed links) none: the heat map has each pair's ratio.
constexpr std::size_t kMaxKnownGoodLines = 2;
std::vector<svg::Series> known_good_series(const std::vector<KnownGoodMark>& marks,
                                           const std::string& method, bool all_ranks,
                                           const std::string& prefix) {
  std::map<std::string, std::map<std::uint64_t, double>> curves;
  for (const auto& k : marks) {
    if (k.method == method && (k.src < 0) == all_ranks) curves[k.curve].emplace(k.bytes, k.value);
  }
  std::vector<svg::Series> out;
  if (curves.size() > kMaxKnownGoodLines) return out;
  for (const auto& [curve, points] : curves) {
    svg::Series s{prefix + "known-good, " + curve, {}, true};
    for (const auto& [bytes, value] : points)
      s.points.push_back({static_cast<double>(bytes), value, ""});
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

std::optional<svg::HeatMap> pair_heat_map(const ReportInput& in, const ResultIndex& idx) {
  const auto& d = *in.doc;
  const PairTable pt = pair_table(d, idx, links_of(in.verdicts));
  if (pt.columns.empty()) return std::nullopt;
  svg::HeatMap h;
  h.title = "Pairs on " + hosts_of(d) + ", coloured by the ratio to known-good";
  h.row_heading = "GPU pair and link";
  h.column_heading = "method (unit @ size)";
  h.table_extra_head = {"NCCL transport"};
  for (const auto& c : pt.columns) {
    h.columns.push_back(c.m->name);
    h.column_units.push_back(c.unit);
  }
  for (const auto& r : pt.rows) {
    h.rows.push_back(r.pair);
    h.row_notes.push_back(r.link);
    h.row_flagged.push_back(pair_flagged(in.verdicts, r.src, r.dst));
    std::vector<svg::HeatCell> row;
    for (std::size_t k = 0; k < pt.columns.size(); ++k) {
      const MethodInfo* m = pt.columns[k].m;
      const Result* shown = idx.largest_ok(m->name, r.src, r.dst);
      const bool host_bound = shown && host_paced(*shown);
      row.push_back(heat_cell(r.cells[k], verdict_of(in.verdicts, m, r.src, r.dst),
                              flagged_for(in.verdicts, m, r.src, r.dst), host_bound));
    }
    h.cells.push_back(std::move(row));
    h.table_extra.push_back({r.transport});
  }
  h.note =
      "Colour: the ratio at the size each verdict judged (known-good figures: data/known_good); "
      "not coloured: a figure beside another job, under held clocks or of the host's pace "
      "(launch-bound, launch gaps); the text: the median at the largest size; " +
      figure_marks_legend(d, "'", " = ") + ": not the link's figure.";
  return h;
}

std::vector<svg::LineChart> size_charts(const RunDocument& d, MethodScope scope,
                                        const std::vector<KnownGoodMark>& known_good) {
  std::vector<svg::LineChart> out;
  for (const auto* m : methods_in(d, scope)) {
    const auto pairs = points_by_pair(d, m);
    std::set<double> sizes;
    for (const auto& [pair, pts] : pairs) {
      for (const auto& p : pts) sizes.insert(p.x);
    }
    if (sizes.size() < 2) continue;
    svg::LineChart c;
    const bool latency = m->metric == Metric::kLatency;
    c.title = m->name + " against size on " + hosts_of(d) +
              (scope == MethodScope::kPerGpu ? " (each GPU and its host)" : "");
    c.x_label = kSizeAxis;
    c.y_label = y_label(m);
    c.decimals = latency ? 2 : 1;
    if (pairs.size() > kMaxPairLines) {
      c.series = summary_series(pairs, latency);
    } else {
      for (const auto& [pair, pts] : pairs)
        c.series.push_back({pair_name(pair.first, pair.second), pts});
    }
    for (auto& k : known_good_series(known_good, m->name, false, ""))
      c.series.push_back(std::move(k));
    out.push_back(std::move(c));
  }
  return out;
}

std::optional<svg::LineChart> collectives_chart(const RunDocument& d,
                                                const std::vector<KnownGoodMark>& known_good) {
  svg::LineChart c;
  c.title = "NCCL collectives over all ranks on " + hosts_of(d) + ": bus bandwidth against size";
  c.x_label = "size (bytes, as nccl-tests counts them; log-2 scale)";
  c.y_label = "bus bandwidth (busbw GB/s, median)";
  std::size_t most_points = 0;
  for (const auto* m : methods_in(d, MethodScope::kAllRanks)) {
    const auto variants = variants_of(d, m->name);
    if (variants.empty()) continue;
    svg::Series s{m->name + variant_suffix(variants.front()), {}};
    for (const auto& r : d.results) {
      if (r.method != m->name || r.src >= 0 || variant_label(r) != variants.front()) continue;
      if (has_figure(r) && r.busbw_gbps)
        s.points.push_back({static_cast<double>(r.bytes), r.busbw_gbps->median, time_aside(m, r)});
    }
    most_points = std::max(most_points, s.points.size());
    if (s.points.empty()) continue;
    c.series.push_back(std::move(s));
    for (auto& k : known_good_series(known_good, m->name, true, m->name + " "))
      c.series.push_back(std::move(k));
  }
  if (c.series.empty() || most_points < 2) return std::nullopt;
  return c;
}

}  // namespace peerbench

namespace peerbench::report_doc {

std::vector<Section> chart_sections(const ReportInput& in, const ResultIndex& idx) {
  const RunDocument& d = *in.doc;
  std::vector<Section> out;
  auto add = [&](std::string title, std::vector<svg::Chart> charts) {
    if (charts.empty()) return;
    Section s;
    s.title = std::move(title);
    s.charts = std::move(charts);
    out.push_back(std::move(s));
  };
  if (auto h = pair_heat_map(in, idx))
    add("Pairs at the judged size, coloured by their ratio to known-good", {*h});
  std::vector<svg::Chart> pairs, hosts, nccl;
  for (auto& c : size_charts(d, MethodScope::kPair, in.known_good)) pairs.push_back(std::move(c));
  for (auto& c : size_charts(d, MethodScope::kPerGpu, in.known_good)) hosts.push_back(std::move(c));
  if (auto c = collectives_chart(d, in.known_good)) nccl.push_back(std::move(*c));
  add("Pairs: bandwidth against size", std::move(pairs));
  add("Host <-> GPU: bandwidth against size", std::move(hosts));
  add("NCCL collectives: bus bandwidth against size", std::move(nccl));
  return out;
}

}  // namespace peerbench::report_doc
