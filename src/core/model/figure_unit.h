#pragma once
// A method's headline figure, said in one place: whether it is a time per operation, and its unit.
// Tables, verdicts, charts and comparisons take the unit from here.
#include <cstdint>
#include <string>

#include "core/model/method_info.h"
#include "core/model/sizes.h"

namespace peerbench {

// "us" where the figure is a time per operation (latency methods, and bandwidth methods at
// latency sizes: figure_is_time); else "busbw GB/s" for NCCL's methods (nccl-tests' bus
// bandwidth) and "GB/s" (bytes moved over time) for copies.
std::string headline_unit(const MethodInfo& m, std::uint64_t bytes,
                          std::uint64_t small_max = kSmallMessageMaxBytes);
// The same where no size is in view (a method's column, its legend): by the method's metric.
std::string method_unit(const MethodInfo& m);

}  // namespace peerbench
