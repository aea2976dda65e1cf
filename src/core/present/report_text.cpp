// The text report: for a terminal, every string from the file shown escaped.
#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

#include "core/base/escaped.h"
#include "core/base/text.h"
#include "core/judge/verdict.h"
#include "core/model/datatypes.h"
#include "core/model/json_text.h"
#include "core/model/result_index.h"
#include "core/model/sizes.h"
#include "core/present/report.h"
#include "core/present/report_parts.h"
#include "core/present/run_progress.h"
#include "core/present/text_table.h"

namespace peerbench {
namespace {
using namespace report_parts;
using W = out::Writer<out::Term>;
using S = out::Safe<out::Term>;
S e(std::string_view s) {
  return out::esc<out::Term>(s);
}
// A TextTable shows its cells escaped for the terminal (core/text_table.h): it is the layer.
S shown(const TextTable& t) {
  return S::from_code(t.render());
}

class TextReporter : public DocumentReporter {
 public:
  std::string render(const std::vector<ReportInput>& runs,
                     const std::vector<PlotFile>&) const override {
    W o;
    if (const auto all = runs_headline(runs); !all.empty()) o << "Over " << e(all) << "\n\n";
    for (const auto& in : runs) {
      const auto& d = *in.doc;
      const ResultIndex idx(d);
      o << "peerbench report: " << e(in.path) << "\n";
      o << "  run: " << e(system_line(d)) << "\n";
      if (!d.tool.command_line.empty()) o << "  command: " << e(command_line_text(d)) << "\n";
      o << "  environment: " << e(steering_environment_text(d)) << "\n";
      o << "  status " << e(d.status) << ", started " << e(d.started_at) << ", peerbench "
        << e(d.tool.version) << " (" << e(d.tool.git_revision) << ")\n";
      if (d.status != "complete" && d.in_progress.is_object()) {
        o << "  cut short while running: " << e(describe_in_progress(d.in_progress)) << "\n";
      }
      // The verdict on the first screen too: it stood some fifty lines down (an audit).
      o << "  verdict: " << e(run_headline(d, in.verdicts)) << "\n";
      if (!in.failing_why.empty()) o << "  exit 1: " << e(in.failing_why) << "\n";
      if (!in.waived_why.empty()) o << "  waived: " << e(in.waived_why) << "\n";
      if (const auto b = burn_in_summary(d)) o << "  burn-in: " << e(b->headline) << "\n";
      o << "  NCCL transport capture: " << e(d.nccl.mode)
        << (d.nccl.note.empty() ? S() : " (" + e(d.nccl.note) + ")") << "\n\n";
      matrix(o, in, idx);
      host_lines(o, host_table(d, idx, links_of(in.verdicts)));
      all_ranks_lines(o, d);
      cards(o, in.verdicts);
      not_measured(o, d);
      known_good(o, in.verdicts);
      burn_in(o, d);
      interference(o, d);
      verdicts(o, in);
      if (!d.errors.empty()) {
        o << "Errors recorded by the run:\n";
        for (const auto& err : d.errors) o << "  " << e(err) << "\n";
      }
      o << "\nTerms:\n";
      for (const auto& [t, m] : terms_of(d)) o << "  " << e(t) << ": " << e(m) << "\n";
      if (runs.size() > 1) o << "\n";
    }
    return o.str();
  }

 private:
  static void matrix(W& o, const ReportInput& in, const ResultIndex& idx) {
    const auto& d = *in.doc;
    const PairTable pt = pair_table(d, idx, links_of(in.verdicts));
    if (pt.columns.empty()) return;
    o << "Pairs at the largest size (median; " << e(figure_marks_legend(d, "'", " = "))
      << ": not the link's figure):\n";
    std::vector<Align> align{Align::kLeft, Align::kLeft};
    align.insert(align.end(), pt.columns.size(), Align::kRight);
    TextTable t(align);
    std::vector<std::string> names{"pair", "link"};
    std::vector<std::string> units{"", ""};
    for (const auto& c : pt.columns) {
      names.push_back(c.m->name);
      units.push_back(c.unit);
    }
    names.push_back("NCCL transport");
    t.add_row(std::move(names));
    t.add_row(std::move(units));
    for (const auto& r : pt.rows) {
      std::vector<std::string> row{r.pair, r.link};
      row.insert(row.end(), r.cells.begin(), r.cells.end());
      row.push_back(r.transport);
      t.add_row(std::move(row));
    }
    o << shown(t) << "\n";
  }

  static void host_lines(W& o, const HostTable& t) {
    if (t.methods.empty()) return;
    o << "Host <-> GPU at the largest size (copy engine, pinned host memory placed as listed "
         "below; median):\n";
    std::vector<Align> align{Align::kLeft, Align::kLeft, Align::kLeft};
    align.insert(align.end(), t.methods.size(), Align::kRight);
    TextTable table(align);
    std::vector<std::string> names{"rank", "gpu", "link"};
    std::vector<std::string> units{"", "", ""};
    for (std::size_t i = 0; i < t.methods.size(); ++i) {
      names.push_back(t.methods[i]->name);
      units.push_back(t.units[i]);
    }
    table.add_row(std::move(names));
    table.add_row(std::move(units));
    for (const auto& r : t.rows) {
      std::vector<std::string> row{r.rank, r.gpu, r.link};
      row.insert(row.end(), r.cells.begin(), r.cells.end());
      table.add_row(std::move(row));
    }
    o << shown(table);
    for (const auto& s : t.totals) o << "  " << e(s) << "\n";
    for (const auto& s : t.memory) o << "  " << e(s) << "\n";
    o << "\n";
  }

  static void interference(W& o, const RunDocument& d) {
    const auto lines = interference_lines(d);
    if (lines.empty()) return;
    o << "\nBeside another job or under held clocks (those figures are not the links'):\n";
    for (const auto& l : lines) o << "  " << e(l) << "\n";
  }

  // Per size, the median busbw; at latency sizes the time per operation, which the verdict
  // judges there (8 B is 0.0 GB/s, and one rank's busbw is 0 by definition).
  static void all_ranks_lines(W& o, const RunDocument& d) {
    for (const auto* m : methods_in(d, MethodScope::kAllRanks)) {
      for (const auto& v : variants_of(d, m->name)) {
        std::string figures;
        bool timed = false;
        for (const auto& r : d.results) {
          if (r.method != m->name || r.src >= 0 || variant_label(r) != v) continue;
          figures += "  " + format_size_label(r.bytes) + " ";
          if (r.status != ResultStatus::kOk) {
            figures += to_string(r.status);
          } else if (figure_is_time(m, r.bytes)) {
            // The mark on the number, before its unit ("5.66g us", not "5.66 usg").
            figures += format_fixed(figure_value(m, r), 2) + figure_marks(r) + " us";
            timed = true;
          } else {
            figures += format_fixed(headline_value(m, r), 1) + figure_marks(r);
          }
        }
        o << e(m->name + variant_suffix(v)) << " over all ranks (" << e(unit(m)) << ", median"
          << e(timed ? "; us per operation up to " + format_size_compact(kSmallMessageMaxBytes)
                     : std::string())
          << "):" << e(figures) << "\n";
      }
    }
  }

  static void cards(W& o, const std::vector<PairVerdict>& vs) {
    const auto cs = cards_in(vs);
    if (cs.empty()) return;
    o << "\nGPUs (the cards behind the verdicts):\n";
    TextTable t;
    for (const auto& c : cs) {
      t.add_row({"rank " + std::to_string(c.rank),
                 "host " + c.host + ", GPU " + gpu_index_text(c, cs) + ", PCI " + c.pci_bus_id +
                     ", UUID " + c.uuid + ", serial " + serial_text(c)});
    }
    o << shown(t);
  }

  static void not_measured(W& o, const RunDocument& d) {
    const auto um = unmeasured(d);
    if (um.empty()) return;
    o << "\nNot measured:\n";
    for (const auto& u : um) {
      o << "  " << e(u.method) << " " << e(join(u.pairs)) << " (" << u.cases << " case"
        << (u.cases == 1 ? S() : S("s")) << "): " << e(u.status)
        << (u.reason.empty() ? S() : ": " + e(u.reason)) << "\n";
    }
  }

  static void known_good(W& o, const std::vector<PairVerdict>& vs) {
    const auto rows = known_good_rows(vs);
    if (rows.empty()) return;
    o << "\nAgainst known-good figures (measured / known-good; under 1 is worse, latency too):\n";
    TextTable t({Align::kLeft, Align::kLeft, Align::kRight, Align::kLeft});
    for (const auto& r : rows) {
      if (r.expected.empty()) {
        t.add_row({r.pair, r.method, "", r.basis});
      } else {
        t.add_row({r.pair, r.method, r.measured, "= " + r.ratio + " of " + r.basis});
      }
    }
    o << shown(t);
    for (const auto& s : known_good_sources(rows)) o << "  source " << e(s) << "\n";
  }

  static void burn_in(W& o, const RunDocument& d) {
    const auto b = burn_in_summary(d);
    if (!b) return;
    o << "\nBurn-in: " << e(b->headline) << "\n";
    for (const auto& c : b->counters) o << "  error counter grew: " << e(c) << "\n";
    TextTable t({Align::kLeft, Align::kLeft, Align::kRight, Align::kRight, Align::kRight,
                 Align::kRight, Align::kRight, Align::kRight, Align::kLeft, Align::kLeft,
                 Align::kLeft});
    t.add_row({"method", "pair", "size", "cycles", "median", "min-max", "cv", "drift",
               "data errors in", "failed in", "contended in"});
    for (const auto& r : b->rows) {
      t.add_row({r.method, r.pair, r.size, std::to_string(r.cycles), r.median + " " + r.unit,
                 r.range, r.cv, r.drift, r.errors, r.failed, r.contended});
    }
    o << shown(t);
  }

  static void verdicts(W& o, const ReportInput& in) {
    o << "\nVerdicts (thresholds: " << e(in.expectations_source) << "):\n";
    if (!in.bars_used.empty()) o << "  bars: " << e(in.bars_used) << "\n";
    if (!in.recorded.empty()) o << "  recomputed: " << e(in.recorded) << "\n";
    // The pair, link and verdict line up over all verdicts; each verdict's details follow it.
    TextTable heads;
    for (const auto& v : in.verdicts)
      heads.add_row({pair_name(v.src, v.dst), v.link, verdict_word(v.verdict)});
    const auto widths = heads.widths();
    for (const auto& v : in.verdicts) {
      TextTable line;
      line.add_row({pair_name(v.src, v.dst), v.link, verdict_word(v.verdict),
                    v.observed.empty() ? "" : "[" + v.observed + "]"});
      o << S::from_code(line.render("  ", "  ", widths));
      for (const auto& f : v.flags) {
        o << "      " << e(f.code) << ": " << e(f.message) << "\n";
        o << "        evidence: " << e(json_text(f.evidence)) << "\n";
      }
      for (const auto& n : method_notes(v)) {
        o << "      " << e(n.state) << ": " << e(n.method)
          << (n.reason.empty() ? S() : ": " + e(n.reason)) << "\n";
      }
    }
    const auto c = count_verdicts(in.verdicts);
    o << "\nVerdict: " << e(run_headline(*in.doc, in.verdicts)) << "\n";
    // A run whose verdicts all pass still exits 1 under an opt-in state or a cut-short run.
    if (!in.failing_why.empty()) o << "Exit 1: " << e(in.failing_why) << "\n";
    if (!in.waived_why.empty()) o << "Waived: " << e(in.waived_why) << "\n";
    o << "Summary: " << e(verdict_summary(c)) << "\n";
  }
};
// ---------------------------------------------------------------------------------------------

}  // namespace

std::unique_ptr<DocumentReporter> make_text_reporter() {
  return std::make_unique<TextReporter>();
}

}  // namespace peerbench
