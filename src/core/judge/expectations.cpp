// The --expect file: a site's bars for the verdicts, checked key by key against what exists.
#include <algorithm>
#include <set>

#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/judge/expectations_keys.h"
#include "core/judge/verdict.h"
#include "core/model/json_in.h"
#include "core/model/sizes.h"

namespace peerbench {

using nlohmann::json;

namespace {

const std::vector<std::string>& link_kinds() {
  static const std::vector<std::string> kinds{"nvlink", "pcie", "staged", "net"};
  return kinds;
}

void require_link_kind(const JsonIn& at, const std::string& kind, bool star_allowed) {
  const auto& kinds = link_kinds();
  if ((star_allowed && kind == "*") || std::find(kinds.begin(), kinds.end(), kind) != kinds.end())
    return;
  at.fail("unknown link kind '" + kind + "'; allowed: " + join(kinds) +
          (star_allowed ? ", * (every kind)" : ""));
}

void require_method(const JsonIn& at, const std::string& name,
                    const std::vector<MethodInfo>& catalog) {
  if (catalog.empty() || find_method(catalog, name)) return;
  std::vector<std::string> names;
  for (const auto& m : catalog) names.push_back(m.name);
  at.fail("unknown method '" + name + "'; allowed: " + join(names));
}

// A bar: a number in (0, hi]. A time bar of 0 us fails every result; a bandwidth bar of 0 passes
// every one, and being the site's it would take the place of every other bar.
double bar_value(const JsonIn& at, double hi, bool time) {
  const double v = at.number(0, hi);
  if (!(v > 0)) {
    at.fail(time ? "a time bar of 0 can never be met; give a time above 0 us"
                 : "a bar of 0 GB/s passes every figure and takes the place of the known-good "
                   "and link-rate bars; leave the method out to keep them");
  }
  return v;
}

// {"nvlink": 5, "pcie": 12}: every key a link kind, every value a bar.
std::map<std::string, double> per_kind(const JsonIn& in, double hi, bool positive,
                                       bool star_allowed) {
  in.require_object();
  std::map<std::string, double> out;
  for (const auto& [k, v] : in.raw().items()) {
    const JsonIn at(v, in.file(), in.path() + "." + k);
    require_link_kind(at, k, star_allowed);
    out[k] = bar_value(at, hi, positive);
  }
  return out;
}

// {"ce-write": 380, "nccl-sendrecv": {"nvlink": 340, "net": 20}}
enum class BarUnit { kGbps, kMicroseconds };

std::map<std::string, std::map<std::string, double>> per_method(
    const JsonIn& in, BarUnit unit, const std::vector<MethodInfo>& catalog) {
  const double hi = unit == BarUnit::kGbps ? 1e6 : 1e9;
  const bool positive = unit == BarUnit::kMicroseconds;
  in.require_object();
  std::map<std::string, std::map<std::string, double>> out;
  for (const auto& [k, v] : in.raw().items()) {
    const JsonIn at(v, in.file(), in.path() + "." + k);
    require_method(at, k, catalog);
    // A GB/s bar on a method that only has a time would judge nothing, silently (an audit).
    const MethodInfo* m = find_method(catalog, k);
    if (unit == BarUnit::kGbps && m && m->metric == Metric::kLatency)
      at.fail("'" + k + "' is a latency method (a time, no GB/s): give its bar under " +
              "max_latency_us");
    if (v.is_object()) {
      out[k] = per_kind(at, hi, positive, true);
    } else {
      out[k]["*"] = bar_value(at, hi, positive);
    }
  }
  return out;
}

// A size as a number of bytes or as text ("256M").
std::uint64_t size_value(const JsonIn& in) {
  if (!in.raw().is_string()) return static_cast<std::uint64_t>(in.integer(1, 1ll << 50));
  try {
    return parse_size(in.str(64), in.path());
  } catch (const UsageError& e) {
    in.fail(e.what());
  }
}

void check_keys(const JsonIn& in) {
  static const std::vector<std::string> known{
      "fraction_of_link", "allreduce_fraction_of_link", "scatter_gather_fraction_of_link",
      "asymmetry_tolerance", "noisy_cv", "expected_fraction", "judge_min_bytes",
      "small_message_max_bytes", "off_nvlink_fraction", "min_gbps", "max_latency_us", "latency_us",
      "small_message_us", "baseline", "drift_tolerance",
      // read by `fleet`; one file serves run, report, fleet
      "fleet_outlier_tolerance", "comment"};
  in.only_keys(known);
}

}  // namespace

Expectations expectations_from_json(const json& j, const std::string& file,
                                    const std::vector<MethodInfo>& catalog) {
  JsonIn in(j, file);
  in.require_object();
  check_keys(in);
  Expectations e;
  e.source = file;
  if (auto v = in.opt_number("fraction_of_link", 0, 2)) e.fraction_of_link = *v;
  if (auto v = in.opt_number("allreduce_fraction_of_link", 0, 2)) e.allreduce_fraction_of_link = *v;
  if (auto v = in.opt_number("scatter_gather_fraction_of_link", 0, 2))
    e.scatter_gather_fraction_of_link = *v;
  if (auto v = in.opt_number("asymmetry_tolerance", 0, 1)) e.asymmetry_tolerance = *v;
  if (auto v = in.opt_number("noisy_cv", 0, 10)) e.noisy_cv = *v;
  if (auto v = in.opt_number("expected_fraction", 0, 1)) e.expected_fraction = *v;
  if (auto v = in.opt_number("drift_tolerance", 0, 1)) e.drift_tolerance = *v;
  if (auto v = in.opt_number("off_nvlink_fraction", 0, 1)) e.off_nvlink_fraction = *v;
  if (auto v = in.opt("judge_min_bytes")) e.judge_min_bytes = size_value(*v);
  if (auto v = in.opt("small_message_max_bytes")) e.small_message_max_bytes = size_value(*v);
  if (e.small_message_max_bytes >= e.judge_min_bytes) {  // a size judged both ways
    in.at(in.has("small_message_max_bytes") ? "small_message_max_bytes" : "judge_min_bytes")
        .fail("small_message_max_bytes (" + format_size(e.small_message_max_bytes) +
              ", judged as a time up to it) must be below judge_min_bytes (" +
              format_size(e.judge_min_bytes) + ", bandwidth judged from it)");
  }
  if (auto b = in.opt("baseline"))  // after small_message_max_bytes: it sets which sizes are times
  {
    e.baseline = baseline_entries_from(*b, catalog, e.small_message_max_bytes);
    e.baseline_origin = baseline_origin_from(*b);
  }
  if (auto m = in.opt("min_gbps")) e.min_gbps = per_method(*m, BarUnit::kGbps, catalog);
  if (auto m = in.opt("max_latency_us"))
    e.max_latency_us = per_method(*m, BarUnit::kMicroseconds, catalog);
  if (auto m = in.opt("latency_us")) {
    for (const auto& [k, v] : per_kind(*m, 1e9, true, false)) e.latency_us[k] = v;
  }
  if (auto m = in.opt("small_message_us")) {
    for (const auto& [k, v] : per_kind(*m, 1e9, true, false)) e.small_message_us[k] = v;
  }
  fleet_outlier_tolerance(in);  // fleet's key: checked here too, so that run and report agree
  return e;
}

json to_json(const Expectations& e) {
  json j = {{"fraction_of_link", e.fraction_of_link},
            {"allreduce_fraction_of_link", e.allreduce_fraction_of_link},
            {"scatter_gather_fraction_of_link", e.scatter_gather_fraction_of_link},
            {"asymmetry_tolerance", e.asymmetry_tolerance},
            {"noisy_cv", e.noisy_cv},
            {"expected_fraction", e.expected_fraction},
            {"drift_tolerance", e.drift_tolerance},
            {"judge_min_bytes", e.judge_min_bytes},
            {"small_message_max_bytes", e.small_message_max_bytes},
            {"off_nvlink_fraction", e.off_nvlink_fraction},
            {"latency_us", e.latency_us},
            {"small_message_us", e.small_message_us},
            {"comment", e.source}};
  auto per_method = [](const std::map<std::string, std::map<std::string, double>>& m) {
    json out = json::object();
    for (const auto& [method, kinds] : m) out[method] = kinds;
    return out;
  };
  if (!e.min_gbps.empty()) j["min_gbps"] = per_method(e.min_gbps);
  if (!e.max_latency_us.empty()) j["max_latency_us"] = per_method(e.max_latency_us);
  if (!e.baseline.empty()) {
    json entries = json::array();
    for (const auto& b : e.baseline) entries.push_back(to_json(b));
    j["baseline"] = {{"entries", entries}};
    const auto& o = e.baseline_origin;
    if (!o.drivers.empty() || !o.cuda.empty() || !o.nccl.empty())
      j["baseline"]["from"] = {{"drivers", o.drivers}, {"cuda", o.cuda}, {"nccl", o.nccl}};
  }
  return j;
}

std::optional<double> fleet_outlier_tolerance(const JsonIn& expect_file) {
  expect_file.require_object();
  if (!expect_file.raw().contains(kFleetOutlierToleranceKey)) return std::nullopt;
  return expect_file.at(kFleetOutlierToleranceKey).number(0, 1);
}

Expectations load_expectations(const std::string& path, const std::vector<MethodInfo>& catalog) {
  return expectations_from_json(load_json_file(path, InputKind::kExpect, 16), path, catalog);
}

Expectations load_expectations(const std::string& path) {
  return load_expectations(path, {});
}

}  // namespace peerbench
