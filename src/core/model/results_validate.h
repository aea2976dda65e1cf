#pragma once
// Checks on a run read from a file that the field-by-field reader cannot make alone: values no
// measurement produces and references that point nowhere. A file that fails them was edited or
// corrupted; reporting it would show nonsense (or a pass for ranks that never existed).
#include <string>

#include "core/model/results.h"

namespace peerbench {

// Bounds of measured values: a time per operation from 1 ns to a day (the watchdog stops any
// sample long before; no GPU operation takes less than a nanosecond), a bandwidth above 1e-15
// GB/s (one byte in a day is more) and at most 1e6 GB/s (no link comes near).
inline constexpr double kMinTimeUs = 1e-3;
inline constexpr double kMaxTimeUs = 86400e6;
inline constexpr double kMinGbps = 1e-15;
inline constexpr double kMaxGbps = 1e6;
// How far a bandwidth may be from bytes / time (and busbw from algbw x the method's factor):
// rounding, not a different figure.
inline constexpr double kBandwidthRounding = 1e-4;

// Refuses, with an InputError naming `file` and the field: empty system.ranks or methods, a
// method listed twice, duplicate rank numbers, system.hosts that are not the ranks' hosts,
// in_progress that is not null or an object of the documented fields, results (and their
// directions, pairs and verdicts) naming ranks the run does not have or a rank paired with
// itself, results of a method not in `methods`, times or bandwidths of 0, negative or beyond the
// bounds above, and bandwidths other than bytes / time (busbw: algbw x the method's factor,
// core/model/bandwidth.h) beyond rounding, and a burn-in that does not fit the run
// (core/model/burn_in_validate.h). (Sizes of 0 or fractions are refused while reading.)
void validate_run_document(const RunDocument& d, const std::string& file);

}  // namespace peerbench
