#pragma once
// The report of one or more runs as a section document (core/present/sections.h): built once here,
// rendered by every format. Internal to core/present: report.h's make_reporter is the way in.
//
// Order, as a reader needs it: the verdict; one line per pair (or GPU) that does not pass, naming
// its cards by PCI id and serial and what is wrong; a GPU x GPU matrix per method at the judged
// size (nvbandwidth's shape) with the known-good ratio in each cell; then the details.
#include <string>
#include <vector>

#include "core/model/diagnosis.h"
#include "core/model/result_index.h"
#include "core/present/report.h"
#include "core/present/sections.h"

namespace peerbench::report_doc {

// "FAIL: 3 flagged of 3 verdicts (9 flags)"; PASS, or WAIVED where only --fail-on kept it 0.
std::string verdict_line(const ReportInput& in);
// One line per verdict that is not a pass (or a neutral state): the pair or GPU by PCI id and
// serial, its state, and what is wrong. Past kProblemLines, pairs with the same problem share
// a line.
inline constexpr std::size_t kProblemLines = 8;
std::vector<std::string> problem_lines(const ReportInput& in);
// Why, and what to do next (core/judge/diagnosis.h): a section that opens the report, of the
// causes of what does not pass, each with its evidence and Next line; no title (none shown) where
// nothing needs a cause.
Section diagnosis_section(const ReportInput& in);
// A diagnosis as the report's lines: "1. <cause> [strength; explains ...]", "evidence: ...",
// "Next: ...", cause by cause.
std::vector<std::string> diagnosis_lines(const std::vector<DiagnosedCause>& causes,
                                         const std::vector<PairVerdict>& verdicts);
// The figures at the judged size: a matrix per pair method, the host links, the collectives.
std::vector<Section> figure_sections(const ReportInput& in, const ResultIndex& idx);
// Everything after the figures: the run, its GPUs, figures by size, what was not measured,
// known-good bases, burn-in, interference, each verdict's evidence, errors, terms.
std::vector<Section> detail_sections(const ReportInput& in, const ResultIndex& idx);
// The HTML page's charts, as sections of charts alone (the other formats draw none).
std::vector<Section> chart_sections(const ReportInput& in, const ResultIndex& idx);
// One row per result, for spreadsheets: the CSV format's one table.
Section data_section(const ReportInput& in, const ResultIndex& idx);

// A figure as tables show it: 1 decimal for GB/s, 2 for us.
std::string figure_text(double v, const std::string& unit);

}  // namespace peerbench::report_doc
