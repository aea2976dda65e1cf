#pragma once
// History: `compare` of more than two runs (one node under three drivers, a fleet before and
// after an upgrade). Every run beside the first is compared with the first by compare's own rule
// (beyond the threshold AND separated samples, as compare_runs decides), and the results are laid
// side by side: one table per method, the versions that differ as the column headings.
#include <string>
#include <vector>

#include "core/present/compare.h"
#include "core/present/report.h"

namespace peerbench {

struct HistoryCell {
  bool present = false;
  Stats stats;
  double ratio = 0;    // to the first run
  std::string change;  // regression, improvement, same, within-noise; "" for the first run
};

struct HistoryRow {
  std::string method, pair, gpu_pair;
  std::uint64_t bytes = 0;
  bool lower_is_better = false;
  std::string metric;              // busbw_gbps, algbw_gbps or time_us (CompareRow::metric)
  std::vector<HistoryCell> cells;  // one per run; cells[0] is the baseline
};

// A case of run 1 or of run k that the two did not both measure (compare's UnmatchedCase).
struct HistoryUnmatched {
  std::size_t run = 0;  // the later run, counted from 0
  std::string change;   // lost, only-in-run-1, only-in-this-run, in-neither
  UnmatchedCase c;
};

struct History {
  std::vector<std::string> files;
  std::vector<std::string> headings;     // per run: "2: b.json (driver 570.86.10)"
  std::vector<std::string> columns;      // the same without the file: "2 (driver 570.86.10)"
  std::vector<RunVersions> versions;     // per run: driver, CUDA, NCCL (the CSV's columns)
  std::vector<std::string> hosts;        // per run: its hosts, space-separated (the CSV's)
  std::vector<std::string> differences;  // "run 3: driver: a -> b", against the first run
  std::vector<HistoryRow> rows;          // by method, pair, size
  std::vector<int> regressions;          // per run (0 for the first)
  std::vector<int> improvements;
  std::vector<int> lost;               // per run: cases of run 1 it asked for and did not measure
  std::vector<std::string> only_some;  // results not in every run, by run
  std::vector<HistoryUnmatched> unmatched;
  // Per later run, what its comparison with run 1 leaves unsaid (comparison_notes): "run 3: the
  // runs are of other hosts ...". The headline counts them over the runs.
  std::vector<std::string> cautions;
  std::vector<std::size_t> other_hosts;  // later runs on other hosts than run 1 (from 0)
  int min_max_inconclusive = 0, data_errors = 0, burn_in_findings = 0, untrusted = 0,
      other_settings = 0;
  int exit_code = 0;
  bool waived =
      false;  // the default --fail-on (regressions) would have exited 1; o.fail_on did not
};

// Throws InputError when a run cannot be compared with the first.
History build_history(const std::vector<RunDocument>& runs, const std::vector<std::string>& files,
                      const CompareOptions& o);

// text, markdown, html (plots embedded) or csv (one row per result and run, for plots).
std::string render_history(const History& h, const CompareOptions& o,
                           const std::vector<PlotFile>& plots);

}  // namespace peerbench
