#pragma once
// The wall-clock time in UTC, as results files and reports stamp it.
#include <string>

namespace peerbench {

// "2026-11-30T21:59:10Z" (ISO 8601, seconds).
std::string utc_now_iso8601();

}  // namespace peerbench
