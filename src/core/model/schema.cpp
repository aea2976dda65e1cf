#include "core/model/schema.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/base/errors.h"
#include "core/model/json_in.h"
#include "core/model/results_validate.h"
#include "core/model/schema_activity.h"

namespace peerbench {

using nlohmann::json;

namespace {

constexpr double kMaxBytes = 1e15;  // 1 PB: no transfer size is larger
constexpr long long kMaxRank = 1 << 20;
constexpr std::size_t kMaxResults = 5'000'000;
constexpr std::size_t kMaxItems = 1'000'000;

template <typename T>
json opt_json(const std::optional<T>& v) {
  return v ? json(*v) : json();
}
json str_or_null(const std::string& s) {
  return s.empty() ? json() : json(s);
}
json rank_or_null(int r) {
  return r < 0 ? json() : json(r);
}

// "9.0": one to three digits, a dot, one to three digits ("0.0" when unknown); absent reads as
// unknown.
void read_compute_capability(const JsonIn& gpu, GpuInfo& g) {
  const auto at = gpu.opt("compute_capability");
  if (!at) return;
  const std::string cc = at->str(64);
  const auto dot = cc.find('.');
  const auto digits = [&](std::size_t from, std::size_t to) {
    return to > from && to - from <= 3 &&
           std::all_of(cc.begin() + static_cast<long>(from), cc.begin() + static_cast<long>(to),
                       [](char c) { return c >= '0' && c <= '9'; });
  };
  if (dot == std::string::npos || !digits(0, dot) || !digits(dot + 1, cc.size())) {
    at->fail("'" + cc + "' is not a compute capability; expected MAJOR.MINOR such as 9.0");
  }
  g.cc_major = std::stoi(cc.substr(0, dot));
  g.cc_minor = std::stoi(cc.substr(dot + 1));
}

// Rounding allowed between figures that one sample vector makes (a mean of equal samples may
// differ from them in the last bits).
bool within_rounding(double v, double lo, double hi) {
  const double slack = 1e-9 * std::max(std::fabs(lo), std::fabs(hi));
  return v >= lo - slack && v <= hi + slack;
}

Stats stats_from(const JsonIn& in) {
  Stats s;
  s.min = in.at("min").number(-1e300, 1e300);
  s.median = in.at("median").number(-1e300, 1e300);
  s.max = in.at("max").number(-1e300, 1e300);
  s.mean = in.opt_number("mean", -1e300, 1e300).value_or(s.median);
  s.count = static_cast<int>(in.opt_integer("count", 0, 1 << 30).value_or(0));
  if (s.min > s.median || s.median > s.max) in.fail("min <= median <= max does not hold");
  if (!within_rounding(s.mean, s.min, s.max)) in.fail("mean outside min..max");
  return s;
}

std::optional<Stats> opt_stats(const JsonIn& in, const std::string& key) {
  auto o = in.opt(key);
  if (!o) return std::nullopt;
  return stats_from(*o);
}

// A small optional count (PCIe generation, width, NUMA node).
std::optional<int> small_int(const JsonIn& in, const char* key) {
  auto v = in.opt_integer(key, 0, 1024);
  return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
}

int rank_field(const JsonIn& in, const std::string& key) {
  auto v = in.opt_integer(key, 0, kMaxRank);
  return v ? static_cast<int>(*v) : -1;
}

json pair_transport_json(const PairTransport& t) {
  return json{{"kind", t.kind},
              {"kinds", t.kinds},
              {"details", t.details},
              {"channels", t.channels},
              {"connections", t.connections},
              {"example", t.example},
              {"net_paths", t.net_paths},
              {"gdrdma", opt_json(t.gdrdma)}};
}

PairTransport pair_transport_from(const JsonIn& in) {
  PairTransport t;
  t.kind = in.at("kind").str();
  t.kinds = in.opt("kinds") ? in.at("kinds").string_array(64) : std::vector<std::string>{};
  t.details = in.opt("details") ? in.at("details").string_array(1024) : std::vector<std::string>{};
  t.channels = static_cast<int>(in.opt_integer("channels", 0, 1 << 20).value_or(0));
  t.connections = static_cast<int>(in.opt_integer("connections", 0, 1 << 30).value_or(0));
  t.example = in.opt_str("example").value_or("");
  if (auto np = in.opt("net_paths")) t.net_paths = np->string_array(1024);
  t.gdrdma = in.opt_bool("gdrdma");
  if (!in.has("net_paths") && t.kind == "NET") {
    // Schema 1 kept no NET paths; its evidence line names one ("via NET/Socket/0/Shared").
    NcclLogParse p;
    parse_nccl_log_line(t.example, p);
    for (const auto& s : summarize_transports(p.transports)) {
      t.net_paths = s.net_paths;
      t.gdrdma = s.gdrdma;
    }
  }
  return t;
}

MethodInfo method_from(const JsonIn& in) {
  MethodInfo m;
  m.name = in.at("name").str(128);
  m.summary = in.opt_str("summary").value_or("");
  m.family = in.at("family").str(64);
  const auto scope = in.at("scope").str();
  if (scope == "pair") {
    m.scope = MethodScope::kPair;
  } else if (scope == "all-ranks") {
    m.scope = MethodScope::kAllRanks;
  } else if (scope == "per-gpu") {
    m.scope = MethodScope::kPerGpu;
  } else {
    in.at("scope").fail("'" + scope + "' is not pair, all-ranks or per-gpu");
  }
  const auto metric = in.at("metric").str();
  if (metric == "bandwidth") {
    m.metric = Metric::kBandwidth;
  } else if (metric == "latency") {
    m.metric = Metric::kLatency;
  } else {
    in.at("metric").fail("'" + metric + "' is not bandwidth or latency");
  }
  try {
    m.collective = collective_from_name(in.opt_str("collective").value_or("copy"));
  } catch (const std::invalid_argument& e) {
    in.at("collective").fail(e.what());
  }
  m.bidirectional = in.opt_bool("bidirectional").value_or(false);
  m.needs_p2p = in.opt_bool("needs_p2p").value_or(false);
  m.same_host_only = in.opt_bool("same_host_only").value_or(false);
  m.uses_nccl = in.opt_bool("uses_nccl").value_or(false);
  m.graph_capturable = in.opt_bool("graph_capturable").value_or(true);
  m.fixed_size = in.opt_bool("fixed_size").value_or(false);
  m.all_gpus_at_once = in.opt_bool("all_gpus_at_once").value_or(false);
  return m;
}

json gpu_topology_json(const GpuTopology& g) {
  json links = json::array();
  for (const auto& l : g.nvlinks) {
    links.push_back({{"link", l.link},
                     {"active", l.active},
                     {"version", opt_json(l.version)},
                     {"remote_pci_bus_id", str_or_null(l.remote_pci_bus_id)},
                     {"speed_gbps", opt_json(l.speed_gbps)}});
  }
  return json{{"index", g.index},
              {"name", g.name},
              {"uuid", g.uuid},
              {"pci_bus_id", g.pci_bus_id},
              {"serial", str_or_null(g.serial)},
              {"compute_capability", std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor)},
              {"pcie_gen_current", opt_json(g.pcie_gen_current)},
              {"pcie_gen_max", opt_json(g.pcie_gen_max)},
              {"pcie_gen_gpu_max", opt_json(g.pcie_gen_gpu_max)},
              {"pcie_width_current", opt_json(g.pcie_width_current)},
              {"pcie_width_max", opt_json(g.pcie_width_max)},
              {"numa_node", opt_json(g.numa_node)},
              {"nvlinks_up", g.nvlinks_up},
              {"nvlinks", links},
              {"fabric", g.fabric ? to_json(*g.fabric) : json()}};
}

GpuTopology gpu_topology_from(const JsonIn& in) {
  GpuTopology g;
  g.index = static_cast<int>(in.at("index").integer(0, 4096));
  g.name = in.opt_str("name").value_or("");
  g.uuid = in.opt_str("uuid").value_or("");
  g.pci_bus_id = in.opt_str("pci_bus_id").value_or("");
  g.serial = in.opt_str("serial").value_or("");
  read_compute_capability(in, g);
  g.pcie_gen_current = small_int(in, "pcie_gen_current");
  g.pcie_gen_max = small_int(in, "pcie_gen_max");
  g.pcie_gen_gpu_max = small_int(in, "pcie_gen_gpu_max");
  g.pcie_width_current = small_int(in, "pcie_width_current");
  g.pcie_width_max = small_int(in, "pcie_width_max");
  g.numa_node = small_int(in, "numa_node");
  g.nvlinks_up = static_cast<int>(in.opt_integer("nvlinks_up", 0, 1024).value_or(0));
  if (auto links = in.opt("nvlinks")) {
    for (const auto& l : links->array(1024)) {
      NvLinkInfo n;
      n.link = static_cast<int>(l.at("link").integer(0, 1024));
      n.active = l.at("active").boolean();
      auto v = l.opt_integer("version", 0, 1 << 20);
      if (v) n.version = static_cast<unsigned>(*v);
      n.remote_pci_bus_id = l.opt_str("remote_pci_bus_id").value_or("");
      n.speed_gbps = l.opt_number("speed_gbps", 0, 1e6);
      g.nvlinks.push_back(n);
    }
  }
  if (auto f = in.opt("fabric")) g.fabric = fabric_info_from(*f);
  return g;
}

json gpu_pair_topology_json(const GpuPairTopology& p) {
  return json{{"gpu_a", p.gpu_a},
              {"gpu_b", p.gpu_b},
              {"link", classify_link(p).label},
              {"nvlink_count", p.nvlink_count},
              {"pcie_path", str_or_null(p.pcie_path)},
              {"nvml_p2p", p.nvml_p2p},
              {"cuda_can_access_peer", opt_json(p.cuda_can_access_peer)},
              {"cuda_perf_rank", opt_json(p.cuda_perf_rank)},
              {"cuda_native_atomics", opt_json(p.cuda_native_atomics)},
              {"cuda_access_supported", opt_json(p.cuda_access_supported)}};
}

GpuPairTopology gpu_pair_topology_from(const JsonIn& in) {
  GpuPairTopology p;
  p.gpu_a = static_cast<int>(in.at("gpu_a").integer(0, 4096));
  p.gpu_b = static_cast<int>(in.at("gpu_b").integer(0, 4096));
  p.nvlink_count = static_cast<int>(in.opt_integer("nvlink_count", 0, 1024).value_or(0));
  p.pcie_path = in.opt_str("pcie_path").value_or("");
  if (auto m = in.opt("nvml_p2p")) {
    m->require_object();
    for (const auto& [k, v] : m->raw().items()) {
      p.nvml_p2p[k] = JsonIn(v, in.file(), m->path() + "." + k).str(64);
    }
  }
  p.cuda_can_access_peer = in.opt_bool("cuda_can_access_peer");
  if (auto v = in.opt_integer("cuda_perf_rank", -1024, 1024))
    p.cuda_perf_rank = static_cast<int>(*v);
  p.cuda_native_atomics = in.opt_bool("cuda_native_atomics");
  p.cuda_access_supported = in.opt_bool("cuda_access_supported");
  return p;
}

json graphs_json(const std::vector<GraphObservation>& graphs) {
  json out = json::array();
  for (const auto& g : graphs) {
    out.push_back({{"pattern", g.pattern},
                   {"nchannels", g.nchannels},
                   {"bw_intra", g.bw_intra},
                   {"bw_inter", g.bw_inter},
                   {"type_intra", g.type_intra},
                   {"type_inter", g.type_inter},
                   {"raw", g.raw}});
  }
  return out;
}

std::vector<GraphObservation> graphs_from(const JsonIn& in) {
  std::vector<GraphObservation> out;
  for (const auto& g : in.array(kMaxItems)) {
    GraphObservation o;
    o.pattern = static_cast<int>(g.opt_integer("pattern", -1, 1 << 20).value_or(-1));
    o.nchannels = static_cast<int>(g.opt_integer("nchannels", -1, 1 << 20).value_or(-1));
    o.bw_intra = g.opt_number("bw_intra", 0, 1e9).value_or(0);
    o.bw_inter = g.opt_number("bw_inter", 0, 1e9).value_or(0);
    o.type_intra = g.opt_str("type_intra").value_or("");
    o.type_inter = g.opt_str("type_inter").value_or("");
    o.raw = g.opt_str("raw").value_or("");
    out.push_back(std::move(o));
  }
  return out;
}

json flag_json(const Flag& f) {
  return json{{"code", f.code},
              {"method", str_or_null(f.method)},
              {"message", f.message},
              {"evidence", f.evidence}};
}

json card_json(const CardId& c) {
  return json{{"rank", c.rank},           {"host", c.host},
              {"gpu_index", c.gpu_index}, {"pci_bus_id", c.pci_bus_id},
              {"uuid", c.uuid},           {"serial", str_or_null(c.serial)}};
}

CardId card_from(const JsonIn& in) {
  CardId c;
  c.rank = rank_field(in, "rank");
  c.host = in.opt_str("host").value_or("");
  c.gpu_index = static_cast<int>(in.opt_integer("gpu_index", 0, 4096).value_or(-1));
  c.pci_bus_id = in.opt_str("pci_bus_id").value_or("");
  c.uuid = in.opt_str("uuid").value_or("");
  c.serial = in.opt_str("serial").value_or("");
  return c;
}

json method_verdict_json(const MethodVerdict& m) {
  return json{{"method", m.method},
              {"state", m.state},
              {"reason", str_or_null(m.reason)},
              {"value", opt_json(m.value)},
              {"unit", str_or_null(m.unit)},
              {"bytes", m.bytes},
              {"bar", opt_json(m.bar)},
              {"bar_basis", str_or_null(m.bar_basis)},
              {"evidence", m.evidence},
              {"expected", opt_json(m.expected)},
              {"expected_ratio", opt_json(m.expected_ratio)},
              {"expected_basis", str_or_null(m.expected_basis)}};
}

MethodVerdict method_verdict_from(const JsonIn& in) {
  MethodVerdict m;
  m.method = in.at("method").str(128);
  m.state = in.at("state").str(64);
  m.reason = in.opt_str("reason").value_or("");
  m.value = in.opt_number("value", -1e300, 1e300);
  m.unit = in.opt_str("unit").value_or("");
  m.bytes = static_cast<std::uint64_t>(in.opt_number("bytes", 0, kMaxBytes).value_or(0));
  m.bar = in.opt_number("bar", -1e300, 1e300);
  m.bar_basis = in.opt_str("bar_basis").value_or("");
  if (in.has("evidence")) m.evidence = in.at("evidence").raw();
  m.expected = in.opt_number("expected", 0, 1e9);
  m.expected_ratio = in.opt_number("expected_ratio", 0, 1e9);
  m.expected_basis = in.opt_str("expected_basis").value_or("");
  return m;
}

json error_counts_json(const std::vector<NvLinkErrorCounts>& v) {
  json out = json::array();
  for (const auto& c : v) {
    out.push_back({{"link", c.link},
                   {"replay", opt_json(c.replay)},
                   {"recovery", opt_json(c.recovery)},
                   {"crc_flit", opt_json(c.crc_flit)},
                   {"crc_data", opt_json(c.crc_data)}});
  }
  return out;
}

std::vector<NvLinkErrorCounts> error_counts_from(const JsonIn& in) {
  std::vector<NvLinkErrorCounts> out;
  auto counter = [](const JsonIn& c, const char* k) -> std::optional<std::uint64_t> {
    auto v = c.opt_number(k, 0, 1.8e19);
    return v ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(*v)) : std::nullopt;
  };
  for (const auto& c : in.array(1024)) {
    NvLinkErrorCounts n;
    n.link = static_cast<int>(c.at("link").integer(0, 1024));
    n.replay = counter(c, "replay");
    n.recovery = counter(c, "recovery");
    n.crc_flit = counter(c, "crc_flit");
    n.crc_data = counter(c, "crc_data");
    out.push_back(n);
  }
  return out;
}

}  // namespace

std::string to_string(ResultStatus s) {
  switch (s) {
    case ResultStatus::kOk:
      return "ok";
    case ResultStatus::kSkipped:
      return "skipped";
    case ResultStatus::kNotApplicable:
      return "not-applicable";
    case ResultStatus::kError:
      return "error";
    case ResultStatus::kTimeout:
      return "timeout";
    case ResultStatus::kNotRun:
      return "not-run";
  }
  return "not-run";
}

std::optional<ResultStatus> result_status_from_string(const std::string& s) {
  for (auto st : {ResultStatus::kOk, ResultStatus::kSkipped, ResultStatus::kNotApplicable,
                  ResultStatus::kError, ResultStatus::kTimeout, ResultStatus::kNotRun}) {
    if (to_string(st) == s) return st;
  }
  return std::nullopt;
}

std::string host_of(const RunDocument& d, int rank) {
  const auto* r = rank_info(d, rank);
  return r ? r->host : "";
}

const RankInfo* rank_info(const RunDocument& d, int rank) {
  for (const auto& r : d.system.ranks) {
    if (r.rank == rank) return &r;
  }
  return nullptr;
}

std::string rank_label(const RunDocument& d, int rank) {
  if (rank < 0) return "all ranks";
  const auto* r = rank_info(d, rank);
  if (!r) return "rank " + std::to_string(rank);
  return "rank " + std::to_string(rank) + " (GPU " + std::to_string(r->gpu.index) + " on " +
         r->host + ")";
}

json to_json(const Stats& s) {
  return json{
      {"min", s.min}, {"median", s.median}, {"max", s.max}, {"mean", s.mean}, {"count", s.count}};
}

json to_json(const MethodInfo& m) {
  return json{{"name", m.name},
              {"summary", m.summary},
              {"family", m.family},
              {"scope", to_string(m.scope)},
              {"metric", to_string(m.metric)},
              {"collective", collective_name(m.collective)},
              {"bidirectional", m.bidirectional},
              {"needs_p2p", m.needs_p2p},
              {"same_host_only", m.same_host_only},
              {"uses_nccl", m.uses_nccl},
              {"graph_capturable", m.graph_capturable},
              {"fixed_size", m.fixed_size},
              {"all_gpus_at_once", m.all_gpus_at_once}};
}

json to_json(const Result& r) {
  json dirs = json::array();
  for (const auto& d : r.directions) {
    dirs.push_back({{"src", d.src},
                    {"dst", d.dst},
                    {"time_us", to_json(d.time_us)},
                    {"algbw_gbps", to_json(d.algbw_gbps)}});
  }
  json counters;
  if (r.link_counters) {
    const auto& c = *r.link_counters;
    counters = {{"source", c.source},
                {"src_nvlink_tx_bytes", opt_json(c.src_tx_bytes)},
                {"dst_nvlink_rx_bytes", opt_json(c.dst_rx_bytes)},
                {"payload_bytes", c.payload_bytes},
                {"note", str_or_null(c.note)}};
  }
  json j{{"method", r.method},
         {"src", rank_or_null(r.src)},
         {"dst", rank_or_null(r.dst)},
         {"bytes", r.bytes},
         {"status", to_string(r.status)},
         {"reason", str_or_null(r.reason)},
         {"warmup_iters", r.warmup_iters},
         {"iters", r.iters},
         {"samples", r.samples},
         {"graph_replays", r.graph_replays},
         {"round", r.round},
         {"concurrent_pairs", r.concurrent_pairs},
         {"time_us", r.time_us ? to_json(*r.time_us) : json()},
         {"algbw_gbps", r.algbw_gbps ? to_json(*r.algbw_gbps) : json()},
         {"busbw_gbps", r.busbw_gbps ? to_json(*r.busbw_gbps) : json()},
         {"directions", dirs},
         {"check", {{"checked", r.checked}, {"elements", r.checked_elements}, {"wrong", r.wrong}}},
         {"gate_timeouts", r.gate_timeouts},
         {"link_counters", counters},
         {"datatype", str_or_null(r.datatype)},
         {"op", str_or_null(r.op)},
         {"root", rank_or_null(r.root)}};
  if (!r.sample_time_us.empty()) j["sample_time_us"] = r.sample_time_us;
  add_result_activity(r, j);
  return j;
}

json to_json(const TopologyReport& t) {
  json hosts = json::array();
  for (const auto& h : t.hosts) {
    json gpus = json::array();
    for (const auto& g : h.gpus) gpus.push_back(gpu_topology_json(g));
    json pairs = json::array();
    for (const auto& p : h.pairs) pairs.push_back(gpu_pair_topology_json(p));
    hosts.push_back({{"host", h.host},
                     {"nvml", h.nvml},
                     {"driver_version", str_or_null(h.driver_version)},
                     {"gpus", gpus},
                     {"pairs", pairs}});
  }
  return json{{"hosts", hosts}};
}

json to_json(const PairVerdict& v) {
  json flags = json::array();
  for (const auto& f : v.flags) flags.push_back(flag_json(f));
  json methods = json::array();
  for (const auto& m : v.methods) methods.push_back(method_verdict_json(m));
  json cards = json::array();
  for (const auto& c : v.cards) cards.push_back(card_json(c));
  return json{{"src", rank_or_null(v.src)},
              {"dst", rank_or_null(v.dst)},
              {"link", v.link},
              {"link_description", v.link_description},
              {"observed", v.observed},
              {"verdict", v.verdict},
              {"flags", flags},
              {"methods", methods},
              {"cards", cards},
              {"concurrent_pairs", v.concurrent_pairs}};
}

json to_json(const GpuLinkHealth& h) {
  return json{{"host", h.host},
              {"gpu_index", h.gpu_index},
              {"pci_bus_id", h.pci_bus_id},
              {"nvlink_errors_before", error_counts_json(h.nvlink_errors_before)},
              {"nvlink_errors_after", error_counts_json(h.nvlink_errors_after)},
              {"pcie_gen_max", opt_json(h.pcie_gen_max)},
              {"pcie_gen_gpu_max", opt_json(h.pcie_gen_gpu_max)},
              {"pcie_width_max", opt_json(h.pcie_width_max)},
              {"pcie_gen_under_load", opt_json(h.pcie_gen_under_load)},
              {"pcie_width_under_load", opt_json(h.pcie_width_under_load)},
              {"under_load_during", str_or_null(h.under_load_during)},
              {"note", str_or_null(h.note)}};
}

GpuLinkHealth gpu_link_health_from_json(const json& j, const std::string& file,
                                        const std::string& path) {
  JsonIn in(j, file, path);
  GpuLinkHealth h;
  h.host = in.at("host").str(256);
  h.gpu_index = static_cast<int>(in.at("gpu_index").integer(0, 4096));
  h.pci_bus_id = in.opt_str("pci_bus_id").value_or("");
  if (auto b = in.opt("nvlink_errors_before")) h.nvlink_errors_before = error_counts_from(*b);
  if (auto a = in.opt("nvlink_errors_after")) h.nvlink_errors_after = error_counts_from(*a);
  h.pcie_gen_max = small_int(in, "pcie_gen_max");
  h.pcie_gen_gpu_max = small_int(in, "pcie_gen_gpu_max");
  h.pcie_width_max = small_int(in, "pcie_width_max");
  h.pcie_gen_under_load = small_int(in, "pcie_gen_under_load");
  h.pcie_width_under_load = small_int(in, "pcie_width_under_load");
  h.under_load_during = in.opt_str("under_load_during").value_or("");
  h.note = in.opt_str("note").value_or("");
  return h;
}

json to_json(const RankInfo& r) {
  return json{{"rank", r.rank},
              {"host", r.host},
              {"local_rank", r.local_rank},
              {"cpu_binding", str_or_null(r.cpu_binding)},
              {"host_memory", str_or_null(r.host_memory)},
              {"gpu",
               {{"index", r.gpu.index},
                {"name", r.gpu.name},
                {"uuid", r.gpu.uuid},
                {"pci_bus_id", r.gpu.pci_bus_id},
                {"serial", str_or_null(r.gpu.serial)},
                {"compute_capability",
                 std::to_string(r.gpu.cc_major) + "." + std::to_string(r.gpu.cc_minor)},
                {"multiprocessors", r.gpu.multiprocessors},
                {"memory_bytes", r.gpu.memory_bytes}}}};
}

RankInfo rank_info_from_json(const json& j, const std::string& file, const std::string& path) {
  JsonIn r(j, file, path);
  RankInfo ri;
  ri.rank = static_cast<int>(r.at("rank").integer(0, kMaxRank));
  ri.host = r.at("host").str(256);
  ri.local_rank = static_cast<int>(r.opt_integer("local_rank", 0, kMaxRank).value_or(0));
  ri.cpu_binding = r.opt_str("cpu_binding").value_or("");
  ri.host_memory = r.opt_str("host_memory").value_or("");
  const auto g = r.at("gpu");
  ri.gpu.index = static_cast<int>(g.at("index").integer(0, 4096));
  ri.gpu.name = g.opt_str("name").value_or("");
  ri.gpu.uuid = g.opt_str("uuid").value_or("");
  ri.gpu.pci_bus_id = g.opt_str("pci_bus_id").value_or("");
  ri.gpu.serial = g.opt_str("serial").value_or("");
  read_compute_capability(g, ri.gpu);
  ri.gpu.multiprocessors =
      static_cast<int>(g.opt_integer("multiprocessors", 0, 1 << 20).value_or(0));
  ri.gpu.memory_bytes =
      static_cast<std::uint64_t>(g.opt_number("memory_bytes", 0, kMaxBytes).value_or(0));
  return ri;
}

json to_json(const NcclLogParse& p) {
  json obs = json::array();
  for (const auto& t : p.transports) {
    obs.push_back({{"src", t.src_rank},
                   {"dst", t.dst_rank},
                   {"src_dev", t.src_dev},
                   {"dst_dev", t.dst_dev},
                   {"channel", t.channel},
                   {"conn", t.conn_index},
                   {"kind", t.kind},
                   {"detail", t.detail},
                   {"modifiers", t.modifiers},
                   {"side", t.side},
                   {"net_device", t.net_device},
                   {"raw", t.raw}});
  }
  return json{{"transports", obs},
              {"graphs", graphs_json(p.graphs)},
              {"unknown", p.unknown},
              {"lines", p.lines_read}};
}

NcclLogParse nccl_log_parse_from_json(const json& j, const std::string& file) {
  JsonIn in(j, file);
  NcclLogParse p;
  for (const auto& t : in.at("transports").array(kMaxItems)) {
    TransportObservation o;
    o.src_rank = static_cast<int>(t.at("src").integer(-1, kMaxRank));
    o.dst_rank = static_cast<int>(t.at("dst").integer(-1, kMaxRank));
    o.src_dev = t.at("src_dev").str();
    o.dst_dev = t.at("dst_dev").str();
    o.channel = static_cast<int>(t.at("channel").integer(-1, 1 << 20));
    o.conn_index = static_cast<int>(t.at("conn").integer(-1, 1 << 20));
    o.kind = t.at("kind").str();
    o.detail = t.at("detail").str();
    o.modifiers = t.at("modifiers").string_array(64);
    o.side = t.at("side").str();
    o.net_device = t.opt_str("net_device").value_or("");
    o.raw = t.at("raw").str();
    p.transports.push_back(std::move(o));
  }
  p.graphs = graphs_from(in.at("graphs"));
  p.unknown = in.at("unknown").string_array(kMaxItems);
  p.lines_read = static_cast<int>(in.opt_integer("lines", 0, 1 << 30).value_or(0));
  return p;
}

json to_json(const RunDocument& d) {
  json j;
  j["schema_version"] = kSchemaVersion;
  j["kind"] = kRunKind;
  j["tool"] = {{"name", d.tool.name},
               {"version", d.tool.version},
               {"git_revision", d.tool.git_revision},
               {"command_line", d.tool.command_line}};
  j["started_at"] = d.started_at;
  j["finished_at"] = str_or_null(d.finished_at);
  j["status"] = d.status;
  j["in_progress"] = d.in_progress;
  json ranks = json::array();
  for (const auto& r : d.system.ranks) ranks.push_back(to_json(r));
  j["system"] = {{"hosts", d.system.hosts},
                 {"ranks", ranks},
                 {"driver_version", str_or_null(d.system.driver_version)},
                 {"cuda_driver_version", d.system.cuda_driver_version},
                 {"cuda_runtime_version", d.system.cuda_runtime_version},
                 {"nccl_version", str_or_null(d.system.nccl_version)},
                 {"mpi_library_version", str_or_null(d.system.mpi_library_version)}};
  j["config"] = d.config.is_null() ? json::object() : d.config;
  j["environment"] = d.environment;
  json methods = json::array();
  for (const auto& m : d.methods) methods.push_back(to_json(m));
  j["methods"] = methods;
  json pairs = json::array();
  for (const auto& p : d.pairs) {
    pairs.push_back({{"src", p.src},
                     {"dst", p.dst},
                     {"same_host", p.same_host},
                     {"can_access_peer", opt_json(p.can_access_peer)},
                     {"peer_access", p.peer_access},
                     {"already_enabled", opt_json(p.already_enabled)},
                     {"error", str_or_null(p.error)},
                     {"nccl", p.nccl ? pair_transport_json(*p.nccl) : json()}});
  }
  j["pairs"] = pairs;
  j["topology"] = d.topology ? to_json(*d.topology) : json();
  j["nccl"] = {{"mode", d.nccl.mode},
               {"note", str_or_null(d.nccl.note)},
               {"subsystems", d.nccl.subsystems},
               {"path_type", str_or_null(d.nccl.path_type)},
               {"graphs", graphs_json(d.nccl.graphs)},
               {"unknown_lines", d.nccl.unknown_lines}};
  json results = json::array();
  for (const auto& r : d.results) results.push_back(to_json(r));
  j["results"] = results;
  json confirmations = json::array();
  for (const auto& r : d.confirmations) confirmations.push_back(to_json(r));
  j["confirmations"] = confirmations;
  json activity = json::array();
  for (const auto& g : d.gpu_activity) activity.push_back(to_json(g));
  j["gpu_activity"] = activity;
  j["burn_in"] = d.burn_in ? to_json(*d.burn_in) : json();
  json verdicts = json::array();
  for (const auto& v : d.verdicts) verdicts.push_back(to_json(v));
  j["verdicts"] = verdicts;
  json health = json::array();
  for (const auto& h : d.link_health) health.push_back(to_json(h));
  j["link_health"] = health;
  j["timing"] = {{"estimated_s", opt_json(d.timing.estimated_s)},
                 {"elapsed_s", opt_json(d.timing.elapsed_s)}};
  j["errors"] = d.errors;
  return j;
}

TopologyReport topology_from_json(const json& j, const std::string& file, const std::string& path) {
  JsonIn in(j, file, path);
  TopologyReport t;
  for (const auto& h : in.at("hosts").array(4096)) {
    HostTopology ht;
    ht.host = h.at("host").str(256);
    ht.nvml = h.opt_str("nvml").value_or("");
    ht.driver_version = h.opt_str("driver_version").value_or("");
    for (const auto& g : h.at("gpus").array(4096)) ht.gpus.push_back(gpu_topology_from(g));
    for (const auto& p : h.at("pairs").array(kMaxItems))
      ht.pairs.push_back(gpu_pair_topology_from(p));
    t.hosts.push_back(std::move(ht));
  }
  return t;
}

namespace {

// The version and kind come first: a file this peerbench cannot read fails on them, not on a field.
int read_schema_version(const JsonIn& in) {
  const auto version = in.at("schema_version").integer(0, 1 << 20);
  if (version < kOldestReadableSchemaVersion || version > kSchemaVersion) {
    in.at("schema_version")
        .fail("unsupported schema_version " + std::to_string(version) + "; this peerbench reads " +
              std::to_string(kOldestReadableSchemaVersion) + " to " +
              std::to_string(kSchemaVersion) +
              (version > kSchemaVersion ? " (file is newer)" : ""));
  }
  return static_cast<int>(version);
}

void require_run_kind(const JsonIn& in) {
  const auto kind = in.at("kind").str();
  if (kind != kRunKind) {
    in.at("kind").fail("'" + kind + "' is not a run (expected '" + std::string(kRunKind) + "')");
  }
}

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
    in.at("status").fail("'" + d.status + "' is not complete, incomplete or failed");
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

// config, environment and the methods measured.
void read_config_and_methods(const JsonIn& in, const std::string& file, RunDocument& d) {
  if (in.has("config")) {
    in.at("config").require_object();
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
    m << b.raw().dump() << " is not a size; use a whole number of bytes of at least 1";
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
  if (!status) r.at("status").fail("'" + st + "' is not a result status");
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
  if (auto b = in.opt("burn_in")) d.burn_in = burn_in_from(*b);
  rethrow("verdicts");
  if (auto vs = in.opt("verdicts")) {
    for (const auto& v : vs->array(kMaxItems)) d.verdicts.push_back(read_verdict(v));
  }
  read_link_health_timing_errors(in, file, d);
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

json topology_document(const TopologyReport& t, const ToolInfo& tool) {
  return json{{"schema_version", kSchemaVersion},
              {"kind", kTopologyKind},
              {"tool",
               {{"name", tool.name},
                {"version", tool.version},
                {"git_revision", tool.git_revision},
                {"command_line", tool.command_line}}},
              {"topology", to_json(t)}};
}

}  // namespace peerbench
