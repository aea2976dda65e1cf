// Rendering a comparison of two runs (compare.cpp compares): its CSV, and the sections the
// text, Markdown and HTML formats share, with the chart of each row's change.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "core/base/errors.h"
#include "core/base/escaped.h"
#include "core/base/text.h"
#include "core/judge/verdict.h"
#include "core/model/sizes.h"
#include "core/present/compare.h"
#include "core/present/report.h"
#include "core/present/report_parts.h"
#include "core/present/sections.h"

namespace peerbench {

namespace {

// "busbw GB/s", "algbw GB/s", "time us": what a row compares, as its figures' heading says.
std::string metric_label(const std::string& metric) {
  if (metric == "busbw_gbps") return "busbw GB/s";
  if (metric == "time_us") return "time us";
  return "algbw GB/s";
}

using CsvS = out::Safe<out::Csv>;
CsvS csv_versions(const RunVersions& v) {
  return out::csv_field(v.driver) + "," + out::csv_field(v.cuda) + "," + out::csv_field(v.nccl);
}

// Each row ends with both runs' versions, files and hosts: 136 regression rows of two nodes'
// runs did not say which node was slow, their GPU pairs being host0:... by position (an audit).
std::string comparison_csv(const Comparison& c, const std::string& a_name,
                           const std::string& b_name) {
  out::Writer<out::Csv> w;
  w << "method,pair,gpu_pair,bytes,metric,a_median,a_min,a_max,b_median,b_min,b_max,ratio,"
       "change,a_status,b_status,a_driver,a_cuda,a_nccl,b_driver,b_cuda,b_nccl,a_file,a_hosts,"
       "b_file,b_hosts\n";
  const CsvS versions = "," + csv_versions(c.versions_a) + "," + csv_versions(c.versions_b) + "," +
                        out::csv_field(a_name) + "," + out::csv_field(c.run_hosts_a) + "," +
                        out::csv_field(b_name) + "," + out::csv_field(c.run_hosts_b);
  for (const auto& r : c.rows) {
    w << out::csv_field(r.method) << "," << out::csv_field(r.pair) << ","
      << out::csv_field(r.gpu_pair) << "," << r.bytes << "," << out::csv_field(r.metric) << ","
      << out::fixed<out::Csv>(r.a.median, 3) << "," << out::fixed<out::Csv>(r.a.min, 3) << ","
      << out::fixed<out::Csv>(r.a.max, 3) << "," << out::fixed<out::Csv>(r.b.median, 3) << ","
      << out::fixed<out::Csv>(r.b.min, 3) << "," << out::fixed<out::Csv>(r.b.max, 3) << ","
      << out::fixed<out::Csv>(r.ratio, 4) << "," << out::csv_field(r.change) << ",ok,ok" << versions
      << "\n";
  }
  // The cases not compared, with no figures: the CSV left them out without a trace (an audit).
  const std::pair<const std::vector<UnmatchedCase>*, const char*> lists[] = {
      {&c.lost_in_b, "lost-in-b"},
      {&c.only_in_a, "only-in-a"},
      {&c.only_in_b, "only-in-b"},
      {&c.in_neither, "in-neither"}};
  for (const auto& [list, change] : lists) {
    for (const auto& u : *list) {
      w << out::csv_field(u.variant.empty() ? u.method : u.method + " " + u.variant) << ","
        << out::csv_field(u.pair) << "," << out::csv_field(u.gpu_pair) << "," << u.bytes
        << ",,,,,,,,," << out::csv_field(change) << "," << out::csv_field(u.a_status) << ","
        << out::csv_field(u.b_status) << versions << "\n";
    }
  }
  return w.str();
}

}  // namespace

void keep_changed_series(svg::LineChart& c, double band) {
  const auto change = [](const svg::Series& s) {
    double most = 0;
    for (const auto& p : s.points) most = std::max(most, std::abs(p.y - 1));
    return most;
  };
  std::stable_sort(
      c.series.begin(), c.series.end(),
      [&](const svg::Series& a, const svg::Series& b) { return change(a) > change(b); });
  if (c.series.size() <= svg::kMaxSeries) return;
  std::size_t keep = svg::kMaxSeries;
  while (keep < c.series.size() && change(c.series[keep]) > band) ++keep;
  std::vector<std::string> left;
  for (std::size_t i = keep; i < c.series.size(); ++i) left.push_back(c.series[i].name);
  c.series.resize(keep);
  if (!left.empty())
    c.note =
        "Not drawn, inside the band at every point (the tables have them): " + join(left, ", ") +
        ".";
  if (keep > svg::kMaxSeries)
    c.note +=
        std::string(c.note.empty() ? "" : " ") + "The largest changes are in the first panel.";
}

std::string noise_band_label(double threshold) {
  return "inside \u00b1" + format_fixed(100 * threshold, 1) +
         " % (--threshold): no change is called there";
}

std::string median_range(const Stats& s) {
  // One precision for all three: "0.67 [0.7-0.7]" put the median outside its own range.
  const int places = s.median < 100 ? 2 : 1;
  return format_fixed(s.median, places) + " [" + format_fixed(s.min, places) + "-" +
         format_fixed(s.max, places) + "]";
}

namespace {

Section results_section(const Comparison& c) {
  Section s;
  s.title = "Results (B/A of the median; bandwidth: higher is better, latency: lower is better)";
  s.table.columns = {"method",
                     "pair",
                     Column::number("size"),
                     "metric",
                     Column::number("A median [min-max]"),
                     Column::number("B median [min-max]"),
                     Column::number("B/A", "", Better::kHigher),
                     "change"};
  s.table.key_columns = 3;
  for (const auto& r : c.rows) {
    const bool failing = r.change == "regression" || r.change == "data-errors";
    if (failing) s.table.marked.push_back(static_cast<int>(s.table.rows.size()));
    s.table.rows.push_back(
        {r.method, r.pair, format_size_label(r.bytes), metric_label(r.metric), median_range(r.a),
         median_range(r.b), format_fixed(r.ratio, 3),
         failing ? (r.change == "regression" ? "REGRESSION" : "DATA-ERRORS") : r.change});
  }
  return s;
}

// "1 MiB-1 GiB (11 sizes)", "64 MiB".
std::string size_range(const std::set<std::uint64_t>& sizes) {
  if (sizes.empty()) return "";
  if (sizes.size() == 1) return format_size(*sizes.begin());
  return format_size(*sizes.begin()) + "-" + format_size(*sizes.rbegin()) + " (" +
         std::to_string(sizes.size()) + " sizes)";
}

// "0->1, 1->0", or past six "0->1, 0->2, 0->3, 0->4 and 52 more pairs".
std::string some_pairs(const std::vector<std::string>& pairs) {
  if (pairs.size() <= 6) return join(pairs, ", ");
  return join(std::vector<std::string>(pairs.begin(), pairs.begin() + 4), ", ") + " and " +
         std::to_string(pairs.size() - 4) + " more pairs";
}

// B/A against size, a line per bandwidth method (its worst pair at each size), the methods that
// changed most first; past eight, panels of eight (svg::line_panels).
svg::LineChart change_chart(const Comparison& c, const CompareOptions& o) {
  svg::LineChart chart;
  // Bandwidth methods only: latency's few bytes would squeeze every other size into a corner
  // of the axis (its rows are in the table).
  chart.title = "B/A per bandwidth method against size (its worst pair at each size)";
  chart.x_label = "transfer size (bytes, log-2 scale)";
  chart.y_label = "B / A (under 1: B is slower)";
  chart.decimals = 3;
  chart.reference = 1.0;
  chart.reference_label = "no change";
  chart.band = o.threshold;
  chart.band_label = noise_band_label(o.threshold);
  std::map<std::string, std::map<std::uint64_t, std::vector<double>>> by_method;
  for (const auto& r : c.rows) {
    // A bandwidth method's rows at latency sizes compare times: at one size A/B of the time is
    // B/A of the bandwidth, so the curve runs on from 8 B with under 1 still slower.
    if (r.ratio > 0 && !r.latency_method)
      by_method[r.method][r.bytes].push_back(r.lower_is_better ? 1 / r.ratio : r.ratio);
  }
  for (auto& [method, sizes] : by_method) {
    svg::Series s{method, {}};
    for (auto& [bytes, ratios] : sizes) {
      // The worst pair: a regression on one pair of many must not vanish in a median.
      s.points.push_back(
          {static_cast<double>(bytes), *std::min_element(ratios.begin(), ratios.end()), ""});
    }
    chart.series.push_back(std::move(s));
  }
  keep_changed_series(chart, o.threshold);
  return chart;
}

// Cases of one method and one pair of statuses, by pair: "ce-write 0->1, 1->0: 1 MiB-1 GiB (11
// sizes) (A: ok, B: absent)". One line per case made 68 lines of one cut sweep (an audit).
std::vector<std::string> grouped_cases(const std::vector<UnmatchedCase>& cases, const RunNames& n) {
  using Key = std::tuple<std::string, std::string, std::string>;  // method, A's, B's status
  std::vector<Key> order;
  std::map<Key, std::map<std::string, std::set<std::uint64_t>>> sizes;  // -> pair -> sizes
  std::map<Key, std::vector<std::string>> pairs_in_order;
  for (const auto& u : cases) {
    const Key k{u.variant.empty() ? u.method : u.method + " " + u.variant, u.a_status, u.b_status};
    if (!sizes.count(k)) order.push_back(k);
    const std::string pair = u.pair.empty() || u.pair == "all" ? u.gpu_pair : u.pair;
    if (!sizes[k].count(pair)) pairs_in_order[k].push_back(pair);
    sizes[k][pair].insert(u.bytes);
  }
  std::vector<std::string> lines;
  for (const auto& k : order) {
    // Pairs with the same sizes share a line.
    std::vector<std::pair<std::set<std::uint64_t>, std::vector<std::string>>> by_sizes;
    for (const auto& pair : pairs_in_order[k]) {
      const auto& these = sizes[k][pair];
      auto it = std::find_if(by_sizes.begin(), by_sizes.end(),
                             [&](const auto& b) { return b.first == these; });
      if (it == by_sizes.end()) {
        by_sizes.push_back({these, {pair}});
      } else {
        it->second.push_back(pair);
      }
    }
    for (const auto& [set, pairs] : by_sizes) {
      lines.push_back(std::get<0>(k) + " " + some_pairs(pairs) + ": " + size_range(set) + " (" +
                      n.a + ": " + std::get<1>(k) + ", " + n.b + ": " + std::get<2>(k) + ")");
    }
  }
  return lines;
}

}  // namespace

std::vector<std::string> comparison_notes(const Comparison& c, const CompareOptions& o,
                                          const RunNames& n) {
  std::vector<std::string> notes;
  const std::string beyond = " beyond " + format_fixed(100 * o.threshold, 1) + "%";
  if (!c.other_hosts.empty())
    notes.push_back("the runs are of other hosts (" + n.a + ": " + c.hosts_a + "; " + n.b + ": " +
                    c.hosts_b + "): GPUs matched by position, host0 being each run's first host");
  if (c.min_max_inconclusive)
    notes.push_back(std::to_string(c.min_max_inconclusive) + beyond +
                    " but inside min-max ranges (fewer than 4 per-sample times: a file of "
                    "schema 1-3, or -s under 4): inconclusive; measure again with -s 4 or more");
  if (c.data_errors)
    notes.push_back(std::to_string(c.data_errors) + (c.data_errors == 1 ? " case" : " cases") +
                    " where " + n.b + " delivered wrong data");
  if (!c.burn_in_in_b.empty())
    notes.push_back(std::to_string(c.burn_in_in_b.size()) + " burn-in finding" +
                    (c.burn_in_in_b.size() == 1 ? "" : "s") + " in " + n.b + " (Burn-in in " + n.b +
                    ")");
  // Rows left uncompared are counted beside, so "0 regressions" never stands for "nothing seen".
  if (c.untrusted)
    notes.push_back(std::to_string(c.untrusted) +
                    " not compared: another job or held clocks in either run (contended, "
                    "throttled)");
  if (c.other_settings)
    notes.push_back(std::to_string(c.other_settings) +
                    " not compared: measured under other settings (other-settings; see What "
                    "differs)");
  return notes;
}

std::vector<std::string> unmatched_notes(const Comparison& c, const RunNames& n) {
  std::vector<std::string> notes;
  if (!c.lost_in_b.empty())
    notes.push_back(std::to_string(c.lost_in_b.size()) + " measured in " + n.a + " and lost in " +
                    n.b + " (" + n.b +
                    " asked for them, or stopped before them, and did not "
                    "measure them)");
  if (!c.only_in_a.empty())
    notes.push_back(std::to_string(c.only_in_a.size()) + " measured in " + n.a + " that " + n.b +
                    " did not ask for: not compared");
  if (!c.only_in_b.empty())
    notes.push_back(std::to_string(c.only_in_b.size()) + " measured in " + n.b +
                    " alone: not compared (Only in " + n.b + ")");
  return notes;
}

namespace {

SectionDocument comparison_document(const Comparison& c, const std::string& a_name,
                                    const std::string& b_name, const CompareOptions& o) {
  SectionDocument d;
  d.title = "peerbench compare";
  const int compared = static_cast<int>(c.rows.size()) - c.other_settings - c.untrusted;
  d.verdict = count_of(c.regressions, "regression") + ", " +
              count_of(c.improvements, "improvement") + " beyond " +
              format_fixed(100 * o.threshold, 1) +
              "% with separated samples (interquartile ranges from 4 samples, else min-max), " +
              std::to_string(compared) + " compared";
  for (const auto& note : comparison_notes(c, o, {"A", "B"})) d.verdict += "; " + note;
  for (const auto& note : unmatched_notes(c, {"A", "B"})) d.verdict += "; " + note;
  d.failed = comparison_exit_code(c, o) != kExitOk;
  // An improvement fails under --fail-on any alone: "0 regressions, 12 improvements" stood over
  // exit 1 with no word why (an audit).
  if (d.failed && o.fail_on == "any" && c.improvements)
    d.verdict += "; exit 1: --fail-on any counts the improvements too";
  // Not green either: 40 regressions read as a clean page under --fail-on none (a doc check).
  if (waived_by_fail_on(c, o)) {
    d.verdict += "; " + kWaivedNote;
    d.failed = true;
  }
  d.sections.push_back({"Runs", {"A (baseline): " + a_name, "B (candidate): " + b_name}, {}, {}});
  d.sections.push_back(
      {"What differs",
       c.differences.empty() ? std::vector<std::string>{"nothing recorded"} : c.differences,
       {},
       {}});
  if (!c.burn_in_in_b.empty())
    d.sections.push_back({"Burn-in in B (fails the comparison)", c.burn_in_in_b, {}, {}});
  d.sections.push_back(results_section(c));
  if (o.format == ReportFormat::kHtml) d.sections.back().charts.push_back(change_chart(c, o));
  auto list = [&](const char* title, const std::vector<UnmatchedCase>& v) {
    if (!v.empty()) d.sections.push_back({title, grouped_cases(v, {"A", "B"}), {}, {}});
  };
  list("Lost in B (measured in A; B asked for it, or stopped before it, and did not measure it)",
       c.lost_in_b);
  list("Only in A (measured in A; B did not ask for it)", c.only_in_a);
  list("Only in B (measured in B, not in A)", c.only_in_b);
  list("Measured in neither", c.in_neither);
  d.no_plots_note = "";
  return d;
}

}  // namespace

std::string render_comparison(const Comparison& c, const std::string& a_name,
                              const std::string& b_name, const CompareOptions& o) {
  switch (o.format) {
    case ReportFormat::kCsv:
      return comparison_csv(c, a_name, b_name);
    case ReportFormat::kMarkdown:
      return render_sections_markdown(comparison_document(c, a_name, b_name, o));
    case ReportFormat::kHtml:
      return render_sections_html(comparison_document(c, a_name, b_name, o));
    case ReportFormat::kText:
      break;
  }
  return render_sections_text(comparison_document(c, a_name, b_name, o));
}

}  // namespace peerbench
