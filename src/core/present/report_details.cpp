// A report's details, after its figures (core/present/report_document.h): the run, its GPUs,
// collectives by size, what was not measured, the known-good figures used, burn-in, other jobs.
// Each verdict's evidence is report_evidence.cpp.
#include <algorithm>
#include <map>
#include <set>

#include "core/base/text.h"
#include "core/judge/verdict.h"
#include "core/model/datatypes.h"
#include "core/model/figure_unit.h"
#include "core/model/sizes.h"
#include "core/present/report_document.h"
#include "core/present/report_parts.h"
#include "core/present/run_progress.h"

namespace peerbench::report_doc {

std::vector<Section> evidence_sections(const ReportInput& in);  // report_evidence.cpp

namespace {

using namespace report_parts;

Section run_section(const ReportInput& in) {
  const RunDocument& d = *in.doc;
  Section s;
  s.title = "The run";
  s.lines.push_back("file: " + in.path);
  s.lines.push_back("system: " + system_line(d));
  s.lines.push_back("hosts: " + join(d.system.hosts, ", "));
  if (!d.tool.command_line.empty()) s.lines.push_back("command: " + command_line_text(d));
  s.lines.push_back("environment: " + steering_environment_text(d));
  const auto imported = d.config.is_object() ? d.config.find("imported") : d.config.end();
  if (d.config.is_object() && imported != d.config.end() && imported->is_object()) {
    // Another tool's output (core/import): its tool and version, and what it does not say.
    s.lines.push_back("status " + d.status + ", imported from " + d.tool.name +
                      (d.tool.version.empty() ? "" : " " + d.tool.version) + " (" +
                      imported->value("format", std::string()) + ")");
    for (const auto& u : imported->value("unknown", nlohmann::json::array()))
      if (u.is_string()) s.lines.push_back("not in the output: " + u.get<std::string>());
  } else {
    s.lines.push_back("status " + d.status + ", started " + d.started_at + ", peerbench " +
                      d.tool.version + " (" + d.tool.git_revision + ")");
  }
  if (d.status != "complete" && d.in_progress.is_object())
    s.lines.push_back("cut short while running: " + describe_in_progress(d.in_progress));
  if (const auto b = burn_in_summary(d)) s.lines.push_back("burn-in: " + b->headline);
  s.lines.push_back("NCCL transport capture: " + d.nccl.mode +
                    (d.nccl.note.empty() ? "" : " (" + d.nccl.note + ")"));
  s.lines.push_back("thresholds: " + in.expectations_source);
  if (!in.bars_used.empty()) s.lines.push_back("bars: " + in.bars_used);
  if (!in.recorded.empty()) s.lines.push_back(in.recorded);
  return s;
}

Section gpus_section(const ReportInput& in) {
  Section s;
  const auto cs = cards_in(in.verdicts);
  if (cs.empty()) return s;
  s.title = "GPUs (the cards behind the verdicts)";
  s.table.columns = {"rank", "GPU", "PCI bus id", "serial", "host", "UUID"};
  for (const auto& c : cs) {
    s.table.add_row({std::to_string(c.rank), gpu_index_text(c, cs), c.pci_bus_id, serial_text(c),
                     c.host, c.uuid});
  }
  return s;
}

// A collective's cell at one size: busbw, or at latency sizes the time per operation (8 B is
// 0.0 GB/s, and one rank's busbw is 0 by definition).
Cell collective_cell(const MethodInfo& m, const Result& r) {
  if (r.status != ResultStatus::kOk) return Cell(to_string(r.status));
  const double v = figure_value(&m, r);
  if (figure_is_time(&m, r.bytes)) return Cell(format_fixed(v, 2) + figure_marks(r) + " us", v);
  return Cell(format_fixed(v, 1) + figure_marks(r), v);
}

Section collectives_by_size(const ReportInput& in) {
  const RunDocument& d = *in.doc;
  Section s;
  std::vector<std::pair<const MethodInfo*, std::string>> series;
  for (const auto* m : methods_in(d, MethodScope::kAllRanks))
    for (const auto& v : variants_of(d, m->name)) series.push_back({m, v});
  if (series.empty()) return s;
  s.title = "Over all ranks by size (busbw GB/s, median; us per operation at latency sizes)";
  s.table.columns.push_back(Column::number("size"));
  std::map<std::uint64_t, std::vector<Cell>> rows;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const auto& [m, variant] = series[i];
    s.table.columns.push_back(
        Column::number(m->name + variant_suffix(variant), "", Better::kHigher));
    for (const auto& r : d.results) {
      if (r.method != m->name || r.src >= 0 || variant_label(r) != variant) continue;
      auto& row = rows[r.bytes];
      row.resize(series.size());
      row[i] = collective_cell(*m, r);
    }
  }
  for (auto& [bytes, cells] : rows) {
    cells.insert(cells.begin(), Cell(format_size(bytes)));
    s.table.add_row(std::move(cells));
  }
  return s;
}

Section host_buffers_section(const ReportInput& in, const ResultIndex& idx) {
  Section s;
  const auto t = host_table(*in.doc, idx, links_of(in.verdicts));
  if (t.methods.empty()) return s;
  s.title = "Host buffers (where each rank's pinned memory was)";
  s.lines = t.memory;
  return s;
}

Section not_measured_section(const RunDocument& d) {
  Section s;
  const auto um = unmeasured(d);
  if (um.empty()) return s;
  s.title = "Not measured";
  s.table.columns = {"method", "pairs", Column::number("cases"), "status", "reason"};
  for (const auto& u : um) {
    // Not possible by design reads neutral; anything else asked for and missing, amber.
    Cell status(u.status);
    status.tone = u.status == "not-applicable" ? Tone::kNeutral : Tone::kWarn;
    s.table.add_row({u.method, join(u.pairs), std::to_string(u.cases), status, u.reason});
  }
  return s;
}

// The known-good figures the matrices' ratios rest on: once per method and basis, not once per
// pair and method (about 600 lines on 8 GPUs).
Section known_good_section(const ReportInput& in) {
  Section s;
  const auto rows = known_good_rows(in.verdicts);
  if (rows.empty()) return s;
  s.title = "Known-good figures the ratios are measured against";
  std::set<std::string> said;
  for (const auto& r : rows) {
    const std::string line = r.expected.empty() ? r.basis : r.method + ": " + r.basis;
    if (said.insert(line).second) s.lines.push_back(line);
  }
  for (const auto& src : known_good_sources(rows)) s.lines.push_back("source " + src);
  return s;
}

Section burn_in_section(const RunDocument& d) {
  Section s;
  const auto b = burn_in_summary(d);
  if (!b) return s;
  s.title = "Burn-in";
  s.lines.push_back(b->headline);
  for (const auto& c : b->counters) s.lines.push_back("error counter grew: " + c);
  s.table.columns = {"method",
                     "pair",
                     Column::number("size"),
                     Column::number("cycles"),
                     Column::number("median"),
                     Column::number("min-max"),
                     Column::number("cv"),
                     Column::number("drift"),
                     "data errors in",
                     "failed in",
                     "contended in"};
  s.table.key_columns = 3;
  for (const auto& r : b->rows) {
    s.table.add_row({r.method, r.pair, r.size, std::to_string(r.cycles), r.median + " " + r.unit,
                     r.range, r.cv, r.drift, r.errors, r.failed, r.contended});
  }
  return s;
}

Section interference_section(const RunDocument& d) {
  Section s;
  s.lines = interference_lines(d);
  if (!s.lines.empty())
    s.title = "Beside another job or under held clocks (not the links' figures)";
  return s;
}

Section errors_section(const RunDocument& d) {
  Section s;
  if (d.errors.empty()) return s;
  s.title = "Errors recorded by the run";
  s.lines = d.errors;
  return s;
}

Section terms_section(const RunDocument& d) {
  Section s;
  s.title = "Terms";
  for (const auto& [t, m] : terms_of(d)) s.lines.push_back(t + ": " + m);
  return s;
}

bool has_content(const Section& s) {
  return !s.title.empty() && (!s.lines.empty() || !s.table.empty() || !s.charts.empty());
}

}  // namespace

std::vector<Section> detail_sections(const ReportInput& in, const ResultIndex& idx) {
  const RunDocument& d = *in.doc;
  std::vector<Section> all{run_section(in),         gpus_section(in),
                           collectives_by_size(in), host_buffers_section(in, idx),
                           not_measured_section(d), known_good_section(in),
                           burn_in_section(d),      interference_section(d)};
  for (auto& s : evidence_sections(in)) all.push_back(std::move(s));
  all.push_back(errors_section(d));
  all.push_back(terms_section(d));
  std::vector<Section> out;
  for (auto& s : all)
    if (has_content(s)) out.push_back(std::move(s));
  return out;
}

}  // namespace peerbench::report_doc
