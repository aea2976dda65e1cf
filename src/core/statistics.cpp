#include "core/statistics.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace peerbench {

Stats summarize(std::vector<double> samples) {
  if (samples.empty()) throw std::invalid_argument("summarize: no samples");
  std::sort(samples.begin(), samples.end());
  Stats s;
  s.count = static_cast<int>(samples.size());
  s.min = samples.front();
  s.max = samples.back();
  const std::size_t n = samples.size();
  s.median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(n);
  return s;
}

double relative_spread(const Stats& s) {
  return s.median != 0 ? (s.max - s.min) / s.median : 0;
}

}  // namespace peerbench
