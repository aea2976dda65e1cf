#pragma once
// Burn-in bookkeeping (issue 18), GPU-free: every cycle's results folded into one series per case
// (its figure each cycle, the cycles with data errors, failures or another process beside it),
// and what the series say: data errors with their cycles, intermittent failures a single pass
// would miss, and drift between the first cycles and the last.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "core/model/results.h"

namespace peerbench {

// A result that counts as a burn-in failure: an error or a timeout. A case not run (the run was
// stopped, another pair failed, an earlier size of it failed) did not fail in that cycle: it
// ran nowhere, and calling it intermittent would accuse it of another case's failure.
bool burn_in_failure(const Result& r);

// Adds each cycle's results (cycle numbers from 1) to their cases' series. It finds a case's
// series through an index, so a cycle of n results costs n log n, not n^2: a full 8-GPU plan has
// thousands of cases.
class BurnInRecorder {
 public:
  void record(BurnIn& b, int cycle, const Result& r, const MethodInfo* m);

 private:
  using Key = std::tuple<std::string, int, int, std::uint64_t, std::string, std::string>;
  BurnInSeries& series_for(BurnIn& b, const Result& r, const MethodInfo* m);
  std::map<Key, std::size_t> index_;  // key -> position in b.series
};

// What a case's series says at its judged size.
struct BurnInFindings {
  int cycles = 0;  // cycles with a figure
  double min = 0, median = 0, max = 0, cv = 0;
  std::optional<double> drift;  // (last quarter's median - first quarter's) / first's
  const BurnInSeries* series = nullptr;
};
BurnInFindings burn_in_findings(const BurnInSeries& s);
// Drift compares the first quarter of the cycles with the last, each at least two cycles: from 4
// cycles (over 4-7 cycles the first two against the last two); one against one called noise drift.
inline constexpr std::size_t kBurnInDriftMinCycles = 4;
// A later cycle's figure under the method's bar counts from this many cycles: one alone is not
// confirmed, as cycle 1 is not without its repeat.
inline constexpr std::size_t kBurnInUnderBarMinCycles = 2;

// "3, 7 and 12"; past twelve, the first ten and "and N more"
std::string cycle_list(const std::vector<int>& cycles);

}  // namespace peerbench
