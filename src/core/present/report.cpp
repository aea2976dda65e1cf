// The report formats, one file each (report_text, report_markdown, report_html, report_csv),
// over the pieces of a run they share (report_parts); and the escapers they use.
#include "core/present/report.h"

#include <string_view>

#include "core/base/escaped.h"
#include "core/base/text.h"
#include "core/judge/verdict.h"

namespace peerbench {

std::unique_ptr<DocumentReporter> make_text_reporter();      // report_text.cpp
std::unique_ptr<DocumentReporter> make_markdown_reporter();  // report_markdown.cpp
std::unique_ptr<DocumentReporter> make_html_reporter();      // report_html.cpp
std::unique_ptr<DocumentReporter> make_csv_reporter();       // report_csv.cpp

std::unique_ptr<DocumentReporter> make_reporter(ReportFormat f) {
  switch (f) {
    case ReportFormat::kText:
      return make_text_reporter();
    case ReportFormat::kMarkdown:
      return make_markdown_reporter();
    case ReportFormat::kHtml:
      return make_html_reporter();
    case ReportFormat::kCsv:
      return make_csv_reporter();
  }
  return make_text_reporter();
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
