// The text report: for a terminal, every string from the file shown escaped.
#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

#include "core/datatypes.h"
#include "core/report.h"
#include "core/report_parts.h"
#include "core/result_index.h"
#include "core/run_progress.h"
#include "core/sizes.h"
#include "core/text.h"
#include "core/text_table.h"
#include "core/verdict.h"

namespace peerbench {
namespace {
using namespace report_parts;

class TextReporter : public DocumentReporter {
 public:
  std::string render(const std::vector<ReportInput>& runs,
                     const std::vector<PlotFile>&) const override {
    std::ostringstream o;
    for (const auto& in : runs) {
      const auto& d = *in.doc;
      const ResultIndex idx(d);
      o << "peerbench report: " << in.path << "\n";
      o << "  run: " << system_line(d) << "\n";
      o << "  status " << d.status << ", started " << d.started_at << ", peerbench "
        << d.tool.version << " (" << d.tool.git_revision << ")\n";
      if (d.status != "complete" && d.in_progress.is_object()) {
        o << "  cut short while running: " << describe_in_progress(d.in_progress) << "\n";
      }
      o << "  NCCL transport capture: " << d.nccl.mode
        << (d.nccl.note.empty() ? "" : " (" + d.nccl.note + ")") << "\n\n";
      matrix(o, in, idx);
      host_lines(o, host_table(d, idx, links_of(in.verdicts)));
      all_ranks_lines(o, d);
      cards(o, in.verdicts);
      not_measured(o, d);
      known_good(o, in.verdicts);
      verdicts(o, in);
      if (!d.errors.empty()) {
        o << "Errors recorded by the run:\n";
        for (const auto& e : d.errors) o << "  " << e << "\n";
      }
      if (runs.size() > 1) o << "\n";
    }
    return sanitize_lines_for_terminal(o.str());  // strings from the file reach a terminal
  }

 private:
  static void matrix(std::ostringstream& o, const ReportInput& in, const ResultIndex& idx) {
    const auto& d = *in.doc;
    const auto pm = methods_in(d, MethodScope::kPair);
    if (pm.empty()) return;
    const auto links = links_of(in.verdicts);
    o << "Pairs at the largest size (median; '!' = data errors):\n";
    std::vector<Align> align{Align::kLeft, Align::kLeft};
    align.insert(align.end(), pm.size(), Align::kRight);
    TextTable t(align);
    std::vector<std::string> names{"pair", "link"};
    std::vector<std::string> units{"", ""};
    for (const auto* m : pm) {
      names.push_back(m->name);
      units.push_back(unit_at(d, m));  // once per method: each scans the results
    }
    names.push_back("NCCL transport");
    t.add_row(std::move(names));
    t.add_row(std::move(units));
    for (const auto& [s, t_] : idx.pairs()) {
      std::vector<std::string> row{pair_name(s, t_), link_label(links, s, t_)};
      for (const auto* m : pm) row.push_back(cell(idx, m, s, t_));
      row.push_back(transport_of(idx, s, t_));
      t.add_row(std::move(row));
    }
    o << t.render() << "\n";
  }

  static void host_lines(std::ostringstream& o, const HostTable& t) {
    if (t.methods.empty()) return;
    o << "Host <-> GPU at the largest size (copy engine, pinned host memory on the GPU's NUMA "
         "node; median):\n";
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
    o << table.render();
    for (const auto& s : t.totals) o << "  " << s << "\n";
    o << "\n";
  }

  static void all_ranks_lines(std::ostringstream& o, const RunDocument& d) {
    for (const auto* m : methods_in(d, MethodScope::kAllRanks)) {
      for (const auto& v : variants_of(d, m->name)) {
        o << m->name << variant_suffix(v) << " over all ranks (" << unit(m) << ", median):";
        for (const auto& r : d.results) {
          if (r.method != m->name || r.src >= 0 || variant_label(r) != v) continue;
          o << "  " << format_size_compact(r.bytes) << " "
            << (r.status == ResultStatus::kOk ? format_fixed(headline_value(m, r), 1)
                                              : to_string(r.status));
        }
        o << "\n";
      }
    }
  }

  static void cards(std::ostringstream& o, const std::vector<PairVerdict>& vs) {
    const auto cs = cards_in(vs);
    if (cs.empty()) return;
    o << "\nGPUs (the cards behind the verdicts):\n";
    TextTable t;
    for (const auto& c : cs) {
      t.add_row({"rank " + std::to_string(c.rank),
                 "host " + c.host + ", GPU " + std::to_string(c.gpu_index) + ", PCI " +
                     c.pci_bus_id + ", UUID " + c.uuid + ", serial " + serial_text(c)});
    }
    o << t.render();
  }

  static void not_measured(std::ostringstream& o, const RunDocument& d) {
    const auto um = unmeasured(d);
    if (um.empty()) return;
    o << "\nNot measured:\n";
    for (const auto& u : um) {
      o << "  " << u.method << " " << join(u.pairs) << " (" << u.cases << " case"
        << (u.cases == 1 ? "" : "s") << "): " << u.status
        << (u.reason.empty() ? "" : ": " + u.reason) << "\n";
    }
  }

  static void known_good(std::ostringstream& o, const std::vector<PairVerdict>& vs) {
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
    o << t.render();
  }

  static void verdicts(std::ostringstream& o, const ReportInput& in) {
    o << "\nVerdicts (thresholds: " << in.expectations_source << "):\n";
    // The pair, link and verdict line up over all verdicts; each verdict's details follow it.
    TextTable heads;
    for (const auto& v : in.verdicts)
      heads.add_row({pair_name(v.src, v.dst), v.link, verdict_word(v.verdict)});
    const auto widths = heads.widths();
    for (const auto& v : in.verdicts) {
      TextTable line;
      line.add_row({pair_name(v.src, v.dst), v.link, verdict_word(v.verdict),
                    v.observed.empty() ? "" : "[" + v.observed + "]"});
      o << line.render("  ", "  ", widths);
      for (const auto& f : v.flags) {
        o << "      " << f.code << ": " << f.message << "\n";
        o << "        evidence: " << f.evidence.dump() << "\n";
      }
      for (const auto& n : method_notes(v)) {
        o << "      " << n.state << ": " << n.method << (n.reason.empty() ? "" : ": " + n.reason)
          << "\n";
      }
    }
    const auto c = count_verdicts(in.verdicts);
    o << "\nVerdict: " << verdict_headline(c) << "\n";
    o << "Summary: " << c.verdicts << " verdicts, " << c.pass << " pass, " << c.flagged
      << " flagged, " << c.contended << " contended, " << c.throttled << " throttled, " << c.noisy
      << " noisy, " << c.incomplete << " incomplete, " << c.not_judged << " not judged, "
      << c.not_applicable << " not applicable, " << c.not_a_link << " not a link; " << c.flags
      << " flags, " << c.incomplete_methods << " requested measurements missing\n";
  }
};
// ---------------------------------------------------------------------------------------------

}  // namespace

std::unique_ptr<DocumentReporter> make_text_reporter() {
  return std::make_unique<TextReporter>();
}

}  // namespace peerbench
