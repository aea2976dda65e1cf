#include "core/fleet/fleet_report.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/fleet/fleet_verdict_words.h"
#include "core/model/sizes.h"
#include "core/present/sections.h"

namespace peerbench {
namespace {

using fleet_detail::flag_summary;
using fleet_detail::node_digest;
using fleet_detail::verdict_line;

std::string value_text(double v, bool lower_is_better) {
  return format_fixed(v, lower_is_better ? 2 : 1);
}

// A file name as a shell word: quoted where it holds anything but plain path characters.
std::string shell_word(const std::string& s) {
  const bool plain = !s.empty() && s.find_first_not_of(
                                       "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop"
                                       "qrstuvwxyz0123456789_./-+=:,@") == std::string::npos;
  if (plain) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Per host read more than once: which run counted, which did not, and the command that lays
// them side by side.
Section earlier_runs_section(const FleetReport& r) {
  Section s{"Several runs of one host (only the latest counts)", {}, {}, {}};
  for (const auto& [host, earlier] : r.earlier_runs) {
    std::string counted;
    std::set<std::string> latest;
    for (const auto& n : r.nodes) {
      if (n.host != host) continue;
      counted = n.file;
      latest = node_cases(n);
    }
    std::string command = "peerbench compare";
    std::vector<std::string> files;
    int in_command = 0;
    const auto shares = [](const std::set<std::string>& a, const std::set<std::string>& b) {
      return std::any_of(a.begin(), a.end(), [&](const std::string& c) { return b.count(c) > 0; });
    };
    const std::set<std::string>* first = nullptr;  // the history's run 1: each is compared to it
    for (const auto& e : earlier) {
      // Only runs sharing a case with the latest and with run 1: compare refuses the others.
      if (shares(e.cases, latest) && (!first || shares(e.cases, *first))) {
        if (!first) first = &e.cases;
        command += " " + shell_word(e.file);
        ++in_command;
      }
      files.push_back(e.file + (e.flags       ? " (" + std::to_string(e.flags) + " flags)"
                                : e.unsettled ? " (incomplete)"
                                              : ""));
    }
    command += " " + shell_word(counted);
    s.lines.push_back(host + ": " + std::to_string(earlier.size() + 1) +
                      " runs; counted: " + counted + " (the latest); not counted: " + join(files));
    if (in_command > 0)
      s.lines.push_back(host + "'s history, oldest first" +
                        (in_command < static_cast<int>(earlier.size())
                             ? " (the runs that measured a case the latest did)"
                             : "") +
                        ": " + command);
  }
  return s;
}

// "580.159.04: 30 nodes; 570.86.10: 2 nodes (node005, node006)", naming the nodes of the rarer
// values so the odd ones out can be found.
std::string version_line(const VersionSpread& v) {
  std::size_t most = 0;
  for (const auto& [value, nodes] : v.nodes_by_value) most = std::max(most, nodes.size());
  // A tie has no majority to leave unnamed: only the first of the most common values is.
  std::string unnamed;
  for (const auto& [value, nodes] : v.nodes_by_value) {
    if (nodes.size() == most) {
      unnamed = value;
      break;
    }
  }
  std::string s = v.what + " ";
  bool first = true;
  for (const auto& [value, nodes] : v.nodes_by_value) {
    s +=
        (first ? "" : "; ") + value + ": " + count_of(static_cast<long long>(nodes.size()), "node");
    first = false;
    if (value == unnamed || !v.mixed()) continue;
    std::string names;
    for (std::size_t i = 0; i < nodes.size() && i < 8; ++i) names += (i ? ", " : "") + nodes[i];
    s += " (" + names + (nodes.size() > 8 ? ", ..." : "") + ")";
  }
  return s + (v.mixed() ? "  -- MIXED" : "");
}

Section versions_section(const FleetReport& r) {
  Section s{"Versions", {}, {}, {}};
  for (const auto& v : r.versions) {
    if (!v.nodes_by_value.empty()) s.lines.push_back(version_line(v));
  }
  if (s.lines.empty()) s.lines.push_back("no node reported its versions");
  constexpr std::size_t kGapsListed = 12;
  for (std::size_t i = 0; i < r.version_gaps.size() && i < kGapsListed; ++i)
    s.lines.push_back("speed by version: " + r.version_gaps[i].text());
  if (r.version_gaps.size() > kGapsListed)
    s.lines.push_back(
        "speed by version: and " +
        count_of(static_cast<long long>(r.version_gaps.size() - kGapsListed), "more group"));
  return s;
}

Section groups_section(const FleetReport& r) {
  Section s{"Fleet position (median at the judged size, per GPU model and link)", {}, {}, {}};
  s.table.columns = {"method",
                     "GPU",
                     "link",
                     Column::number("size"),
                     Column::number("pairs"),
                     Column::number("nodes"),
                     Column::number("median"),
                     Column::number("p25-p75"),
                     Column::number("min-max"),
                     "unit"};
  s.table.key_columns = 4;
  for (const auto& g : r.groups) {
    const bool lo = g.lower_is_better;
    s.table.rows.push_back(
        {g.method, g.gpu_model, g.link, format_size_label(g.bytes), std::to_string(g.pairs),
         std::to_string(g.nodes), value_text(g.median, lo),
         value_text(g.p25, lo) + "-" + value_text(g.p75, lo),
         value_text(g.min, lo) + "-" + value_text(g.max, lo),
         fleet_unit(g.method, lo) + (g.judged ? "" : " (too few pairs to judge)")});
  }
  s.lines.push_back("fleet-outlier: a pair more than " +
                    format_fixed(100 * r.outlier_tolerance, 0) +
                    "% worse than its group's median; thresholds from " + r.expectations_source);
  return s;
}

Section nodes_section(const FleetReport& r) {
  Section s{"Nodes, worst first", {}, {}, {}};
  s.table.columns = {"node", "state", Column::number("worst ratio", "", Better::kHigher), "file",
                     "flags and problems"};
  s.lines.push_back(
      "worst ratio: the node's lowest figure against its group's fleet median or its known-good "
      "figure (latency: the inverse), under 1 worse");
  for (std::size_t i = 0; i < r.nodes.size(); ++i) {
    const auto& n = r.nodes[i];
    // A node with no figure beside the fleet's (unreadable, nothing judged) has no ratio: 1.000
    // read as "at the median" (an audit).
    s.table.rows.push_back({n.host, to_string(n.state),
                            n.has_ratio ? format_fixed(n.worst_ratio, 3) : "", n.file,
                            flag_summary(n)});
    if (n.state != NodeState::kPass) s.table.marked.push_back(static_cast<int>(i));
  }
  return s;
}

// A fleet-outlier beside the same method's own bar flag (off-baseline, below-expected, ...) is
// one finding, not two lines of one case (41 lines for one slowed node; an audit). A bar flag of
// the case, not of the pair: asymmetric holds one direction against the other.
bool is_bar_flag(const std::string& code) {
  const FlagInfo* f = find_flag(code);
  return f && f->family == FlagFamily::kBars && f->scope == FlagScope::kCase;
}

bool held_by_a_bar(const FleetPair& p, const std::string& method) {
  return std::any_of(p.flags.begin(), p.flags.end(),
                     [&](const Flag& f) { return f.method == method && is_bar_flag(f.code); });
}

// "; also a fleet outlier: 0.705 of the median", on the bar flag that stands for both.
std::string outlier_too(const FleetPair& p, const Flag& bar_flag) {
  if (bar_flag.method.empty() || !is_bar_flag(bar_flag.code)) return "";
  for (const auto& f : p.flags) {
    if (f.code != "fleet-outlier" || f.method != bar_flag.method) continue;
    const auto ratio = f.evidence.find("ratio");
    return "; also a fleet outlier" +
           (ratio != f.evidence.end() && ratio->is_number()
                ? ": " + format_fixed(ratio->get<double>(), 3) + " of the fleet median"
                : std::string());
  }
  return "";
}

std::vector<std::string> findings_of(const FleetNode& n) {
  std::vector<std::string> out;
  const std::string head =
      n.host + " " + to_string(n.state) + (n.file.empty() ? "" : " (" + n.file + ")");
  for (const auto& p : n.problems) out.push_back(head + ": " + p);
  for (const auto& p : n.pairs) {
    for (const auto& f : p.flags) {
      if (f.code == "fleet-outlier" && held_by_a_bar(p, f.method)) continue;  // said with it
      out.push_back(head + ": " + p.name() + " [" + p.link + "] " + f.code +
                    (f.method.empty() ? "" : " " + f.method) + ": " + f.message +
                    (f.code == "fleet-outlier" ? "" : outlier_too(p, f)));
    }
    if (p.unsettled() && p.flags.empty()) {
      out.push_back(head + ": " + p.name() + " [" + p.link + "] " +
                    (p.state == "incomplete" ? "not measured" : p.state) +
                    (p.note().empty() ? "" : ": " + p.note()));
    }
  }
  return out;
}

// `charts`: draw the fleet's chart (HTML only).
SectionDocument fleet_document(const FleetReport& r, const std::vector<PlotFile>& plots,
                               bool charts) {
  SectionDocument d;
  d.title = "peerbench fleet";
  d.verdict = verdict_line(r);
  d.digest = node_digest(r);
  d.failed = fleet_exit_code(r) != kExitOk;
  // Why, and what to do next, first: nodes grouped by cause (docs/diagnosis.md).
  if (auto causes = fleet_detail::cause_lines(r); !causes.empty())
    d.sections.push_back({"Causes, by node", std::move(causes), {}, {}});
  if (!r.earlier_runs.empty()) d.sections.push_back(earlier_runs_section(r));
  d.sections.push_back(versions_section(r));
  d.sections.push_back(groups_section(r));
  if (charts && !r.groups.empty()) {
    // The chart's own table holds the same groups with their outliers named: one table, not two
    // of the same figures formatted two ways (an audit).
    d.sections.back().charts.push_back(fleet_spread_chart(r));
    d.sections.back().table = {};
  }
  d.sections.push_back(nodes_section(r));
  Section findings{"Findings", {}, {}, {}};
  for (const auto& n : r.nodes) {
    for (auto& l : findings_of(n)) findings.lines.push_back(std::move(l));
  }
  // A version gap is a finding too: "none" stood beside a driver 12 % slower (an audit).
  for (const auto& g : r.version_gaps) findings.lines.push_back("version gap: " + g.text());
  if (findings.lines.empty()) findings.lines.push_back("none");
  d.sections.push_back(findings);
  if (!r.notes.empty()) d.sections.push_back({"Notes", r.notes, {}, {}});
  d.plots = plots;
  d.no_plots_note =
      "No distribution plots: write the fleet as CSV, draw them with scripts/plot_fleet.py "
      "fleet FLEET.csv --out DIR (needs matplotlib) and pass --plots DIR "
      "(scripts/fleet_bundle.sh does all of it).";
  return d;
}

class FleetTextReporter : public FleetReporter {
 public:
  std::string render(const FleetReport& r, const std::vector<PlotFile>&) const override {
    return render_sections_text(fleet_document(r, {}, false));
  }
};

class FleetMarkdownReporter : public FleetReporter {
 public:
  std::string render(const FleetReport& r, const std::vector<PlotFile>& plots) const override {
    return render_sections_markdown(fleet_document(r, plots, false));
  }
};

class FleetHtmlReporter : public FleetReporter {
 public:
  std::string render(const FleetReport& r, const std::vector<PlotFile>& plots) const override {
    return render_sections_html(fleet_document(r, plots, true));
  }
};

}  // namespace

std::unique_ptr<FleetReporter> make_junit_reporter();
std::unique_ptr<FleetReporter> make_openmetrics_reporter();
std::unique_ptr<FleetReporter> make_csv_reporter();

std::unique_ptr<FleetReporter> make_fleet_reporter(FleetFormat f) {
  switch (f) {
    case FleetFormat::kMarkdown:
      return std::make_unique<FleetMarkdownReporter>();
    case FleetFormat::kHtml:
      return std::make_unique<FleetHtmlReporter>();
    case FleetFormat::kCsv:
      return make_csv_reporter();
    case FleetFormat::kJunit:
      return make_junit_reporter();
    case FleetFormat::kOpenMetrics:
      return make_openmetrics_reporter();
    case FleetFormat::kText:
      break;
  }
  return std::make_unique<FleetTextReporter>();
}

FleetFormat parse_fleet_format(const std::string& v) {
  if (v == "text") return FleetFormat::kText;
  if (v == "markdown" || v == "md") return FleetFormat::kMarkdown;
  if (v == "html") return FleetFormat::kHtml;
  if (v == "csv") return FleetFormat::kCsv;
  if (v == "junit") return FleetFormat::kJunit;
  if (v == "openmetrics") return FleetFormat::kOpenMetrics;
  throw UsageError("--format: '" + v +
                   "' is not a fleet format; use text, markdown, html, csv, junit or openmetrics");
}

}  // namespace peerbench
