#pragma once
// Summary statistics over repeated samples. The median is the headline figure: it ignores a
// single descheduled or throttled sample, which the mean would not.
#include <vector>

namespace peerbench {

struct Stats {
  double min = 0;
  double median = 0;
  double max = 0;
  double mean = 0;
  int count = 0;
};

// The time of each iteration of a case (CUDA events between iterations, or between graph
// replays), over every sample: the distribution behind the per-sample figures, as nccl-tests'
// -I reports it (its percentile rule: p50 the n/2-th sorted value, pX the ceil(X/100 n)-th).
struct IterationStats {
  int count = 0;
  double min_us = 0, p50_us = 0, p95_us = 0, p99_us = 0, max_us = 0, mean_us = 0;
  double cv = 0;  // standard deviation / mean
};
// Throws std::invalid_argument on an empty input.
IterationStats iteration_stats(std::vector<double> us);

// Throws std::invalid_argument on an empty input. Even counts take the mean of the two middle
// values.
Stats summarize(std::vector<double> samples);

// The time of an operation over the ranks that worked on it, in rank order, by nccl-tests' -a:
// 0 the first rank's (rank 0 where it worked), 1 the average, 2 the minimum, 3 the maximum (the
// slowest rank: peerbench's default). Throws std::invalid_argument on an empty input or an
// unknown rule.
double over_ranks(const std::vector<double>& times, int rule);

// Relative spread (max - min) / median; 0 when the median is 0.
double relative_spread(const Stats& s);

}  // namespace peerbench
