#pragma once
// `fleet --write-baseline FILE`: a healthy fleet's medians as an --expect file
// (core/judge/baseline.h). Only nodes that passed count, and no fleet-outlier pair; per GPU model,
// link, method, the size the fleet judged and the rank count, and per driver, CUDA and NCCL version
// where the fleet mixes them. The file says where it came from: nodes, files, dates and versions.
#include <string>

#include <nlohmann/json.hpp>

#include "core/fleet/fleet.h"

namespace peerbench {

// The expect file: {"comment", "fleet_outlier_tolerance", "baseline": {"tolerance",
// "written_at", "from": {...}, "entries": [...]}}. `tolerance`: how much worse than the median the
// bar sits (the fleet's outlier tolerance). Throws InputError when no node passed.
nlohmann::json make_baseline(const FleetReport& r, double tolerance, const std::string& written_at);

}  // namespace peerbench
