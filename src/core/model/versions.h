#pragma once
// Version labels of a run's software, as reports and the fleet name them.
#include <string>

namespace peerbench {

// 13000 -> "13.0"; "" for 0 (unknown).
std::string format_cuda_version(int v);

}  // namespace peerbench
