// Reading a results file: its sections in a fixed order, the long arrays streamed while the file
// is parsed (json_in.h) so that a file of millions of results is never held twice.
#include <algorithm>
#include <functional>

#include "core/base/errors.h"
#include "core/model/json_text.h"
#include "core/model/results_validate.h"
#include "core/model/schema_activity.h"
#include "core/model/schema_diagnosis.h"
#include "core/model/schema_node_evidence.h"
#include "core/model/schema_readers.h"

namespace peerbench {

using nlohmann::json;

namespace {

// tool, start and finish times, status and in_progress.
void read_tool_and_status(const JsonIn& in, RunDocument& d) {
  const auto tool = in.at("tool");
  d.tool.name = tool.opt_str("name").value_or("peerbench");
  d.tool.version = tool.opt_str("version").value_or("");
  d.tool.git_revision = tool.opt_str("git_revision").value_or("");
  if (auto cl = tool.opt("command_line")) d.tool.command_line = cl->string_array(4096);
  d.started_at = in.opt_str("started_at").value_or("");
  d.finished_at = in.opt_str("finished_at").value_or("");
  d.status = in.at("status").str(64);
  if (d.status != "complete" && d.status != "incomplete" && d.status != "failed") {
    in.at("status").fail(quoted_value(d.status) + " is not complete, incomplete or failed");
  }
  if (in.has("in_progress")) d.in_progress = in.at("in_progress").raw();
}

SystemInfo read_system(const JsonIn& sys, const std::string& file) {
  SystemInfo s;
  if (auto hosts = sys.opt("hosts")) s.hosts = hosts->string_array(kMaxItems);
  for (const auto& r : sys.at("ranks").array(kMaxItems)) {
    s.ranks.push_back(rank_info_from_json(r.raw(), file, r.path()));
  }
  s.driver_version = sys.opt_str("driver_version").value_or("");
  s.cuda_driver_version =
      static_cast<int>(sys.opt_integer("cuda_driver_version", 0, 1 << 30).value_or(0));
  s.cuda_runtime_version =
      static_cast<int>(sys.opt_integer("cuda_runtime_version", 0, 1 << 30).value_or(0));
  s.nccl_version = sys.opt_str("nccl_version").value_or("");
  s.mpi_library_version = sys.opt_str("mpi_library_version").value_or("");
  return s;
}

// The run's settings that verdicts, fleets and comparisons read as numbers, held to what `run`
// writes: "average": 1e300 was an out-of-range cast, and "blocking": true read as -z 1 in one
// place and as 0 in another (an audit). Absent or null is a file from before the setting.
void check_config(const JsonIn& c) {
  struct Range {
    const char* key;
    long long hi;
  };
  for (const Range& r :
       {Range{"average", 3}, Range{"blocking", 2}, Range{"local_register", 2},
        Range{"confirm", 1000}, Range{"cudagraph_replays", 100000}, Range{"run_cycles", 1 << 20}})
    c.opt_integer(r.key, 0, r.hi);
  c.opt_number("duration_s", 0, 1e7);
  c.opt_bool("allreduce_inplace");
}

// config, environment and the methods measured.
void read_config_and_methods(const JsonIn& in, const std::string& file, RunDocument& d) {
  if (in.has("config")) {
    in.at("config").require_object();
    check_config(in.at("config"));
    d.config = in.at("config").raw();
  }
  if (auto env = in.opt("environment")) {
    env->require_object();
    for (const auto& [k, v] : env->raw().items()) {
      d.environment[k] = JsonIn(v, file, env->path() + "." + k).str(4096);
    }
  }
  for (const auto& m : in.at("methods").array(4096)) d.methods.push_back(method_from(m));
}

PairFacts read_pair(const JsonIn& p) {
  PairFacts f;
  f.src = static_cast<int>(p.at("src").integer(0, kMaxRank));
  f.dst = static_cast<int>(p.at("dst").integer(0, kMaxRank));
  f.same_host = p.at("same_host").boolean();
  f.can_access_peer = p.opt_bool("can_access_peer");
  f.peer_access = p.at("peer_access").str(64);
  f.already_enabled = p.opt_bool("already_enabled");
  f.error = p.opt_str("error").value_or("");
  if (auto n = p.opt("nccl")) f.nccl = pair_transport_from(*n);
  return f;
}

NcclCapture read_nccl(const JsonIn& n) {
  NcclCapture c;
  c.mode = n.at("mode").str(64);
  c.note = n.opt_str("note").value_or("");
  if (auto s = n.opt("subsystems")) c.subsystems = s->string_array(64);
  c.path_type = n.opt_str("path_type").value_or("");
  if (auto gs = n.opt("graphs")) c.graphs = graphs_from(*gs);
  if (auto u = n.opt("unknown_lines")) c.unknown_lines = u->string_array(kMaxItems);
  if (auto r = n.opt("reasons")) c.reasons = r->string_array(kMaxItems);
  return c;
}

DirectionResult read_direction(const JsonIn& dj) {
  DirectionResult dr;
  dr.src = static_cast<int>(dj.at("src").integer(0, kMaxRank));
  dr.dst = static_cast<int>(dj.at("dst").integer(0, kMaxRank));
  dr.time_us = stats_from(dj.at("time_us"));
  dr.algbw_gbps = stats_from(dj.at("algbw_gbps"));
  return dr;
}

LinkCounters read_link_counters(const JsonIn& lc) {
  LinkCounters c;
  c.source = lc.opt_str("source").value_or("");
  c.src_tx_bytes = lc.opt_number("src_nvlink_tx_bytes", 0, 1e18);
  c.dst_rx_bytes = lc.opt_number("dst_nvlink_rx_bytes", 0, 1e18);
  c.payload_bytes = lc.opt_number("payload_bytes", 0, 1e18).value_or(0);
  c.note = lc.opt_str("note").value_or("");
  return c;
}

// The fields after the statistics: directions, data check, collective parameters, samples,
// link counters.
void read_result_details(const JsonIn& r, Result& res) {
  if (auto ds = r.opt("directions")) {
    for (const auto& dj : ds->array(64)) res.directions.push_back(read_direction(dj));
  }
  if (auto c = r.opt("check")) {
    res.checked = c->opt_bool("checked").value_or(false);
    res.checked_elements =
        static_cast<std::uint64_t>(c->opt_number("elements", 0, kMaxBytes).value_or(0));
    res.wrong = static_cast<std::uint64_t>(c->opt_number("wrong", 0, kMaxBytes).value_or(0));
  }
  res.gate_timeouts = static_cast<int>(r.opt_integer("gate_timeouts", 0, 1 << 30).value_or(0));
  res.datatype = r.opt_str("datatype").value_or("");
  res.op = r.opt_str("op").value_or("");
  res.root = static_cast<int>(r.opt_integer("root", 0, kMaxRank).value_or(-1));
  if (auto st = r.opt("sample_time_us")) {
    for (const auto& v : st->array(1 << 20)) res.sample_time_us.push_back(v.number(0, 1e15));
  }
  if (auto lc = r.opt("link_counters")) res.link_counters = read_link_counters(*lc);
  read_result_activity(r, res);
}

// A transfer size: a whole number of bytes, at least 1.
std::uint64_t read_bytes(const JsonIn& b) {
  const double v = b.number(0, kMaxBytes);
  if (!(v >= 1) || std::floor(v) != v) {
    std::ostringstream m;
    m << json_text(b.raw()) << " is not a size; use a whole number of bytes of at least 1";
    b.fail(m.str());
  }
  return static_cast<std::uint64_t>(v);
}

Result read_result(const JsonIn& r) {
  Result res;
  res.method = r.at("method").str(128);
  res.src = rank_field(r, "src");
  res.dst = rank_field(r, "dst");
  res.bytes = read_bytes(r.at("bytes"));
  const auto st = r.at("status").str(64);
  auto status = result_status_from_string(st);
  if (!status) r.at("status").fail(quoted_value(st) + " is not a result status");
  res.status = *status;
  res.reason = r.opt_str("reason").value_or("");
  res.warmup_iters = static_cast<int>(r.opt_integer("warmup_iters", 0, 1 << 30).value_or(0));
  res.iters = static_cast<int>(r.opt_integer("iters", 0, 1 << 30).value_or(0));
  res.samples = static_cast<int>(r.opt_integer("samples", 0, 1 << 30).value_or(0));
  res.graph_replays = static_cast<int>(r.opt_integer("graph_replays", 0, 1 << 30).value_or(0));
  res.round = static_cast<int>(r.opt_integer("round", 0, 1 << 30).value_or(0));
  res.concurrent_pairs =
      static_cast<int>(r.opt_integer("concurrent_pairs", 0, 1 << 20).value_or(1));
  res.time_us = opt_stats(r, "time_us");
  res.algbw_gbps = opt_stats(r, "algbw_gbps");
  res.busbw_gbps = opt_stats(r, "busbw_gbps");
  if (res.status == ResultStatus::kOk && (!res.time_us || !res.algbw_gbps)) {
    r.fail("status ok but time_us or algbw_gbps is missing");
  }
  read_result_details(r, res);
  return res;
}

Flag read_flag(const JsonIn& f) {
  Flag fl;
  fl.code = f.at("code").str(64);
  fl.method = f.opt_str("method").value_or("");
  fl.message = f.at("message").str();
  if (f.has("evidence")) fl.evidence = f.at("evidence").raw();
  return fl;
}

PairVerdict read_verdict(const JsonIn& v) {
  PairVerdict pv;
  pv.src = rank_field(v, "src");
  pv.dst = rank_field(v, "dst");
  pv.link = v.opt_str("link").value_or("");
  pv.link_description = v.opt_str("link_description").value_or("");
  pv.observed = v.opt_str("observed").value_or("");
  pv.verdict = v.at("verdict").str(64);
  for (const auto& f : v.at("flags").array(4096)) pv.flags.push_back(read_flag(f));
  if (auto ms = v.opt("methods")) {
    for (const auto& m : ms->array(4096)) pv.methods.push_back(method_verdict_from(m));
  }
  if (auto cs = v.opt("cards")) {
    for (const auto& c : cs->array(kMaxItems)) pv.cards.push_back(card_from(c));
  }
  if (auto cp = v.opt("concurrent_pairs")) pv.concurrent_pairs = cp->string_array(kMaxItems);
  return pv;
}

// link_health, timing and errors: the document's closing sections.
void read_link_health_timing_errors(const JsonIn& in, const std::string& file, RunDocument& d) {
  if (auto lh = in.opt("link_health")) {
    for (const auto& h : lh->array(kMaxItems)) {
      d.link_health.push_back(gpu_link_health_from_json(h.raw(), file, h.path()));
    }
  }
  if (auto t = in.opt("timing")) {
    d.timing.estimated_s = t->opt_number("estimated_s", 0, 1e9);
    d.timing.elapsed_s = t->opt_number("elapsed_s", 0, 1e9);
  }
  if (auto e = in.opt("errors")) d.errors = e->string_array(kMaxItems);
}

// Bytes a read entry keeps on the heap, for the reader's memory budget (json_in.h). A result
// counts its slot twice: the vector holding it doubles as it grows.
std::size_t heap_of(const std::string& s) {
  return s.capacity() > 15 ? s.capacity() + 17 : 0;
}

std::size_t heap_of(const std::vector<std::string>& v) {
  std::size_t n = v.capacity() * sizeof(std::string);
  for (const auto& s : v) n += heap_of(s);
  return n;
}

std::size_t kept_bytes(const Result& r) {
  std::size_t n = 2 * sizeof(Result) + heap_of(r.method) + heap_of(r.reason) + heap_of(r.datatype) +
                  heap_of(r.op) + r.directions.capacity() * sizeof(DirectionResult) +
                  r.sample_time_us.capacity() * sizeof(double);
  if (r.link_counters) n += heap_of(r.link_counters->source) + heap_of(r.link_counters->note);
  return n;
}

std::size_t kept_bytes(const PairFacts& p) {
  std::size_t n = 2 * sizeof(PairFacts) + heap_of(p.peer_access) + heap_of(p.error);
  if (p.nccl) {
    n += heap_of(p.nccl->kind) + heap_of(p.nccl->kinds) + heap_of(p.nccl->details) +
         heap_of(p.nccl->example) + heap_of(p.nccl->net_paths);
  }
  return n;
}

std::size_t kept_bytes(const PairVerdict& v) {
  std::size_t n = 2 * sizeof(PairVerdict) + heap_of(v.link) + heap_of(v.link_description) +
                  heap_of(v.observed) + heap_of(v.verdict) + heap_of(v.concurrent_pairs) +
                  v.flags.capacity() * sizeof(Flag) + v.methods.capacity() * sizeof(MethodVerdict) +
                  v.cards.capacity() * sizeof(CardId);
  for (const auto& f : v.flags) {
    n += heap_of(f.code) + heap_of(f.method) + heap_of(f.message) + approx_json_bytes(f.evidence);
  }
  for (const auto& m : v.methods) {
    n += heap_of(m.method) + heap_of(m.state) + heap_of(m.reason) + heap_of(m.unit) +
         heap_of(m.bar_basis);
  }
  for (const auto& c : v.cards) {
    n += heap_of(c.host) + heap_of(c.pci_bus_id) + heap_of(c.uuid) + heap_of(c.serial);
  }
  return n;
}

// The arrays of a run that can hold millions of entries, read while the file is parsed
// (json_in.h, StreamedArray) so that its document never holds them whole.
class RunStreams {
 public:
  explicit RunStreams(RunDocument& d) {
    add("pairs", kMaxItems, [&d](const JsonIn& p) {
      d.pairs.push_back(read_pair(p));
      return kept_bytes(d.pairs.back());
    });
    add("results", kMaxResults, [&d](const JsonIn& r) {
      d.results.push_back(read_result(r));
      return kept_bytes(d.results.back());
    });
    add("confirmations", kMaxResults, [&d](const JsonIn& r) {
      d.confirmations.push_back(read_result(r));
      return kept_bytes(d.confirmations.back());
    });
    add("verdicts", kMaxItems, [&d](const JsonIn& v) {
      d.verdicts.push_back(read_verdict(v));
      return kept_bytes(d.verdicts.back());
    });
  }
  std::vector<StreamedArray>& arrays() { return arrays_; }
  // The first error in `key`'s elements, thrown where the reader reaches that section.
  void rethrow(const std::string& key) const {
    for (const auto& a : arrays_) {
      if (a.key == key && a.error) std::rethrow_exception(a.error);
    }
  }

 private:
  void add(const char* key, std::size_t max_items, std::function<std::size_t(const JsonIn&)> take) {
    StreamedArray a;
    a.key = key;
    a.max_items = max_items;
    a.take = std::move(take);
    arrays_.push_back(std::move(a));
  }
  std::vector<StreamedArray> arrays_;
};

// Sections are read in a fixed order, so the first bad field is the one reported: the version
// and kind first. Arrays in `streams` were read while parsing (they are empty in `in`); their
// errors are thrown in their turn.
void read_run_document(const JsonIn& in, const std::string& file, RunDocument& d,
                       const RunStreams* streams) {
  const auto rethrow = [&](const char* key) {
    if (streams) streams->rethrow(key);
  };
  in.require_object();
  d.schema_version = read_schema_version(in);
  require_run_kind(in);
  read_tool_and_status(in, d);
  d.system = read_system(in.at("system"), file);
  read_config_and_methods(in, file, d);
  rethrow("pairs");
  for (const auto& p : in.at("pairs").array(kMaxItems)) d.pairs.push_back(read_pair(p));
  if (in.has("topology"))
    d.topology = topology_from_json(in.at("topology").raw(), file, "topology");
  if (auto n = in.opt("nccl")) d.nccl = read_nccl(*n);
  rethrow("results");
  for (const auto& r : in.at("results").array(kMaxResults)) d.results.push_back(read_result(r));
  rethrow("confirmations");
  if (auto cs = in.opt("confirmations")) {
    for (const auto& r : cs->array(kMaxResults)) d.confirmations.push_back(read_result(r));
  }
  if (auto ga = in.opt("gpu_activity")) {
    for (const auto& g : ga->array(kMaxItems)) d.gpu_activity.push_back(gpu_activity_from(g));
  }
  if (auto b = in.opt("burn_in")) d.burn_in = burn_in_from(*b, d.methods, d.schema_version);
  rethrow("verdicts");
  if (auto vs = in.opt("verdicts")) {
    for (const auto& v : vs->array(kMaxItems)) d.verdicts.push_back(read_verdict(v));
  }
  if (auto dg = in.opt("diagnosis")) {
    for (const auto& c : dg->array(kMaxItems)) d.diagnosis.push_back(diagnosed_cause_from(c));
  }
  read_link_health_timing_errors(in, file, d);
  if (auto ne = in.opt("node_evidence")) {
    for (const auto& e : ne->array(kMaxItems)) d.node_evidence.push_back(node_evidence_from(e));
  }
}

}  // namespace

RunDocument run_document_from_json(const json& j, const std::string& file) {
  RunDocument d;
  read_run_document(JsonIn(j, file), file, d, nullptr);
  return d;
}

RunDocument load_run_file(const std::string& path) {
  InputFile f(path, InputKind::kResults);
  RunDocument d;
  RunStreams streams(d);
  const json j = parse_json_file(f, streams.arrays());
  read_run_document(JsonIn(j, path), path, d, &streams);
  validate_run_document(d, path);  // values no measurement makes, ranks that do not exist
  return d;
}

}  // namespace peerbench
