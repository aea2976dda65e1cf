#include "core/model/figure_unit.h"

namespace peerbench {

std::string method_unit(const MethodInfo& m) {
  if (m.metric == Metric::kLatency) return "us";
  return m.uses_nccl ? "busbw GB/s" : "GB/s";
}

std::string headline_unit(const MethodInfo& m, std::uint64_t bytes, std::uint64_t small_max) {
  return figure_is_time(&m, bytes, small_max) ? "us" : method_unit(m);
}

}  // namespace peerbench
