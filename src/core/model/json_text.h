#pragma once
// The one way peerbench turns JSON into text (results files, reports' evidence, what ranks send
// each other).
#include <string>

#include <nlohmann/json.hpp>

namespace peerbench {

// Strings that are not valid UTF-8 (a path or host name in another encoding, a process name NVML
// reports) are written with U+FFFD in place of the bad bytes. nlohmann's default throws there:
// `run --expect` given such a path lost the whole run's results file at the end.
inline std::string json_text(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace peerbench
