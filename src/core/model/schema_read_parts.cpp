// Reading the elements of a results file (a GPU, a pair's transport, a method, a verdict's card):
// each checked as it is read, so a bad field is named by its path.
#include <algorithm>
#include <cmath>

#include "core/base/errors.h"
#include "core/model/schema_activity.h"
#include "core/model/schema_readers.h"

namespace peerbench {

using nlohmann::json;

namespace {

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
    at->fail(quoted_value(cc) + " is not a compute capability; expected MAJOR.MINOR such as 9.0");
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

// A small optional count (PCIe generation, width, NUMA node).
std::optional<int> small_int(const JsonIn& in, const char* key) {
  auto v = in.opt_integer(key, 0, 1024);
  return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
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

int rank_field(const JsonIn& in, const std::string& key) {
  auto v = in.opt_integer(key, 0, kMaxRank);
  return v ? static_cast<int>(*v) : -1;
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
    in.at("scope").fail(quoted_value(scope) + " is not pair, all-ranks or per-gpu");
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
  // Not recorded: what a method takes follows from what it is, as the catalog makes them (every
  // NCCL method over all ranks takes -d; the reductions -o; broadcast and reduce -r). Read as
  // false, a file's -d half all-reduce was grouped with float ones (an audit).
  m.typed = m.uses_nccl && m.scope == MethodScope::kAllRanks;
  m.reduces = m.typed && takes_op(m.collective);
  m.rooted = m.typed && takes_root(m.collective);
  // Ranks that time a case (-a combines their times); a file before the key: as the catalog
  // makes them (both ends for bidirectional copies, NCCL pairs, staged and sm-latency; every
  // rank for collectives; the source alone otherwise).
  const bool both_ends = m.bidirectional || (m.uses_nccl && m.scope == MethodScope::kPair) ||
                         m.family == "staged" || (m.family == "sm" && m.metric == Metric::kLatency);
  m.workers = static_cast<int>(in.opt_integer("workers", 0, 2)
                                   .value_or(m.scope == MethodScope::kAllRanks ? 0
                                             : both_ends                       ? 2
                                                                               : 1));
  return m;
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
  m.bar_source = in.opt_str("bar_source").value_or("");
  m.attempt = static_cast<int>(in.opt_integer("attempt", 0, 1 << 20).value_or(0));
  if (!m.bar_source.empty() && m.bar_source != kBarSiteBar && m.bar_source != kBarSiteBaseline &&
      m.bar_source != kBarKnownGood && m.bar_source != kBarLinkRate &&
      m.bar_source != kBarLatencyTable)
    in.at("bar_source")
        .fail(
            "is not site-bar, site-baseline, known-good, link-rate or "
            "latency-table");
  if (in.has("evidence")) m.evidence = in.at("evidence").raw();
  m.expected = in.opt_number("expected", 0, 1e9);
  m.expected_ratio = in.opt_number("expected_ratio", 0, 1e9);
  m.expected_basis = in.opt_str("expected_basis").value_or("");
  return m;
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
  if (auto r = in.opt("reasons")) p.reasons = r->string_array(kMaxItems);
  p.lines_read = static_cast<int>(in.opt_integer("lines", 0, 1 << 30).value_or(0));
  return p;
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

}  // namespace peerbench
