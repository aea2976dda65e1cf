#pragma once
// Burn-in bookkeeping (issue 18), GPU-free: every cycle's results folded into one series per case
// (its figure each cycle, the cycles with data errors, failures or another process beside it),
// and what the series say: data errors with their cycles, intermittent failures a single pass
// would miss, and drift between the first cycles and the last.
#include <optional>
#include <string>

#include "core/model/results.h"

namespace peerbench {

// Adds one cycle's result (cycle numbers from 1) to its case's series.
void record_burn_in_result(BurnIn& b, int cycle, const Result& r, const MethodInfo* m);

// What a case's series says at its judged size.
struct BurnInFindings {
  int cycles = 0;  // cycles with a figure
  double min = 0, median = 0, max = 0, cv = 0;
  std::optional<double> drift;  // (last quarter's median - first quarter's) / first's; >= 4 cycles
  const BurnInSeries* series = nullptr;
};
BurnInFindings burn_in_findings(const BurnInSeries& s);

// "3, 7 and 12"
std::string cycle_list(const std::vector<int>& cycles);

}  // namespace peerbench
