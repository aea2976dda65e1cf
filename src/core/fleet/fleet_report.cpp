#include "core/fleet/fleet_report.h"
#include "core/base/escaped.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/model/gpu_activity.h"
#include "core/model/sizes.h"
#include "core/present/sections.h"

namespace peerbench {
namespace {

std::string value_text(double v, bool lower_is_better) {
  return format_fixed(v, lower_is_better ? 2 : 1);
}

// "; 6 earlier runs of 1 host not counted (...)": said in the verdict itself, since a folder of
// one host's history otherwise reads as a fleet that passed.
std::string earlier_runs_clause(const FleetReport& r) {
  if (r.earlier_runs.empty()) return "";
  std::size_t runs = 0, failing = 0;
  for (const auto& [host, earlier] : r.earlier_runs) {
    runs += earlier.size();
    for (const auto& e : earlier) failing += e.flags > 0 || e.unsettled;
  }
  const std::size_t hosts = r.earlier_runs.size();
  return "; " + std::to_string(runs) + " earlier run" + (runs == 1 ? "" : "s") + " of " +
         std::to_string(hosts) + " host" + (hosts == 1 ? "" : "s") + " not counted" +
         (failing ? " (" + std::to_string(failing) + " of them flagged or incomplete)" : "") +
         ": a fleet counts each host's latest run (a host's history: peerbench compare A.json "
         "B.json C.json ...)";
}

// Whether a node's unsettled pairs ran under clocks held by the hardware (hw-thermal,
// hw-slowdown, power-brake: a cooling or power fault, not another job), not by software.
bool held_by_hardware(const FleetNode& n) {
  for (const auto& p : n.pairs) {
    if (p.state != "throttled" && p.state != "contended") continue;
    for (const auto& r : p.throttle_reasons) {
      if (peerbench::held_by_hardware(r)) return true;
    }
  }
  return false;
}

// Of the incomplete nodes, those held back by another job, held clocks or spread samples: to be
// measured again when idle, which is not the action a cut-short run calls for (audit).
std::string incomplete_kinds(const FleetReport& r) {
  std::map<std::string, int> by;
  for (const auto& n : r.nodes) {
    if (n.state != NodeState::kIncomplete) continue;
    std::set<std::string> states;
    for (const auto& p : n.pairs) states.insert(p.state);
    // Clocks held by the hardware first: beside another job too, it is still a fault (a review).
    if (held_by_hardware(n)) {
      ++by["hardware"];
      continue;
    }
    for (const char* s : {"contended", "throttled", "noisy"}) {
      if (states.count(s)) {
        ++by[s];
        break;
      }
    }
  }
  std::vector<std::string> parts;
  if (by.count("contended"))
    parts.push_back(std::to_string(by["contended"]) + " beside another job");
  if (by.count("throttled")) parts.push_back(std::to_string(by["throttled"]) + " with clocks held");
  if (by.count("noisy")) parts.push_back(std::to_string(by["noisy"]) + " noisy");
  std::string out;
  if (!parts.empty()) out = join(parts, ", ") + ": measure again when idle";
  // A thermal or power slowdown on an idle node is a fault to look at, not a busy node (audit).
  if (by.count("hardware"))
    out += (out.empty() ? "" : "; ") + std::to_string(by["hardware"]) +
           " with clocks held by the hardware: check cooling and power";
  return out.empty() ? "" : " (" + out + ")";
}

// The worst version gap, on the verdict line: the nodes pass, but one version is slower.
std::string version_gap_clause(const FleetReport& r) {
  if (r.version_gaps.empty()) return "";
  const auto more = r.version_gaps.size() - 1;
  return "; versions differ in speed: " + r.version_gaps.front().text() +
         (more ? " (and " + count_of(static_cast<long long>(more), "more group") + ")" : "") +
         ": see Versions";
}

std::string verdict_line(const FleetReport& r) {
  const int n = static_cast<int>(r.nodes.size());
  const std::string unused =
      (r.baseline_unused.empty() ? "" : "; " + r.baseline_unused) + version_gap_clause(r) +
      (r.nodes_sharing_gpus ? "; " + count_of(r.nodes_sharing_gpus, "node") +
                                  " name GPUs another names too (same UUIDs): not independent, "
                                  "see Notes"
                            : std::string());
  if (fleet_exit_code(r) == kExitOk)
    return (n == 1 ? std::string("PASS: 1 node passes")
                   : "PASS: all " + count_of(n, "node") + " pass") +
           earlier_runs_clause(r) + unused;
  return "FAIL: " + std::to_string(r.count(NodeState::kFlagged)) + " flagged, " +
         std::to_string(r.count(NodeState::kIncomplete)) + " incomplete" + incomplete_kinds(r) +
         ", " + std::to_string(r.count(NodeState::kMissing)) + " missing, " +
         std::to_string(r.count(NodeState::kPass)) + " pass, of " + count_of(n, "node") +
         earlier_runs_clause(r) + unused;
}

// Flag codes by count, hardware evidence first: "data-errors x1; off-baseline x20 (...)".
std::string flag_codes_text(const FleetNode& n) {
  std::map<std::string, int> codes;
  for (const auto& p : n.pairs) {
    for (const auto& f : p.flags) codes[f.code]++;
  }
  std::string out;
  for (const FlagKind kind : {FlagKind::kHardware, FlagKind::kPath, FlagKind::kFigure}) {
    std::string these;
    for (const auto& [c, k] : codes) {
      if (flag_kind(c) == kind) these += (these.empty() ? "" : ", ") + c + " x" + std::to_string(k);
    }
    if (!these.empty()) out += (out.empty() ? "" : "; ") + these + " (" + kind_words(kind) + ")";
  }
  return out;
}

// Why an incomplete node is, and what to do: the first of another job, held clocks, spread
// samples, a problem of the run.
std::string incomplete_cause(const FleetNode& n) {
  std::set<std::string> states;
  for (const auto& p : n.pairs) states.insert(p.state);
  if (held_by_hardware(n)) {
    return std::string("clocks held by the hardware (thermal or power)") +
           (states.count("contended") ? ", beside another job too" : "") +
           ": check the node's cooling and power, then measure again";
  }
  if (states.count("contended")) return "ran beside another job; measure again when idle";
  if (states.count("throttled")) return "clocks held; measure again when idle";
  if (states.count("noisy")) return "samples spread too far to judge; measure again";
  return n.problems.empty() ? "not every case was measured" : n.problems.front();
}

std::string node_cause(const FleetNode& n) {
  if (n.state == NodeState::kMissing)
    return "missing: expected (--hosts), no results file names it";
  if (n.state == NodeState::kFlagged) return "flagged: " + flag_codes_text(n);
  return "incomplete: " + incomplete_cause(n);
}

std::string flag_summary(const FleetNode& n) {
  std::map<std::string, int> codes;
  for (const auto& p : n.pairs) {
    for (const auto& f : p.flags) codes[f.code]++;
  }
  std::string s;
  for (const auto& [c, k] : codes) s += (s.empty() ? "" : ", ") + c + " x" + std::to_string(k);
  if (!n.problems.empty()) s += (s.empty() ? "" : ", ") + n.problems.front();
  // Beside another job or under held clocks there is no flag and no problem: the cell was empty.
  if (s.empty() && n.state == NodeState::kIncomplete) s = incomplete_cause(n);
  return s;
}

// One line per node that does not pass, in the table's order, under the verdict (an audit: the
// first screen named no node; they sat 2,000 px down).
constexpr std::size_t kDigestNodes = 10;
std::vector<std::string> node_digest(const FleetReport& r) {
  std::vector<std::string> out;
  std::size_t left = 0;
  for (const auto& n : r.nodes) {
    if (n.state == NodeState::kPass) continue;
    if (out.size() < kDigestNodes) {
      out.push_back(n.host + ": " + node_cause(n));
    } else {
      ++left;
    }
  }
  if (left > 0) out.push_back("... and " + std::to_string(left) + " more not passing: see Nodes");
  return out;
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

// The flags of one method of a pair (`method` ""): those about the pair as a whole (NCCL's
// transport, peer access), which stood on every row of the pair, latency rows too (an audit).
std::string flags_for(const FleetPair& p, const std::string& method) {
  std::string s;
  for (const auto& f : p.flags) {
    if (f.method == method) s += (s.empty() ? "" : ";") + f.code;
  }
  return s;
}

using CsvS = out::Safe<out::Csv>;
CsvS cf(std::string_view s) {
  return out::esc<out::Csv>(s);
}

// Flagged methods with no place in the fleet's groups (judged at a size the fleet did not take,
// or a group too small): their largest measurement, so the flag has a row (an audit: NCCL at
// 0.10 of known-good had none).
std::vector<const Measurement*> flagged_outside_groups(const FleetPair& p) {
  std::vector<const Measurement*> out;
  std::set<std::string> placed, done;
  for (const auto& pos : p.positions) placed.insert(pos.method);
  for (const auto& pos : p.short_positions) placed.insert(pos.method);
  for (const auto& f : p.flags) {
    if (f.method.empty() || placed.count(f.method) || !done.insert(f.method).second) continue;
    const Measurement* largest = nullptr;
    for (const auto& m : p.measurements) {
      if (m.method == f.method && (!largest || m.bytes > largest->bytes)) largest = &m;
    }
    if (largest) out.push_back(largest);
  }
  return out;
}

// A version gap (VersionGap) on a row of `host` at that group and size: which side of it the
// node is on, in words; "" where no gap splits that group.
std::string version_gap_cell(const std::vector<VersionGap>& gaps, const std::string& host,
                             const FleetPair& p, const FleetPosition& pos) {
  for (const auto& g : gaps) {
    if (g.method != pos.method || g.bytes != pos.bytes || g.gpu_model != p.gpu_model ||
        g.link != p.group_of(pos.method))
      continue;
    const std::string pct = format_fixed(100 * g.shortfall, 1) + " %";
    if (g.slow_hosts.count(host))
      return "slower side: " + g.slow + " is " + pct + " behind " + g.fast;
    // The lead is measured from the slower side's figure: 12 % behind is 13.6 % ahead.
    const double lead =
        g.lower_is_better ? 1 - g.fast_median / g.slow_median : g.fast_median / g.slow_median - 1;
    if (g.fast_hosts.count(host))
      return "faster side: " + g.fast + " is " + format_fixed(100 * lead, 1) + " % " +
             (g.lower_is_better ? "quicker than " : "higher than ") + g.slow;
  }
  return "";
}

// One row per pair method placed in the fleet (or flagged outside its groups); a row per method
// of a pair whose state is not a pass, with the reason (another job, held clocks: no figure to
// place; a row without a method where no method is named); a row without a pair per problem of
// the node. Reasons stood
// on every row of a pair, 2 KB each, and a node's problems on none (a review). Every row ends
// with the node's versions and, on a placed figure, the version gap that splits its group.
class FleetCsvReporter : public FleetReporter {
 public:
  std::string render(const FleetReport& r, const std::vector<PlotFile>&) const override {
    out::Writer<out::Csv> o;
    o << "node,state,file,src_pci,dst_pci,gpu_model,link,method,bytes,value,unit,fleet_median,"
         "ratio,outlier,flags,pair_state,pair_flags,reason,driver,cuda,nccl,version_gap,"
         "shares_gpus_with\n";
    for (const auto& n : r.nodes) {
      const Node node{
          cf(n.host) + "," + cf(to_string(n.state)) + "," + cf(n.file) + ",",
          "," + cf(n.versions.driver) + "," + cf(n.versions.cuda) + "," + cf(n.versions.nccl) + ",",
          "," + cf(join({n.shares_gpus_with.begin(), n.shares_gpus_with.end()}, ";")), n.host,
          &r.version_gaps};
      std::size_t rows = 0;
      for (const auto& p : n.pairs) rows += pair_rows(o, node, p);
      for (const auto& problem : n.problems) {
        o << node.head << ",,,,,,,,,,,,,," << cf(problem) << node.versions << node.shared << "\n";
        ++rows;
      }
      // Every node appears, measured or not, with why not.
      if (rows == 0)
        o << node.head << ",,,,,,,,,,,,,," << cf(flag_summary(n)) << node.versions << node.shared
          << "\n";
    }
    return o.str();
  }

 private:
  struct Node {
    CsvS head;      // node,state,file,
    CsvS versions;  // ,driver,cuda,nccl,   (the version_gap cell follows)
    CsvS shared;    // ,shares_gpus_with: the other nodes naming its GPUs, ";" between
    std::string host;
    const std::vector<VersionGap>* gaps;
  };

  static std::size_t pair_rows(out::Writer<out::Csv>& o, const Node& n, const FleetPair& p) {
    const CsvS pair = cf(p.src_pci) + "," + cf(p.dst_pci) + "," + cf(p.gpu_model) + ",";
    const CsvS tail = cf(p.state) + "," + cf(flags_for(p, "")) + ",";
    std::size_t rows = 0;
    for (const auto& pos : p.positions) {
      o << n.head << pair << cf(p.group_of(pos.method)) << "," << cf(pos.method) << "," << pos.bytes
        << "," << out::fixed<out::Csv>(pos.value, 3) << ","
        << cf(fleet_unit(pos.method, pos.lower_is_better)) << ","
        << out::fixed<out::Csv>(pos.fleet_median, 3) << ","
        << out::fixed<out::Csv>(pos.goodness(), 4) << "," << (pos.outlier ? 1 : 0) << ","
        << cf(flags_for(p, pos.method)) << "," << tail << n.versions
        << cf(version_gap_cell(*n.gaps, n.host, p, pos)) << n.shared << "\n";
      ++rows;
    }
    // Short of the group's size: its figure at the largest size it has, against the fleet's
    // there (a node cut at 64 MiB had no row with a figure; an audit).
    for (const auto& pos : p.short_positions) {
      o << n.head << pair << cf(p.group_of(pos.method)) << "," << cf(pos.method) << "," << pos.bytes
        << "," << out::fixed<out::Csv>(pos.value, 3) << ","
        << cf(fleet_unit(pos.method, pos.lower_is_better)) << ","
        << out::fixed<out::Csv>(pos.fleet_median, 3) << ","
        << out::fixed<out::Csv>(pos.goodness(), 4) << ",0," << cf(flags_for(p, pos.method)) << ","
        << tail
        << cf("no figure at the fleet's size " + format_size(pos.fleet_bytes) +
              ": its largest size, beside the fleet's figures there; not judged")
        << n.versions << n.shared << "\n";
      ++rows;
    }
    for (const Measurement* m : flagged_outside_groups(p)) {
      o << n.head << pair << cf(p.group_of(m->method)) << "," << cf(m->method) << "," << m->bytes
        << "," << out::fixed<out::Csv>(m->value, 3) << ","
        << cf(fleet_unit(m->method, m->lower_is_better)) << ",,,," << cf(flags_for(p, m->method))
        << "," << tail << n.versions << n.shared << "\n";
      ++rows;
    }
    // A state's rows name their methods (a row without one was lost to a filter on method).
    for (const auto& [method, reason] : p.note_by_method) {
      o << n.head << pair << cf(p.group_of(method)) << "," << cf(method) << ",,,,,,,"
        << cf(flags_for(p, method)) << "," << tail << cf(reason) << n.versions << n.shared << "\n";
      ++rows;
    }
    if (p.note_by_method.empty() && p.unsettled()) {  // a state no method gave a reason for
      o << n.head << pair << cf(p.link) << ",,,,,,,,," << tail << n.versions << n.shared << "\n";
      ++rows;
    }
    return rows;
  }
};

}  // namespace

std::unique_ptr<FleetReporter> make_junit_reporter();
std::unique_ptr<FleetReporter> make_openmetrics_reporter();

std::unique_ptr<FleetReporter> make_fleet_reporter(FleetFormat f) {
  switch (f) {
    case FleetFormat::kMarkdown:
      return std::make_unique<FleetMarkdownReporter>();
    case FleetFormat::kHtml:
      return std::make_unique<FleetHtmlReporter>();
    case FleetFormat::kCsv:
      return std::make_unique<FleetCsvReporter>();
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
