#pragma once
// This machine's name, and the name a run records for it: PEERBENCH_HOST_ID, where set, lets two
// ranks of one machine pose as two hosts (a fleet made on one machine). One rule for every
// caller: the no-launcher pre-check had checked the default results file under the machine's name
// while the ranks wrote it under PEERBENCH_HOST_ID's (an audit).
#include <string>

namespace peerbench {

inline constexpr const char* kHostIdVariable = "PEERBENCH_HOST_ID";

// gethostname(), or "unknown-host" where it fails.
std::string physical_host_name();

// PEERBENCH_HOST_ID where set and not empty, else physical_host_name().
std::string logical_host_name();

}  // namespace peerbench
