#pragma once
// Reporters: every way results leave peerbench goes through one of these.
//   LiveReporter       one aligned line per (method, pair, size) as it completes (run)
//   make_reporter      a report of runs: one section document (report_document), rendered as
//                      text for a terminal, Markdown, one self-contained HTML page, or CSV
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "core/judge/verdict.h"
#include "core/model/results.h"
#include "core/present/sections.h"
#include "core/present/view_options.h"

namespace peerbench {

struct ReportInput {
  std::string path;  // the JSON file (label)
  const RunDocument* doc = nullptr;
  std::vector<PairVerdict> verdicts;
  std::string expectations_source;
  std::string bars_used;  // bars_used_line: what judged the figures ("" to leave out)
  std::string recorded;   // recorded_verdicts_note: the file's own verdicts where they differ
  std::vector<KnownGoodMark> known_good;  // known_good_marks: the charts' known-good lines
  int failing = 0;          // run_failing under --fail-on: what makes `report`'s exit code 1
  std::string failing_why;  // failing_line: what counted, "" when nothing did
  std::string waived_why;   // waived_line: what the default would count and --fail-on did not
};

// Over several runs, one line first: how many fail and which ("" for one run). The first run's
// "all 3 pass" had stood alone above an exit code of 1 from a later run (an audit).
std::string runs_headline(const std::vector<ReportInput>& runs);

class DocumentReporter {
 public:
  virtual ~DocumentReporter() = default;
  virtual std::string render(const std::vector<ReportInput>& runs,
                             const std::vector<PlotFile>& plots) const = 0;
};

std::unique_ptr<DocumentReporter> make_reporter(ReportFormat f);
// The sections a format shows that others skip: CSV's table of every result, HTML's charts.
// A format's reporter builds only its own (the 100,000-row table was a third of a text report's
// time, for a table text never shows); the document built with both is every format's.
struct ReportParts {
  bool data = true;
  bool charts = true;
};
ReportParts parts_shown_in(ReportFormat f);
// The report as a section document, before any format renders it.
SectionDocument report_document(const std::vector<ReportInput>& runs,
                                const std::vector<PlotFile>& plots, ReportParts parts = {});

// Live table for `run`: a header once, then one line per case, like nccl-tests.
class LiveReporter {
 public:
  explicit LiveReporter(std::ostream& out, int verbosity) : out_(out), verbosity_(verbosity) {}
  // `rank_time`: whose time the table shows, said above the columns beside nccl-tests' default.
  void header(const std::string& rank_time = kSlowestRankTime);
  void result(const RunDocument& d, const MethodInfo* m, const Result& r);
  // -C: a cpu(us) column, the host's time to enqueue one operation, beside the GPU's time.
  void show_cpu_time(bool on) { cpu_time_ = on; }
  // nccl-tests' footer: "# Out of bounds values : N OK" and "# Avg bus bandwidth    : X" (one
  // line per method and variant measured, averaged over its sizes).
  void footer(const RunDocument& d);
  static constexpr const char* kSlowestRankTime =
      "the slowest rank's, median of the samples (nccl-tests' -a 3)";
  // The header's words for -a (0 rank 0, 1 average, 2 min, 3 max).
  static std::string rank_time_words(int average);
  // remaining_s < 0: no end foreseen (a burn-in until stopped).
  void progress(int done, int total, double elapsed_s, double remaining_s, const std::string& what,
                bool terminal);

 private:
  void line(const std::vector<std::string>& cells);
  std::ostream& out_;
  int verbosity_;
  int lines_ = 0;
  bool cpu_time_ = false;
};

// Helpers shared by reporters and compare.
std::string html_escape(const std::string& s);
std::string csv_field(const std::string& s);  // quotes and defuses spreadsheet formulas
// Width of the link column in verdict lines: 7, or wider for long labels ("PCIe Gen5 x16").
int verdict_link_width(const std::vector<PairVerdict>& vs);
std::string pair_name(int src, int dst);  // "0->1", "rank 2" (host<->GPU: rank 2's GPU) or "all"

}  // namespace peerbench
