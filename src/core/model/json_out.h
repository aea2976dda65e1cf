#pragma once
// Writing the results schema's optional fields: the value, or null where nothing was read or
// measured (the schema never writes 0 for "unknown").
#include <optional>

#include <nlohmann/json.hpp>

namespace peerbench {

template <typename T>
nlohmann::json opt_json(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

}  // namespace peerbench
