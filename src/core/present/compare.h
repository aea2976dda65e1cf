#pragma once
// Comparing two runs (two driver versions, two nodes, before/after a repair): matched by method,
// pair (by host and PCI bus id, or UUID, or index: --match) and size; regressions and improvements
// only where the change exceeds the threshold AND the two runs' sample ranges (min..max) do not
// overlap, so noise is not called a regression.
#include <string>
#include <vector>

#include "core/model/results.h"
#include "core/model/statistics.h"
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

struct Comparison {
  std::vector<CompareRow> rows;
  std::vector<std::string> differences;  // system and configuration differences
  std::vector<std::string> only_in_a;
  std::vector<std::string> only_in_b;
  std::vector<std::string> in_neither;  // requested in either run, measured in neither
  int regressions = 0;
  int improvements = 0;
  int other_settings = 0;  // rows measured under other settings (-R, -a, -z, -G): not compared
  int untrusted = 0;       // rows where either run was contended or throttled: not compared
  // Each run's verdicts under the built-in bars: which measurement settled each case.
  std::vector<PairVerdict> verdicts_a, verdicts_b;
};

// Throws InputError when the runs cannot be compared (different GPU counts, nothing in common).
Comparison compare_runs(const RunDocument& a, const std::string& a_name, const RunDocument& b,
                        const std::string& b_name, const CompareOptions& o);

std::string render_comparison(const Comparison& c, const std::string& a_name,
                              const std::string& b_name, const CompareOptions& o);

int comparison_exit_code(const Comparison& c, const CompareOptions& o);

}  // namespace peerbench
