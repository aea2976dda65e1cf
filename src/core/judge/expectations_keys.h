#pragma once
// Keys of the --expect file that more than one command reads: one function per key, so that run,
// report and fleet accept and refuse the same values the same way.
#include <optional>

#include "core/model/json_in.h"

namespace peerbench {

inline constexpr const char* kFleetOutlierToleranceKey = "fleet_outlier_tolerance";

// The fleet's outlier tolerance: a number from 0 to 1 (0.05: flagged 5% below the group's
// median); nullopt when the file does not have the key. Throws InputError for any other value,
// null included. `expect_file` is the file's top-level object.
std::optional<double> fleet_outlier_tolerance(const JsonIn& expect_file);

}  // namespace peerbench
