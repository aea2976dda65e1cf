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

// Throws std::invalid_argument on an empty input. Even counts take the mean of the two middle
// values.
Stats summarize(std::vector<double> samples);

// Relative spread (max - min) / median; 0 when the median is 0.
double relative_spread(const Stats& s);

}  // namespace peerbench
