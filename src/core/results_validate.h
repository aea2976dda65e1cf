#pragma once
// Checks on a run read from a file that the field-by-field reader cannot make alone: values no
// measurement produces and references that point nowhere. A file that fails them was edited or
// corrupted; reporting it would show nonsense (or a pass for ranks that never existed).
#include <string>

#include <nlohmann/json.hpp>

#include "core/results.h"

namespace peerbench {

// Bounds of measured values: a time per operation above 0 and at most a day (the watchdog stops
// any sample long before), a bandwidth above 0 and at most 1e6 GB/s (no link comes near).
inline constexpr double kMaxTimeUs = 86400e6;
inline constexpr double kMaxGbps = 1e6;

// Refuses, with an InputError naming `file` and the field: empty system.ranks or methods,
// duplicate rank numbers, in_progress that is not null or an object of the documented fields,
// results (and their directions, pairs and verdicts) naming ranks the run does not have or a
// rank paired with itself, bytes of 0 or a fraction, and times or bandwidths of 0, negative or
// beyond the bounds above. `j` is the JSON `d` was read from (fractions are lost in `d`).
void validate_run_document(const nlohmann::json& j, const RunDocument& d, const std::string& file);

}  // namespace peerbench
