#include "core/model/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

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

IterationStats iteration_stats(std::vector<double> us) {
  if (us.empty()) throw std::invalid_argument("iteration_stats: no iterations");
  std::sort(us.begin(), us.end());
  const std::size_t n = us.size();
  auto pct = [&](double p) {  // the ceil(p n)-th value, 1-based
    const auto k = static_cast<std::size_t>(std::ceil(p * static_cast<double>(n)));
    return us[std::min(n, std::max<std::size_t>(1, k)) - 1];
  };
  IterationStats s;
  s.count = static_cast<int>(n);
  s.min_us = us.front();
  s.max_us = us.back();
  s.p50_us = us[n / 2];
  s.p95_us = pct(0.95);
  s.p99_us = pct(0.99);
  s.mean_us = std::accumulate(us.begin(), us.end(), 0.0) / static_cast<double>(n);
  double var = 0;
  for (double x : us) var += (x - s.mean_us) * (x - s.mean_us);
  s.cv = s.mean_us > 0 ? std::sqrt(var / static_cast<double>(n)) / s.mean_us : 0;
  return s;
}

double over_ranks(const std::vector<double>& times, int rule) {
  if (times.empty()) throw std::invalid_argument("over_ranks: no times");
  switch (rule) {
    case 0:
      return times.front();
    case 1:
      return std::accumulate(times.begin(), times.end(), 0.0) / static_cast<double>(times.size());
    case 2:
      return *std::min_element(times.begin(), times.end());
    case 3:
      return *std::max_element(times.begin(), times.end());
    default:
      throw std::invalid_argument("over_ranks: rule " + std::to_string(rule) + " is not 0-3");
  }
}

double relative_spread(const Stats& s) {
  return s.median != 0 ? (s.max - s.min) / s.median : 0;
}

}  // namespace peerbench
