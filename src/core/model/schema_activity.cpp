#include "core/model/schema_activity.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "core/model/json_out.h"
#include "core/model/sizes.h"

namespace peerbench {

using nlohmann::json;

namespace {

constexpr double kMaxUs = 1e12;           // a day and a half in microseconds: no case is longer
constexpr double kMaxSeconds = 1e7;       // about four months since the run started
constexpr double kMaxMemory = 1e15;       // bytes of GPU memory
constexpr long long kMaxPid = 1ll << 40;  // Linux pids are far smaller; NVML reports them as uint

std::optional<int> opt_pct(const JsonIn& in, const char* key) {
  const auto v = in.opt_integer(key, 0, 100);
  return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
}

json processes_json(const std::vector<ForeignProcess>& ps) {
  json out = json::array();
  for (const auto& p : ps) out.push_back(to_json(p));
  return out;
}

std::vector<ForeignProcess> processes_from(const JsonIn& in, const char* key) {
  std::vector<ForeignProcess> out;
  if (auto a = in.opt(key)) {
    for (const auto& p : a->array(4096)) out.push_back(foreign_process_from(p));
  }
  return out;
}

json sighting_json(const ActivitySighting& s) {
  return json{{"kind", s.kind},
              {"process", s.kind == "process" ? to_json(s.process) : json()},
              {"reason", s.reason.empty() ? json() : json(s.reason)},
              {"first_seen_s", s.first_seen_s},
              {"last_seen_s", s.last_seen_s},
              {"samples", s.samples}};
}

ActivitySighting sighting_from(const JsonIn& in) {
  ActivitySighting s;
  s.kind = in.at("kind").str(64);
  if (s.kind != "process" && s.kind != "throttle" && s.kind != "busy-while-idle")
    in.at("kind").fail(quoted_value(s.kind) + " is not process, throttle or busy-while-idle");
  if (auto p = in.opt("process")) s.process = foreign_process_from(*p);
  s.reason = in.opt_str("reason").value_or("");
  s.first_seen_s = in.at("first_seen_s").number(0, kMaxSeconds);
  s.last_seen_s = in.at("last_seen_s").number(s.first_seen_s, kMaxSeconds);
  s.samples = static_cast<int>(in.opt_integer("samples", 0, 1 << 30).value_or(0));
  return s;
}

}  // namespace

json to_json(const IdleCheck& c) {
  return json{{"at_s", c.at_s},
              {"when", c.when},
              {"idle", c.idle},
              {"waited_s", c.waited_s},
              {"util_gpu_pct", opt_json(c.util_gpu_pct)},
              {"util_mem_pct", opt_json(c.util_mem_pct)},
              {"processes", processes_json(c.processes)},
              {"throttle_reasons", c.throttle_reasons}};
}

IdleCheck idle_check_from(const JsonIn& in) {
  IdleCheck c;
  c.at_s = in.at("at_s").number(0, kMaxSeconds);
  c.when = in.at("when").str(64);
  c.idle = in.at("idle").boolean();
  c.waited_s = in.opt_number("waited_s", 0, kMaxSeconds).value_or(0);
  c.util_gpu_pct = opt_pct(in, "util_gpu_pct");
  c.util_mem_pct = opt_pct(in, "util_mem_pct");
  c.processes = processes_from(in, "processes");
  if (auto t = in.opt("throttle_reasons")) c.throttle_reasons = t->string_array(64);
  return c;
}

json to_json(const IterationStats& s) {
  return json{{"count", s.count},     {"min_us", s.min_us}, {"p50_us", s.p50_us},
              {"p95_us", s.p95_us},   {"p99_us", s.p99_us}, {"max_us", s.max_us},
              {"mean_us", s.mean_us}, {"cv", s.cv}};
}

IterationStats iteration_stats_from(const JsonIn& in) {
  IterationStats s;
  s.count = static_cast<int>(in.at("count").integer(1, 1 << 30));
  s.min_us = in.at("min_us").number(0, kMaxUs);
  s.p50_us = in.at("p50_us").number(s.min_us, kMaxUs);
  s.p95_us = in.at("p95_us").number(s.p50_us, kMaxUs);
  s.p99_us = in.at("p99_us").number(s.p95_us, kMaxUs);
  s.max_us = in.at("max_us").number(s.p99_us, kMaxUs);
  s.mean_us = in.at("mean_us").number(s.min_us, s.max_us);
  s.cv = in.at("cv").number(0, 1e6);
  return s;
}

json to_json(const EnqueueInfo& e) {
  return json{{"host_us_per_op", e.host_us_per_op},
              {"batches", e.batches},
              {"launch_bound", e.launch_bound},
              {"note", e.note.empty() ? json() : json(e.note)}};
}

EnqueueInfo enqueue_info_from(const JsonIn& in) {
  EnqueueInfo e;
  e.host_us_per_op = in.at("host_us_per_op").number(0, kMaxUs);
  e.batches = static_cast<int>(in.opt_integer("batches", 1, 1 << 30).value_or(1));
  e.launch_bound = in.at("launch_bound").boolean();
  e.note = in.opt_str("note").value_or("");
  return e;
}

json to_json(const ForeignProcess& p) {
  return json{{"pid", p.pid},
              {"name", p.name.empty() ? json() : json(p.name)},
              {"used_memory_bytes", opt_json(p.used_memory_bytes)},
              {"sm_util_pct", opt_json(p.sm_util_pct)}};
}

ForeignProcess foreign_process_from(const JsonIn& in) {
  ForeignProcess p;
  p.pid = in.at("pid").integer(0, kMaxPid);
  p.name = in.opt_str("name").value_or("");
  if (auto m = in.opt_number("used_memory_bytes", 0, kMaxMemory))
    p.used_memory_bytes = static_cast<std::uint64_t>(*m);
  p.sm_util_pct = opt_pct(in, "sm_util_pct");
  return p;
}

json to_json(const GpuInterference& g) {
  return json{{"rank", g.rank},
              {"host", g.host},
              {"gpu_index", g.gpu_index},
              {"pci_bus_id", g.pci_bus_id},
              {"processes", processes_json(g.processes)},
              {"util_gpu_pct", opt_json(g.util_gpu_pct)},
              {"util_mem_pct", opt_json(g.util_mem_pct)},
              {"busy_while_idle", g.busy_while_idle},
              {"throttle_reasons", g.throttle_reasons}};
}

GpuInterference gpu_interference_from(const JsonIn& in) {
  GpuInterference g;
  g.rank = static_cast<int>(in.at("rank").integer(0, 1 << 20));
  g.host = in.opt_str("host").value_or("");
  g.gpu_index = static_cast<int>(in.opt_integer("gpu_index", 0, 4096).value_or(-1));
  g.pci_bus_id = in.opt_str("pci_bus_id").value_or("");
  g.processes = processes_from(in, "processes");
  g.util_gpu_pct = opt_pct(in, "util_gpu_pct");
  g.util_mem_pct = opt_pct(in, "util_mem_pct");
  g.busy_while_idle = in.opt_bool("busy_while_idle").value_or(false);
  if (auto t = in.opt("throttle_reasons")) g.throttle_reasons = t->string_array(64);
  return g;
}

json to_json(const GpuActivityLog& g) {
  json checks = json::array();
  for (const auto& c : g.idle_checks) checks.push_back(to_json(c));
  json seen = json::array();
  for (const auto& s : g.seen) seen.push_back(sighting_json(s));
  return json{{"host", g.host},
              {"gpu_index", g.gpu_index},
              {"pci_bus_id", g.pci_bus_id},
              {"monitor", g.monitor},
              {"interval_s", g.interval_s},
              {"samples", g.samples},
              {"idle_checks", checks},
              {"seen", seen},
              {"note", g.note.empty() ? json() : json(g.note)}};
}

GpuActivityLog gpu_activity_from(const JsonIn& in) {
  GpuActivityLog g;
  g.host = in.at("host").str(256);
  g.gpu_index = static_cast<int>(in.at("gpu_index").integer(0, 4096));
  g.pci_bus_id = in.opt_str("pci_bus_id").value_or("");
  g.monitor = in.at("monitor").str(1024);
  g.interval_s = in.opt_number("interval_s", 0, 3600).value_or(0);
  g.samples = static_cast<int>(in.opt_integer("samples", 0, 1 << 30).value_or(0));
  if (auto cs = in.opt("idle_checks")) {
    for (const auto& c : cs->array(1 << 16)) g.idle_checks.push_back(idle_check_from(c));
  }
  if (auto ss = in.opt("seen")) {
    for (const auto& s : ss->array(1 << 16)) g.seen.push_back(sighting_from(s));
  }
  g.note = in.opt_str("note").value_or("");
  return g;
}

json to_json(const BurnIn& b) {
  json cycles = json::array();
  for (const auto& c : b.cycles) {
    cycles.push_back({{"cycle", c.cycle},
                      {"started_s", c.started_s},
                      {"elapsed_s", c.elapsed_s},
                      {"wrong", c.wrong},
                      {"failed", c.failed},
                      {"counters", c.counters}});
  }
  json series = json::array();
  for (const auto& x : b.series) {
    json values = json::array();
    for (const auto& v : x.values) values.push_back(v ? json(*v) : json());
    series.push_back({{"method", x.method},
                      {"src", x.src < 0 ? json() : json(x.src)},
                      {"dst", x.dst < 0 ? json() : json(x.dst)},
                      {"bytes", x.bytes},
                      {"datatype", x.datatype.empty() ? json() : json(x.datatype)},
                      {"op", x.op.empty() ? json() : json(x.op)},
                      {"unit", x.unit},
                      {"values", values},
                      {"error_cycles", x.error_cycles},
                      {"failed_cycles", x.failed_cycles},
                      {"contended_cycles", x.contended_cycles}});
    if (!x.throttled_cycles.empty()) series.back()["throttled_cycles"] = x.throttled_cycles;
  }
  return json{{"cycles_requested", b.cycles_requested},
              {"duration_s", b.duration_s},
              {"cycles_done", b.cycles_done},
              {"stopped_by", b.stopped_by},
              {"cycles", cycles},
              {"series", series}};
}

namespace {

std::vector<int> cycle_numbers(const JsonIn& in, const char* key, int most) {
  std::vector<int> out;
  if (auto a = in.opt(key)) {
    for (const auto& c : a->array(1 << 20)) {
      const auto n = static_cast<int>(c.integer(1, most));
      if (!out.empty() && n <= out.back())
        c.fail(std::to_string(n) + " after " + std::to_string(out.back()) +
               "; cycles are listed once each, in order");
      out.push_back(n);
    }
  }
  return out;
}

// Schema 3 kept no unit: its values were the headline figure, a time only for latency methods
// (a "unit" there is not read). From schema 4 every series has one, and it must be the one the
// writer gives its method and size: a wrong one would turn drift's direction around.
std::string series_unit(const JsonIn& x, const MethodInfo* m, std::uint64_t bytes, int version) {
  if (version < 4) return m && m->metric == Metric::kLatency ? "us" : "GB/s";
  const std::string u = x.at("unit").str(64);
  if (u != "us" && u != "GB/s") x.at("unit").fail(quoted_value(u) + " is not us or GB/s");
  if (!m) return u;  // a method the file does not describe: validate_burn_in names it
  const std::string fits = burn_in_unit(m, bytes);
  if (u != fits) {
    x.at("unit").fail("'" + u + "' does not fit " + m->name + " at " + format_size(bytes) + " (" +
                      fits + " there)");
  }
  return u;
}

// The cases of a burn-in's series seen so far: method, ranks, size, type and reduction.
using SeriesCases =
    std::set<std::tuple<std::string, int, int, std::uint64_t, std::string, std::string>>;

// The same case twice: which one the verdict judged would depend on the order.
void refuse_duplicate(const JsonIn& x, const BurnInSeries& s, SeriesCases& seen) {
  if (!seen.insert({s.method, s.src, s.dst, s.bytes, s.datatype, s.op}).second)
    x.fail("a second series of " + s.method + " at " + format_size(s.bytes) + " for that pair");
}

BurnInCycle burn_in_cycle_from(const JsonIn& c) {
  BurnInCycle x;
  c.only_keys({"cycle", "started_s", "elapsed_s", "wrong", "failed", "counters"});
  x.cycle = static_cast<int>(c.at("cycle").integer(1, 1 << 20));
  x.started_s = c.at("started_s").number(0, 1e7);
  x.elapsed_s = c.at("elapsed_s").number(0, 1e7);
  x.wrong =
      static_cast<std::uint64_t>(c.opt_integer("wrong", 0, 1000000000000000000ll).value_or(0));
  x.failed = static_cast<int>(c.opt_integer("failed", 0, 1 << 30).value_or(0));
  if (auto k = c.opt("counters")) x.counters = k->string_array(1 << 16);
  return x;
}

// A series' figure per cycle (null: none that cycle), at most one past the whole cycles.
void read_series_values(const JsonIn& x, int cycles_done, BurnInSeries& s) {
  const auto values = x.at("values").array(1 << 20);
  if (values.size() > static_cast<std::size_t>(cycles_done + 1)) {
    x.at("values").fail(std::to_string(values.size()) + " values for " +
                        std::to_string(cycles_done) +
                        " whole cycles (at most one more: the "
                        "cycle in flight)");
  }
  for (const auto& v : values) {
    if (v.raw().is_null()) {
      s.values.emplace_back();
    } else {
      s.values.emplace_back(v.number(0, 1e12));
    }
  }
}

// The cycles a series erred, failed, ran beside another job or under held clocks.
void read_series_cycles(const JsonIn& x, int most, BurnInSeries& s) {
  s.error_cycles = cycle_numbers(x, "error_cycles", most);
  s.failed_cycles = cycle_numbers(x, "failed_cycles", most);
  s.contended_cycles = cycle_numbers(x, "contended_cycles", most);
  s.throttled_cycles = cycle_numbers(x, "throttled_cycles", most);
  // A cycle beside another job (or under held clocks) has no figure of the link: a figure kept
  // there (writers before 2026-12-03, for a case recorded twice in a cycle; or an edit) counted
  // the cycle as clean (an audit), and is dropped.
  for (int k : s.contended_cycles) {
    if (static_cast<std::size_t>(k) <= s.values.size()) s.values[k - 1].reset();
  }
  for (int k : s.throttled_cycles) {
    if (!std::binary_search(s.contended_cycles.begin(), s.contended_cycles.end(), k))
      x.at("throttled_cycles")
          .fail("cycle " + std::to_string(k) +
                " is not in contended_cycles; held clocks are one kind of "
                "interference, listed there too");
  }
}

BurnInSeries burn_in_series_from(const JsonIn& x, const std::vector<MethodInfo>& methods,
                                 int version, int cycles_done, SeriesCases& seen) {
  BurnInSeries s;
  x.only_keys({"method", "src", "dst", "bytes", "datatype", "op", "unit", "values", "error_cycles",
               "failed_cycles", "contended_cycles", "throttled_cycles"});
  s.method = x.at("method").str(128);
  s.src = static_cast<int>(x.opt_integer("src", 0, 1 << 20).value_or(-1));
  s.dst = static_cast<int>(x.opt_integer("dst", 0, 1 << 20).value_or(-1));
  s.bytes = static_cast<std::uint64_t>(x.at("bytes").integer(1, 1000000000000000ll));
  s.datatype = x.opt_str("datatype").value_or("");
  s.op = x.opt_str("op").value_or("");
  s.unit = series_unit(x, find_method(methods, s.method), s.bytes, version);
  refuse_duplicate(x, s, seen);
  read_series_values(x, cycles_done, s);
  // A burn-in stopped mid-cycle keeps the cases that cycle finished: one cycle past the whole ones.
  read_series_cycles(x, cycles_done + 1, s);
  return s;
}

}  // namespace

BurnIn burn_in_from(const JsonIn& in, const std::vector<MethodInfo>& methods, int version) {
  BurnIn b;
  in.only_keys({"cycles_requested", "duration_s", "cycles_done", "stopped_by", "cycles", "series"});
  b.cycles_requested = static_cast<int>(in.at("cycles_requested").integer(0, 1 << 20));
  b.duration_s = in.opt_number("duration_s", 0, 1e7).value_or(0);
  b.cycles_done = static_cast<int>(in.at("cycles_done").integer(0, 1 << 20));
  b.stopped_by = in.opt_str("stopped_by").value_or("");
  for (const auto& c : in.at("cycles").array(1 << 20)) b.cycles.push_back(burn_in_cycle_from(c));
  SeriesCases seen;
  for (const auto& x : in.at("series").array(1 << 20))
    b.series.push_back(burn_in_series_from(x, methods, version, b.cycles_done, seen));
  return b;
}

json to_json(const FabricInfo& f) {
  return json{{"state", f.state},
              {"status", f.status.empty() ? json() : json(f.status)},
              {"clique_id", opt_json(f.clique_id)},
              {"cluster_uuid", f.cluster_uuid.empty() ? json() : json(f.cluster_uuid)},
              {"health_mask", opt_json(f.health_mask)},
              {"health", f.health.empty() ? json() : json(f.health)},
              {"note", f.note.empty() ? json() : json(f.note)}};
}

FabricInfo fabric_info_from(const JsonIn& in) {
  FabricInfo f;
  f.state = in.at("state").str(64);
  f.status = in.opt_str("status").value_or("");
  if (auto c = in.opt_integer("clique_id", 0, 0xffffffffll))
    f.clique_id = static_cast<unsigned>(*c);
  f.cluster_uuid = in.opt_str("cluster_uuid").value_or("");
  if (auto h = in.opt_integer("health_mask", 0, 0xffffffffll))
    f.health_mask = static_cast<unsigned>(*h);
  f.health = in.opt_str("health").value_or("");
  f.note = in.opt_str("note").value_or("");
  return f;
}

// Written only where they hold something: a results file of 100k cases parses a tenth faster
// without six null keys per result, and a reader takes a missing key for null.
void add_result_activity(const Result& r, json& j) {
  if (r.requested_bytes) j["requested_bytes"] = r.requested_bytes;
  if (r.per_iteration) j["per_iteration"] = to_json(*r.per_iteration);
  if (r.enqueue) j["enqueue"] = to_json(*r.enqueue);
  if (r.interference) {
    json list = json::array();
    for (const auto& g : *r.interference) list.push_back(to_json(g));
    j["interference"] = list;
  }
  if (r.attempt) j["attempt"] = r.attempt;
}

void read_result_activity(const JsonIn& in, Result& r) {
  if (auto b = in.opt_number("requested_bytes", 0, 1e15))
    r.requested_bytes = static_cast<std::uint64_t>(*b);
  if (auto p = in.opt("per_iteration")) r.per_iteration = iteration_stats_from(*p);
  if (auto e = in.opt("enqueue")) r.enqueue = enqueue_info_from(*e);
  if (auto list = in.opt("interference")) {
    r.interference.emplace();
    for (const auto& g : list->array(4096)) r.interference->push_back(gpu_interference_from(g));
  }
  r.attempt = static_cast<int>(in.opt_integer("attempt", 0, 1000).value_or(0));
}

}  // namespace peerbench
