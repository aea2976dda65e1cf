// nccl-tests' JSON (-J FILE, 2.19): util.cu's jsonKey calls. Version 3 of its file format: args,
// env, nccl_version, config (with devices), results (out_of_place and in_place objects),
// out_of_bounds, average_bus_bandwidth, errors.
#include "core/base/errors.h"
#include "core/import/import_document.h"
#include "core/import/nccl_tests.h"

namespace peerbench::import_detail {
namespace {

using nlohmann::json;

double num(const json& o, const char* key, double fallback = 0) {
  const auto it = o.find(key);
  return it != o.end() && it->is_number() ? it->get<double>() : fallback;
}

std::string str(const json& o, const char* key) {
  const auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

std::optional<NcclTestsFigures> figures_of(const json& row, const char* key) {
  const auto it = row.find(key);
  if (it == row.end() || !it->is_object()) return std::nullopt;
  NcclTestsFigures f;
  f.time_us = it->contains("time") ? num(*it, "time") : num(*it, "cpu_time");
  f.algbw = num(*it, "alg_bw");
  f.busbw = num(*it, "bus_bw");
  const auto w = it->find("nwrong");
  if (w != it->end() && w->is_number()) f.wrong = w->get<double>();
  return f;
}

void read_devices(RunDocument& d, const json& config) {
  const auto devs = config.find("devices");
  if (devs == config.end() || !devs->is_array()) return;
  for (const auto& v : *devs) {
    if (!v.is_object()) continue;
    add_rank(d, str(v, "hostname"), static_cast<int>(num(v, "device", -1)), str(v, "device_info"),
             "");
  }
}

std::vector<NcclTestsRow> read_rows(const json& j, const std::string& file) {
  std::vector<NcclTestsRow> rows;
  const auto rs = j.find("results");
  if (rs == j.end()) return rows;
  if (!rs->is_array()) throw InputError(file, "results", "expected an array");
  for (const auto& v : *rs) {
    if (!v.is_object()) throw InputError(file, "results", "expected objects");
    NcclTestsRow r;
    r.bytes = static_cast<std::uint64_t>(num(v, "size"));
    r.count = static_cast<std::uint64_t>(num(v, "count"));
    r.type = str(v, "type");
    r.redop = str(v, "redop");
    const auto root = number(str(v, "root"));
    r.root = root ? static_cast<int>(*root) : -1;
    r.out_of_place = figures_of(v, "out_of_place");
    r.in_place = figures_of(v, "in_place");
    if (r.in_place || r.out_of_place) rows.push_back(r);
  }
  return rows;
}

}  // namespace

RunDocument read_nccl_tests_json(const json& j, const std::string& file) {
  RunDocument d = new_document("nccl-tests", "", "nccl-tests JSON (-J)", file);
  note_unknown(d, "the nccl-tests version (its JSON holds its file format's version only)");
  d.system.nccl_version = nccl_version_of_code(static_cast<long>(num(j, "nccl_version")));
  const json config = j.value("config", json::object());
  if (config.is_object()) {
    read_devices(d, config);
    if (config.contains("maximum_bytes"))
      d.config["sizes"] = {static_cast<std::uint64_t>(num(config, "maximum_bytes"))};
  }
  std::string program;
  const auto args = j.find("args");
  if (args != j.end() && args->is_array() && !args->empty() && (*args)[0].is_string())
    program = (*args)[0].get<std::string>();
  const auto rows = read_rows(j, file);
  if (program.empty()) program = program_of_rows(rows, static_cast<int>(d.system.ranks.size()));
  const std::string method = program.empty() ? "" : method_of_program(d, program);
  if (!method.empty()) {
    d.config["methods"] = {method};
    for (const auto& r : rows)
      add_row(d, method, r, static_cast<int>(num(config, "iterations")),
              static_cast<int>(num(config, "graph")));
  }
  const auto errs = j.find("errors");
  if (errs != j.end() && errs->is_array()) {
    for (const auto& e : *errs)
      if (e.is_string() && !e.get<std::string>().empty()) d.errors.push_back(e.get<std::string>());
  }
  const bool complete = j.contains("average_bus_bandwidth");
  finish_document(d, complete,
                  rows.empty() ? "the JSON stops before its results: no row of figures"
                               : "the JSON has no average_bus_bandwidth: the sweep did not end");
  return d;
}

}  // namespace peerbench::import_detail
