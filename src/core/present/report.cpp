// The report of one or more runs: one section document (report_document.h), rendered by the
// format asked for (core/present/sections.h); and the escapers reporters share.
#include "core/present/report.h"

#include <string_view>

#include "core/base/escaped.h"
#include "core/base/text.h"
#include "core/judge/verdict.h"
#include "core/present/report_document.h"

namespace peerbench {

namespace {

// A run's sections in reading order: its figures, the charts (HTML draws them), the details,
// and the data a spreadsheet takes (CSV shows that alone).
void add_run(SectionDocument& doc, const ReportInput& in, ReportParts parts) {
  // The diagnosis first: why, and what to do next, before any figure.
  Section why = report_doc::diagnosis_section(in);
  if (!why.title.empty()) doc.sections.push_back(std::move(why));
  const ResultIndex idx(*in.doc);  // once per run: each part looks results up in it
  auto add = [&](std::vector<Section> sections) {
    for (auto& s : sections) doc.sections.push_back(std::move(s));
  };
  add(report_doc::figure_sections(in, idx));
  if (parts.charts) add(report_doc::chart_sections(in, idx));
  add(report_doc::detail_sections(in, idx));
  if (parts.data) doc.sections.push_back(report_doc::data_section(in, idx));
}

// Green only where the verdict line says PASS (the exit code is 0 and --fail-on waived nothing).
bool not_green(const ReportInput& in) {
  return report_doc::verdict_line(in).rfind("PASS: ", 0) != 0;
}

class SectionReporter : public DocumentReporter {
 public:
  explicit SectionReporter(ReportFormat f) : format_(f) {}
  std::string render(const std::vector<ReportInput>& runs,
                     const std::vector<PlotFile>& plots) const override {
    const SectionDocument doc = report_document(runs, plots, parts_shown_in(format_));
    switch (format_) {
      case ReportFormat::kMarkdown:
        return render_sections_markdown(doc);
      case ReportFormat::kHtml:
        return render_sections_html(doc);
      case ReportFormat::kCsv:
        return render_sections_csv(doc);
      case ReportFormat::kText:
        break;
    }
    return render_sections_text(doc);
  }

 private:
  ReportFormat format_;
};

}  // namespace

SectionDocument report_document(const std::vector<ReportInput>& runs,
                                const std::vector<PlotFile>& plots, ReportParts parts) {
  SectionDocument doc;
  doc.plots = plots;
  if (runs.size() == 1) {
    const ReportInput& in = runs.front();
    doc.title = "peerbench report: " + in.path;
    doc.verdict = report_doc::verdict_line(in);
    doc.digest = report_doc::problem_lines(in);
    doc.failed = not_green(in);
    if (doc.verdict.rfind("NOT JUDGED: ", 0) == 0) {
      doc.failed_tone = Tone::kNeutral;
    } else if (count_verdicts(in.verdicts).flagged == 0) {
      doc.failed_tone = Tone::kWarn;
    }
    add_run(doc, in, parts);
    return doc;
  }
  doc.title = "peerbench report: " + std::to_string(runs.size()) + " runs";
  doc.verdict = "Over " + runs_headline(runs);
  for (const auto& in : runs) {
    doc.failed = doc.failed || not_green(in);
    doc.digest.push_back(in.path + ": " + report_doc::verdict_line(in));
  }
  for (const auto& in : runs) {
    Section head;
    head.title = "Run " + in.path;
    head.lines.push_back(report_doc::verdict_line(in));
    for (auto& l : report_doc::problem_lines(in)) head.lines.push_back(std::move(l));
    doc.sections.push_back(std::move(head));
    add_run(doc, in, parts);
  }
  return doc;
}

ReportParts parts_shown_in(ReportFormat f) {
  return {f == ReportFormat::kCsv, f == ReportFormat::kHtml};
}

std::unique_ptr<DocumentReporter> make_reporter(ReportFormat f) {
  return std::make_unique<SectionReporter>(f);
}

// One definition of each rule: core/base/escaped.h's.
std::string html_escape(const std::string& s) {
  return out::Html::escape(s);
}

std::string csv_field(const std::string& s) {
  return out::Csv::escape(s);
}

std::string runs_headline(const std::vector<ReportInput>& runs) {
  if (runs.size() < 2) return "";
  std::vector<std::string> failing;
  for (const auto& in : runs) {
    if (in.failing > 0)
      failing.push_back(in.path + " (" + run_headline(*in.doc, in.verdicts) + "; " +
                        std::to_string(in.failing) + " counted by --fail-on)");
  }
  // "none fails" over a run with 9 flags let pass by --fail-on none (a review).
  std::vector<std::string> waived;
  for (const auto& in : runs)
    if (!in.waived_why.empty()) waived.push_back(in.path);
  const std::string waived_note = waived.empty()
                                      ? ""
                                      : "; flags or states waived by --fail-on in " +
                                            join(waived, ", ") + " (see each run's waived line)";
  const std::string n = std::to_string(runs.size()) + " runs: ";
  if (failing.empty()) return n + "none fails" + waived_note;
  return n + std::to_string(failing.size()) + (failing.size() == 1 ? " fails: " : " fail: ") +
         join(failing, "; ") + waived_note;
}

}  // namespace peerbench
