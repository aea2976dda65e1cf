#include "core/present/history.h"
#include "core/base/escaped.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "core/base/text.h"
#include "core/model/sizes.h"
#include "core/model/versions.h"
#include "core/present/sections.h"

namespace peerbench {
namespace {

// The version fields a heading can show, per run.
std::vector<std::pair<std::string, std::string>> versions(const RunDocument& d) {
  return {{"driver", d.system.driver_version},
          {"CUDA", format_cuda_version(d.system.cuda_driver_version)},
          {"CUDA runtime", format_cuda_version(d.system.cuda_runtime_version)},
          {"NCCL", d.system.nccl_version},
          {"peerbench", d.tool.version + " " + d.tool.git_revision}};
}

// Per run: its number and the versions that differ between the runs.
std::vector<std::string> version_columns(const std::vector<RunDocument>& runs) {
  std::vector<std::vector<std::pair<std::string, std::string>>> v;
  for (const auto& r : runs) v.push_back(versions(r));
  std::vector<bool> differs(v.front().size(), false);
  for (const auto& run : v) {
    for (std::size_t f = 0; f < run.size(); ++f)
      differs[f] = differs[f] || run[f].second != v.front()[f].second;
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    std::string changed;
    for (std::size_t f = 0; f < v[i].size(); ++f) {
      if (differs[f])
        changed += (changed.empty() ? "" : ", ") + v[i][f].first + " " + v[i][f].second;
    }
    out.push_back(std::to_string(i + 1) + (changed.empty() ? "" : " (" + changed + ")"));
  }
  return out;
}

using RowKey = std::tuple<std::string, std::string, std::uint64_t>;  // method, GPU pair, size

// A case run 1 and run k did not both measure: run 1's figure where it has one (the table dropped
// it), run k's where only it has one, else what became of the case.
void add_unmatched_cells(std::map<RowKey, HistoryRow>& rows, std::size_t k, std::size_t runs,
                         const std::string& change, const UnmatchedCase& u) {
  const std::string method = u.variant.empty() ? u.method : u.method + " " + u.variant;
  auto& row = rows[{method, u.gpu_pair, u.bytes}];
  if (row.cells.empty()) {
    row = {method, u.pair, u.gpu_pair, u.bytes, u.lower_is_better, u.metric, {}};
    row.cells.resize(runs);
  }
  if (u.a_figure && !row.cells[0].present) row.cells[0] = {true, *u.a_figure, 1.0, ""};
  if (u.b_figure) {
    row.cells[k] = {true, *u.b_figure, 0, change};
  } else {
    row.cells[k].change = change == "only-in-run-1" ? "not asked" : change;
  }
}

// Lays one comparison (first run against run k) into the rows.
void add_comparison(History& h, std::map<RowKey, HistoryRow>& rows, std::size_t k, std::size_t runs,
                    const Comparison& c) {
  for (const auto& cr : c.rows) {
    auto& row = rows[{cr.method, cr.gpu_pair, cr.bytes}];
    if (row.cells.empty() || row.metric.empty()) {
      auto cells = std::move(row.cells);
      row = {cr.method, cr.pair, cr.gpu_pair, cr.bytes, cr.lower_is_better, cr.metric, {}};
      row.cells = std::move(cells);
      row.cells.resize(runs);
    }
    if (!row.cells[0].present) row.cells[0] = {true, cr.a, 1.0, ""};
    row.cells[k] = {true, cr.b, cr.ratio, cr.change};
  }
  h.regressions[k] = c.regressions;
  h.improvements[k] = c.improvements;
  h.lost[k] = static_cast<int>(c.lost_in_b.size());
  for (const auto& d : c.differences)
    h.differences.push_back("run " + std::to_string(k + 1) + ": " + d);
  const std::pair<const std::vector<UnmatchedCase>*, const char*> lists[] = {
      {&c.lost_in_b, "lost"},
      {&c.only_in_a, "only-in-run-1"},
      {&c.only_in_b, "only-in-this-run"},
      {&c.in_neither, "in-neither"}};
  for (const auto& [list, change] : lists) {
    for (const auto& u : *list) {
      h.unmatched.push_back({k, change, u});
      add_unmatched_cells(rows, k, runs, change, u);
    }
  }
  const std::size_t missing = c.lost_in_b.size() + c.only_in_a.size() + c.only_in_b.size();
  if (missing) {
    h.only_some.push_back(
        "run " + std::to_string(k + 1) + ": " +
        (c.lost_in_b.empty() ? std::string()
                             : std::to_string(c.lost_in_b.size()) +
                                   " measured in run 1 and lost (" + "asked for, not measured), ") +
        std::to_string(c.only_in_a.size()) + " results only in run 1, " +
        std::to_string(c.only_in_b.size()) + " only in run " + std::to_string(k + 1));
  }
}

// What comparison k leaves unsaid, in words per run and counted for the headline (a history of
// three nodes' runs had matched GPUs by position with no word of it; an audit).
void add_cautions(History& h, std::size_t k, const Comparison& c, const CompareOptions& o) {
  const std::string run = "run " + std::to_string(k + 1);
  for (const auto& note : comparison_notes(c, o, {"run 1", run}))
    h.cautions.push_back(run + ": " + note);
  if (!c.other_hosts.empty()) h.other_hosts.push_back(k);
  h.min_max_inconclusive += c.min_max_inconclusive;
  h.data_errors += c.data_errors;
  h.burn_in_findings += static_cast<int>(c.burn_in_in_b.size());
  h.untrusted += c.untrusted;
  h.other_settings += c.other_settings;
}

}  // namespace

History build_history(const std::vector<RunDocument>& runs, const std::vector<std::string>& files,
                      const CompareOptions& o) {
  History h;
  h.files = files;
  h.columns = version_columns(runs);
  for (const auto& r : runs) {
    h.versions.push_back(run_versions(r));
    h.hosts.push_back(join(r.system.hosts, " "));
  }
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto space = h.columns[i].find(' ');
    h.headings.push_back(std::to_string(i + 1) + ": " + files[i] +
                         (space == std::string::npos ? "" : h.columns[i].substr(space)));
  }
  h.regressions.assign(runs.size(), 0);
  h.improvements.assign(runs.size(), 0);
  h.lost.assign(runs.size(), 0);
  std::map<RowKey, HistoryRow> rows;
  for (std::size_t k = 1; k < runs.size(); ++k) {
    const Comparison c = compare_runs(runs[0], files[0], runs[k], files[k], o);
    add_comparison(h, rows, k, runs.size(), c);
    add_cautions(h, k, c, o);
    h.exit_code = std::max(h.exit_code, comparison_exit_code(c, o));
    h.waived = h.waived || waived_by_fail_on(c, o);
  }
  for (auto& [key, row] : rows) h.rows.push_back(std::move(row));
  return h;
}

namespace {

std::string cell_text(const HistoryCell& c, bool first) {
  // A case a run lost says so: a bare "-" read as "not asked for" (an audit).
  if (!c.present) return c.change == "lost" ? "LOST" : c.change.empty() ? "-" : c.change;
  std::string s = median_range(c.stats);
  if (first) return s;
  if (c.change == "only-in-this-run") return s + " (not in run 1)";
  const double pct = 100 * (c.ratio - 1);
  s += " " + std::string(pct >= 0 ? "+" : "") + format_fixed(pct, 1) + "%";
  // Every change but "same" and "within-noise" is said: other-settings, contended and throttled
  // cells were not compared, and a bare percentage read as a change (review).
  if (c.change != "same" && c.change != "within-noise") s += " " + c.change;
  return s;
}

Section method_section(const History& h, const std::string& method) {
  Section s;
  Table& t = s.table;
  t.columns = {"pair", "GPUs", Column::number("size")};
  for (const auto& column : h.columns) t.columns.push_back(Column::number(column));
  t.key_columns = 3;
  // A bandwidth method swept from 8 B compares times at latency sizes and GB/s above them.
  std::string timed, rated;
  for (const auto& row : h.rows) {
    if (row.method != method) continue;
    if (row.lower_is_better) {
      timed = "time us, lower is better";
    } else {
      rated = row.metric == "busbw_gbps" ? "busbw GB/s, higher is better"
                                         : "algbw GB/s, higher is better";
    }
  }
  s.title = method + " (" +
            (timed.empty() || rated.empty() ? timed + rated
                                            : timed + " at latency sizes; " + rated + " above") +
            ")";
  for (const auto& row : h.rows) {
    if (row.method != method) continue;
    std::vector<Cell> cells{row.pair, row.gpu_pair, format_size_label(row.bytes)};
    bool regression = false;
    for (std::size_t k = 0; k < row.cells.size(); ++k) {
      cells.push_back(cell_text(row.cells[k], k == 0));
      regression =
          regression || row.cells[k].change == "regression" || row.cells[k].change == "data-errors";
    }
    if (regression) t.marked.push_back(static_cast<int>(t.rows.size()));
    t.rows.push_back(std::move(cells));
  }
  return s;
}

// One method across the runs: each run at the largest size it shares with run 1 (a run that
// stopped at 64 MiB had no point at run 1's 1 GiB, and its 10x NCCL regression no line; audit).

svg::Series method_series(const History& h, const std::string& method) {
  svg::Series s{method, {}};
  std::set<std::uint64_t> sizes_used;
  for (std::size_t k = 0; k < h.files.size(); ++k) {
    std::uint64_t shared = 0;
    for (const auto& r : h.rows) {
      if (r.method == method && r.cells[0].present && r.cells[k].present && r.cells[k].ratio > 0)
        shared = std::max(shared, r.bytes);
    }
    if (!shared) continue;
    std::vector<double> ratios;
    for (const auto& r : h.rows) {
      if (r.method != method || r.bytes != shared || !r.cells[k].present) continue;
      const double ratio = r.cells[k].ratio;
      if (ratio > 0) ratios.push_back(r.lower_is_better ? 1 / ratio : ratio);
    }
    if (ratios.empty()) continue;
    sizes_used.insert(shared);
    s.points.push_back({static_cast<double>(k), *std::min_element(ratios.begin(), ratios.end()),
                        "@ " + format_size_label(shared)});
  }
  if (sizes_used.size() == 1) s.name += " @ " + format_size_label(*sizes_used.begin());
  return s;
}

// Each method against run 1 at the largest size both measured: its worst pair's change, run by
// run (latency turned over, so under 1 is worse everywhere).
svg::LineChart history_chart(const History& h, double threshold) {
  svg::LineChart c;
  c.title = "Each method against run 1, at the largest size both measured (its worst pair)";
  c.x_label = "run (the table beside it names each run's versions)";
  c.y_label = "figure / run 1's (latency: run 1's / figure)";
  c.decimals = 3;
  c.reference = 1.0;
  c.reference_label = "run 1";
  for (std::size_t k = 0; k < h.files.size(); ++k) {
    c.categories.push_back(h.columns[k]);
    c.category_ticks.push_back("run " + std::to_string(k + 1));
  }
  std::vector<std::string> methods;
  for (const auto& r : h.rows) {
    if (std::find(methods.begin(), methods.end(), r.method) == methods.end())
      methods.push_back(r.method);
  }
  for (const auto& method : methods) c.series.push_back(method_series(h, method));
  c.band = threshold;
  c.band_label = noise_band_label(threshold);
  keep_changed_series(c, threshold);
  return c;
}

// The headline's share of the cautions: each kind counted over the later runs, the runs on other
// hosts named; the words per run are in Read with care.
std::string history_caution_counts(const History& h) {
  std::string s;
  if (!h.other_hosts.empty()) {
    std::string runs;
    for (auto k : h.other_hosts) runs += (runs.empty() ? "" : ", ") + std::to_string(k + 1);
    s += "; run" + std::string(h.other_hosts.size() == 1 ? " " : "s ") + runs +
         " ran on other hosts than run 1: GPUs matched by position";
  }
  const std::pair<int, const char*> counts[] = {
      {h.burn_in_findings, " burn-in findings in later runs"},
      {h.min_max_inconclusive, " inconclusive (inside min-max ranges)"},
      {h.untrusted, " not compared (contended, throttled)"},
      {h.other_settings, " not compared (other settings)"}};
  if (h.data_errors)
    s += "; " + count_of(h.data_errors, "case") + " with wrong data in a later run";
  for (const auto& [n, what] : counts) {
    if (n) s += "; " + std::to_string(n) + what;
  }
  return s.empty() ? s : s + " (see Read with care)";
}

SectionDocument history_document(const History& h, const CompareOptions& o,
                                 const std::vector<PlotFile>& plots) {
  SectionDocument d;
  d.title = "peerbench compare: " + std::to_string(h.files.size()) + " runs against the first";
  int reg = 0, imp = 0, lost = 0;
  for (std::size_t k = 1; k < h.files.size(); ++k) {
    reg += h.regressions[k];
    imp += h.improvements[k];
    lost += h.lost[k];
  }
  d.verdict = std::to_string(reg) + " regressions, " + std::to_string(imp) +
              " improvements beyond " + format_fixed(100 * o.threshold, 1) +
              "% with separated samples (interquartile ranges from 4 samples, else min-max; cells: "
              "median [min-max], change to run 1)";
  // A history that fails on lost cases alone read "0 regressions" above its exit 1 (a review).
  if (lost)
    d.verdict += "; " + std::to_string(lost) + (lost == 1 ? " case" : " cases") +
                 " of run 1 lost in later runs (see Not in every run)";
  // Cases one run measured and the other did not ask for: not compared, counted as two-run
  // compare counts them (88 "not asked" cells stood under Not in every run alone; an audit).
  const auto one_sided =
      std::count_if(h.unmatched.begin(), h.unmatched.end(),
                    [](const HistoryUnmatched& u) { return u.change != "lost"; });
  if (one_sided)
    d.verdict += "; " + std::to_string(one_sided) +
                 " measured in one of a pair of runs alone: not compared (see Not in every run)";
  d.verdict += history_caution_counts(h);
  d.failed = h.exit_code != 0;
  if (d.failed && o.fail_on == "any" && imp)
    d.verdict += "; exit 1: --fail-on any counts the improvements too";
  if (h.waived) {
    d.verdict += "; " + kWaivedNote;
    d.failed = true;  // not green (the page's colour, not the exit code)
  }
  d.sections.push_back({"Runs", h.headings, {}, {}});
  if (!h.cautions.empty()) d.sections.push_back({"Read with care", h.cautions, {}, {}});
  d.sections.push_back(
      {"What differs from run 1",
       h.differences.empty() ? std::vector<std::string>{"nothing recorded"} : h.differences,
       {},
       {}});
  if (o.format == ReportFormat::kHtml && !h.rows.empty())
    d.sections.push_back({"Against run 1", {}, {}, {history_chart(h, o.threshold)}});
  std::vector<std::string> methods;
  for (const auto& r : h.rows) {
    if (std::find(methods.begin(), methods.end(), r.method) == methods.end())
      methods.push_back(r.method);
  }
  for (const auto& m : methods) d.sections.push_back(method_section(h, m));
  if (!h.only_some.empty()) d.sections.push_back({"Not in every run", h.only_some, {}, {}});
  d.plots = plots;
  d.no_plots_note =
      "No plots: write this comparison as CSV, draw them with scripts/plot_fleet.py history "
      "HISTORY.csv --out DIR (needs matplotlib) and pass --plots DIR.";
  return d;
}

using CsvS = out::Safe<out::Csv>;
std::string history_csv(const History& h) {
  out::Writer<out::Csv> o;
  o << "method,pair,gpu_pair,bytes,metric,run,file,median,min,max,ratio_to_first,change,"
       "first_status,status,driver,cuda,nccl,hosts\n";
  // Which node a row's run measured, as compare's a_hosts/b_hosts (rows of runs of several
  // nodes did not say which was slow).
  const auto versions = [&](std::size_t k) {
    const RunVersions& v = h.versions[k];
    return "," + out::csv_field(v.driver) + "," + out::csv_field(v.cuda) + "," +
           out::csv_field(v.nccl) + "," + out::csv_field(h.hosts[k]);
  };
  for (const auto& r : h.rows) {
    for (std::size_t k = 0; k < r.cells.size(); ++k) {
      const auto& c = r.cells[k];
      // Compared cells here; the cases two runs did not both measure follow, with statuses.
      if (!c.present || (k > 0 && c.change == "only-in-this-run")) continue;
      o << out::csv_field(r.method) << "," << out::csv_field(r.pair) << ","
        << out::csv_field(r.gpu_pair) << "," << r.bytes << "," << out::csv_field(r.metric) << ","
        << k + 1 << "," << out::csv_field(h.files[k]) << ","
        << out::fixed<out::Csv>(c.stats.median, 3) << "," << out::fixed<out::Csv>(c.stats.min, 3)
        << "," << out::fixed<out::Csv>(c.stats.max, 3) << "," << out::fixed<out::Csv>(c.ratio, 4)
        << "," << (k == 0 ? CsvS("baseline") : out::csv_field(c.change)) << ",ok,ok" << versions(k)
        << "\n";
    }
  }
  // The CSV dropped them (an audit): the later run's figure where only it has one.
  for (const auto& m : h.unmatched) {
    const auto& u = m.c;
    o << out::csv_field(u.variant.empty() ? u.method : u.method + " " + u.variant) << ","
      << out::csv_field(u.pair) << "," << out::csv_field(u.gpu_pair) << "," << u.bytes << ","
      << out::csv_field(u.metric) << "," << m.run + 1 << "," << out::csv_field(h.files[m.run])
      << ",";
    if (u.b_figure) {
      o << out::fixed<out::Csv>(u.b_figure->median, 3) << ","
        << out::fixed<out::Csv>(u.b_figure->min, 3) << ","
        << out::fixed<out::Csv>(u.b_figure->max, 3);
    } else {
      o << ",,";
    }
    o << ",," << out::csv_field(m.change) << "," << out::csv_field(u.a_status) << ","
      << out::csv_field(u.b_status) << versions(m.run) << "\n";
  }
  return o.str();
}

}  // namespace

std::string render_history(const History& h, const CompareOptions& o,
                           const std::vector<PlotFile>& plots) {
  switch (o.format) {
    case ReportFormat::kCsv:
      return history_csv(h);
    case ReportFormat::kMarkdown:
      return render_sections_markdown(history_document(h, o, plots));
    case ReportFormat::kHtml:
      return render_sections_html(history_document(h, o, plots));
    case ReportFormat::kText:
      break;
  }
  return render_sections_text(history_document(h, o, {}));
}

}  // namespace peerbench
