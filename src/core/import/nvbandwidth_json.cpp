// nvbandwidth's JSON (-j, json_output.cpp): {"nvbandwidth": {version, git_version, "CUDA Runtime
// Version", "Driver Version", "GPU Device list" ["0: NAME (00000000:19:00): (host)"], testcases
// [{name, status, bandwidth_description, bandwidth_matrix [["N/A", "389.1", ...], ...]}]}}.
#include "core/base/errors.h"
#include "core/import/import_document.h"
#include "core/import/nvbandwidth.h"

namespace peerbench::import_detail {
namespace {

using nlohmann::json;

std::string string_field(const json& o, const char* key) {
  const auto it = o.find(key);
  if (it == o.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  return it->is_number() ? it->dump() : "";
}

// "0: NAME (00000000:19:00): (host)": the host in the last parentheses (v0.8 on).
std::string host_of_device(const std::string& s) {
  const auto at = s.rfind(": (");
  return at == std::string::npos || s.back() != ')' ? "" : s.substr(at + 3, s.size() - at - 4);
}

NvbMatrix matrix_of(const json& t, const std::string& file) {
  NvbMatrix m{string_field(t, "name"), string_field(t, "bandwidth_description"), {}};
  const auto rows = t.find("bandwidth_matrix");
  if (rows == t.end()) return m;
  if (!rows->is_array()) throw InputError(file, "bandwidth_matrix", "expected an array of rows");
  for (const auto& r : *rows) {
    if (!r.is_array()) throw InputError(file, "bandwidth_matrix", "expected an array of rows");
    std::vector<std::optional<double>> row;
    for (const auto& v : r) {
      if (v.is_number())
        row.push_back(v.get<double>());
      else
        row.push_back(v.is_string() ? number(v.get<std::string>()) : std::nullopt);
    }
    m.values.push_back(row);
  }
  return m;
}

}  // namespace

RunDocument read_nvbandwidth_json(const json& j, const std::string& file) {
  const json& root = j.at("nvbandwidth");
  RunDocument d = new_document("nvbandwidth", string_field(root, "version"), "nvbandwidth JSON (-j)", file);
  d.system.driver_version = string_field(root, "Driver Version");
  if (d.system.driver_version.empty()) note_unknown(d, "the driver version");
  const auto devs = root.find("GPU Device list");
  if (devs != root.end() && devs->is_array()) {
    const std::string host = string_field(root, "Hostname");
    for (const auto& v : *devs) {
      if (!v.is_string()) continue;
      const std::string s = v.get<std::string>();
      add_nvb_device(d, host.empty() ? host_of_device(s) : host, s);
    }
  }
  int tests = 0, ended = 0;
  const auto tcs = root.find("testcases");
  if (tcs != root.end() && tcs->is_array()) {
    for (const auto& t : *tcs) {
      if (!t.is_object()) continue;
      ++tests;
      const std::string status = string_field(t, "status");
      if (status != "Running") ++ended;  // Passed, Waived, Error: the test ended
      if (status == "Passed") add_nvb_matrix(d, matrix_of(t, file));
      if (status == "Waived") note_nvb_waived(d, string_field(t, "name"));
      if (status == "Error" || t.contains("error"))
        d.errors.push_back(string_field(t, "name") + ": " + string_field(t, "error"));
    }
  }
  if (root.contains("error")) d.errors.push_back(string_field(root, "error"));
  finish_document(d, tests > 0 && ended == tests,
                  tests == 0 ? "the JSON holds no test" : "a test is still 'Running' in the JSON");
  return d;
}

}  // namespace peerbench::import_detail
