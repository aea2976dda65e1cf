#pragma once
// The method catalogue: every method's MethodInfo, in the order a run measures them. Options,
// plans, verdicts, reports and the CPU tests read it; the GPU layer attaches each entry's
// implementation by name (src/gpu/methods/registry.cpp). The entries are
// core/model/method_catalog.def.
#include <vector>

#include "core/model/method_info.h"

namespace peerbench {

const std::vector<MethodInfo>& method_catalog();

}  // namespace peerbench
