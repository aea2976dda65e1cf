#pragma once
// Options of the commands that read results and print them: topo, report, compare.
#include <string>
#include <vector>

namespace peerbench {

struct TopoOptions {
  std::string json_path;
  bool quiet = false;
};

enum class ReportFormat { kText, kMarkdown, kHtml, kCsv };
std::string to_string(ReportFormat f);

struct ReportOptions {
  std::vector<std::string> inputs;
  ReportFormat format = ReportFormat::kText;
  std::string output_path;  // empty: stdout
  std::string fail_on =
      "all";  // flag codes and/or "incomplete" that make the exit code 1; all/none
  std::string expect_path;
  std::string plots_dir;
};

struct CompareOptions {
  std::string baseline;
  std::string candidate;
  double threshold = 0.05;  // relative change below which nothing is flagged
  ReportFormat format = ReportFormat::kText;
  std::string output_path;
  std::string match = "pci";            // GPU identity within a host: pci | uuid | index
  std::string fail_on = "regressions";  // regressions | any | none
  std::vector<std::string> runs;        // every input; more than two: history (core/history.h)
  std::string plots_dir;                // history: plots from scripts/plot_fleet.py
};

}  // namespace peerbench
