#include "core/present/view_options.h"

namespace peerbench {

std::string to_string(ReportFormat f) {
  switch (f) {
    case ReportFormat::kText:
      return "text";
    case ReportFormat::kMarkdown:
      return "markdown";
    case ReportFormat::kHtml:
      return "html";
    case ReportFormat::kCsv:
      return "csv";
  }
  return "text";
}

}  // namespace peerbench
