// The report formats, one file each (report_text, report_markdown, report_html, report_csv),
// over the pieces of a run they share (report_parts); and the escapers they use.
#include "core/report.h"

#include <string_view>

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

std::string html_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string csv_field(const std::string& s_in) {
  std::string s = s_in;
  // A cell starting with = + - @, a tab or a carriage return is a formula to spreadsheets (the
  // last two: after the spreadsheet strips them); make it text.
  if (!s.empty() && std::string_view("=+-@\t\r").find(s[0]) != std::string_view::npos) s = "'" + s;
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace peerbench
