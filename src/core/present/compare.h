#pragma once
// Comparing two runs (two driver versions, two nodes, before/after a repair): matched by method,
// pair (by host and PCI bus id, or UUID, or index: --match) and size; regressions and improvements
// only where the change exceeds the threshold AND the two runs' sample ranges (min..max) do not
// overlap, so noise is not called a regression.
#include <string>
#include <vector>

#include "core/judge/baseline.h"
#include "core/model/results.h"
#include "core/model/statistics.h"
#include "core/present/svg_chart.h"
#include "core/present/view_options.h"

namespace peerbench {

struct CompareRow {
  std::string method;
  std::string pair;      // "0->1" (ranks of A), or "all"
  std::string gpu_pair;  // GPU identity used for matching
  std::uint64_t bytes = 0;
  bool lower_is_better = false;
  bool latency_method = false;  // ce-latency, sm-latency: kept off the B/A chart
  // The compared figure, as `report` shows it: busbw_gbps (NCCL methods), algbw_gbps (other
  // bandwidth methods) or time_us (latency methods, and every method at latency sizes).
  std::string metric;
  Stats a;
  Stats b;
  double ratio = 0;  // B / A
  // regression, improvement, same, within-noise; contended or throttled when either run's figure
  // had another job on a GPU or held clocks (never called a regression)
  std::string change;
};

// A case not compared: measured in one run only, or in neither.
struct UnmatchedCase {
  std::string label;  // "ce-write host0:X->host0:Y 1M (A: ok, B: error)"
  std::string method, variant, pair, gpu_pair;
  std::uint64_t bytes = 0;
  std::string a_status, b_status;  // a result status, or "absent"
  // The figure of the run that measured it, chosen as compare_row chooses: a history shows it.
  std::string metric;
  bool lower_is_better = false;
  std::optional<Stats> a_figure, b_figure;
};

struct Comparison {
  std::vector<CompareRow> rows;
  std::vector<std::string> differences;  // system and configuration differences
  // Measured in A; B asked for it and did not measure it (failed, not run, not applicable: peer
  // access lost), or B stopped early and has no record of it: the candidate lost it, which fails
  // the comparison as a regression does (a failed candidate passed with its losses listed at the
  // bottom; an audit).
  std::vector<UnmatchedCase> lost_in_b;
  std::vector<UnmatchedCase> only_in_a;   // measured in A; B did not ask for it
  std::vector<UnmatchedCase> only_in_b;   // measured in B, not in A
  std::vector<UnmatchedCase> in_neither;  // requested in either run, measured in neither
  int regressions = 0;
  int data_errors = 0;  // rows where B delivered wrong elements: fail as a regression does
  // What B's burn-in found (wrong data, failures that came and went, drift, later cycles under
  // the bar, a burn-in cut short): compare read cycle 1 alone and called such a B "same" (an
  // audit). Fails the comparison as data errors do, whatever A had.
  std::vector<std::string> burn_in_in_b;
  int improvements = 0;
  int other_settings = 0;  // rows measured under other settings (-R, -a, -z, -G): not compared
  int untrusted = 0;       // rows where either run was contended or throttled: not compared
  // Rows beyond the threshold whose figures' min-max ranges overlap, in a run without per-sample
  // times (schema 1-3): within-noise there may hide a real change (an audit saw 20 %).
  int min_max_inconclusive = 0;
  // Where A and B ran on other hosts: "A: x; B: y". GPUs are matched by position then (host0 is
  // each run's first host), which the headline says (an audit: another node's GPUs, no word).
  std::string other_hosts;
  std::string hosts_a, hosts_b;  // each run's hosts, where they differ ("" where they do not)
  // Each run's driver, CUDA and NCCL (run_versions), for the CSV: a driver comparison's rows say
  // which versions each side ran.
  RunVersions versions_a, versions_b;
  std::string run_hosts_a, run_hosts_b;  // each run's hosts, space-separated (a_hosts, b_hosts)
  // Each run's verdicts under the built-in bars: which measurement settled each case.
  std::vector<PairVerdict> verdicts_a, verdicts_b;
};

// Throws InputError when the runs cannot be compared (different GPU counts, nothing in common).
Comparison compare_runs(const RunDocument& a, const std::string& a_name, const RunDocument& b,
                        const std::string& b_name, const CompareOptions& o);

std::string render_comparison(const Comparison& c, const std::string& a_name,
                              const std::string& b_name, const CompareOptions& o);

int comparison_exit_code(const Comparison& c, const CompareOptions& o);
// Exit 0 by --fail-on where the default (regressions) exits 1: the headline says so, as an
// exit code of 0 over 40 regressions read as a clean comparison.
bool waived_by_fail_on(const Comparison& c, const CompareOptions& o);
inline const std::string kWaivedNote =
    "exit 0 only by --fail-on none: the default (regressions) exits 1";

// What a comparison's counts leave unsaid, one note each, for its headline: other hosts, changes
// inside min-max ranges (inconclusive), wrong data and burn-in findings in the later run, rows not
// compared. `n` names the runs ("A"/"B", "run 1"/"run 3").
struct RunNames {
  std::string a, b;
};
std::vector<std::string> comparison_notes(const Comparison& c, const CompareOptions& o,
                                          const RunNames& n);
// The cases lost in the later run or measured in one run alone, counted, one note each.
std::vector<std::string> unmatched_notes(const Comparison& c, const RunNames& n);

// A ratio chart's series (1 = no change) in order of their largest change, the largest first.
// Past svg::kMaxSeries, the series that stay inside the noise band at every point are left out
// down to kMaxSeries, and the chart's note names them; more series beyond the band than that are
// all kept (drawn as panels). A history of 18 methods drew 18 lines in 8 reused colours (audit).
void keep_changed_series(svg::LineChart& c, double band);

// The words of a chart's noise band: "inside +-5.0 % (--threshold): no change is called there".
std::string noise_band_label(double threshold);

// "0.66 [0.66-0.66]": median and range at one precision (two places under 100, else one), so the
// median never prints outside its own range.
std::string median_range(const Stats& s);

}  // namespace peerbench
