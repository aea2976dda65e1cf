#include "core/present/run_progress.h"

#include "core/model/json_text.h"
#include "core/model/sizes.h"
#include "core/present/report.h"

namespace peerbench {
namespace {

using nlohmann::json;

// "0->1, 1->0" from [[0, 1], [1, 0]]; entries that are not two integers are left out.
std::string pairs_text(const json& pairs) {
  std::string s;
  for (const auto& p : pairs) {
    if (!p.is_array() || p.size() != 2 || !p[0].is_number_integer() || !p[1].is_number_integer())
      continue;
    s += (s.empty() ? "" : ", ") + pair_name(p[0].get<int>(), p[1].get<int>());
  }
  return s;
}

// "1M-1G (6)" for a sweep, "8" for one size.
std::string sizes_text(const json& sizes) {
  std::vector<std::uint64_t> v;
  for (const auto& b : sizes) {
    if (b.is_number_integer() && b.get<long long>() >= 0) v.push_back(b.get<std::uint64_t>());
  }
  if (v.empty()) return "";
  if (v.size() == 1) return format_size_compact(v.front());
  return format_size_compact(v.front()) + "-" + format_size_compact(v.back()) + " (" +
         std::to_string(v.size()) + ")";
}

// Whether `key` is a field peerbench writes, with the type it writes.
bool is_known_field(const std::string& key, const json& v) {
  return (key == "method" && v.is_string()) || (key == "round" && v.is_number_integer()) ||
         (key == "all_ranks" && v.is_boolean()) || (key == "pairs" && v.is_array()) ||
         (key == "sizes" && v.is_array());
}

// A known field in words ("" for all_ranks false and for lists with nothing readable).
std::string field_text(const std::string& key, const json& v) {
  if (key == "method") return v.get<std::string>();
  if (key == "round") return "round " + std::to_string(v.get<long long>());
  if (key == "all_ranks") return v.get<bool>() ? "all ranks" : "";
  if (key == "pairs") {
    const std::string p = pairs_text(v);
    return p.empty() ? "" : (v.size() == 1 ? "pair " : "pairs ") + p;
  }
  const std::string z = sizes_text(v);
  return z.empty() ? "" : "sizes " + z;
}

}  // namespace

std::string describe_in_progress(const json& record) {
  if (!record.is_object()) return json_text(record);
  std::string s;
  auto add = [&](const std::string& part) {
    if (!part.empty()) s += (s.empty() ? "" : ", ") + part;
  };
  // The fields peerbench writes, in reading order; then anything else as it is.
  for (const char* key : {"method", "round", "all_ranks", "pairs", "sizes"}) {
    if (record.contains(key) && is_known_field(key, record.at(key)))
      add(field_text(key, record.at(key)));
  }
  for (const auto& [key, value] : record.items()) {
    if (!is_known_field(key, value)) add(key + "=" + json_text(value));
  }
  return s;
}

}  // namespace peerbench
