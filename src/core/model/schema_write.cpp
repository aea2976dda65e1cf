// Writing the results file: every type of results.h as its JSON (schema in docs/SCHEMA.md).
#include <optional>

#include "core/model/json_out.h"
#include "core/model/schema.h"
#include "core/model/schema_activity.h"
#include "core/model/schema_diagnosis.h"
#include "core/model/schema_node_evidence.h"

namespace peerbench {

using nlohmann::json;

namespace {

json str_or_null(const std::string& s) {
  return s.empty() ? json() : json(s);
}
json rank_or_null(int r) {
  return r < 0 ? json() : json(r);
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

json method_verdict_json(const MethodVerdict& m) {
  return json{{"method", m.method},
              {"state", m.state},
              {"reason", str_or_null(m.reason)},
              {"value", opt_json(m.value)},
              {"unit", str_or_null(m.unit)},
              {"bytes", m.bytes},
              {"bar", opt_json(m.bar)},
              {"bar_basis", str_or_null(m.bar_basis)},
              {"bar_source", str_or_null(m.bar_source)},
              {"attempt", m.attempt},
              {"evidence", m.evidence},
              {"expected", opt_json(m.expected)},
              {"expected_ratio", opt_json(m.expected_ratio)},
              {"expected_basis", str_or_null(m.expected_basis)}};
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

}  // namespace

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
              {"all_gpus_at_once", m.all_gpus_at_once},
              {"workers", m.workers}};
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
              {"reasons", p.reasons},
              {"lines", p.lines_read}};
}

namespace {

// Each element of `items` as its JSON, in order (an empty array for none).
template <typename T>
json array_of(const std::vector<T>& items) {
  json a = json::array();
  for (const auto& x : items) a.push_back(to_json(x));
  return a;
}

json system_json(const SystemInfo& s) {
  return {{"hosts", s.hosts},
          {"ranks", array_of(s.ranks)},
          {"driver_version", str_or_null(s.driver_version)},
          {"cuda_driver_version", s.cuda_driver_version},
          {"cuda_runtime_version", s.cuda_runtime_version},
          {"nccl_version", str_or_null(s.nccl_version)},
          {"mpi_library_version", str_or_null(s.mpi_library_version)}};
}

json pairs_json(const std::vector<PairFacts>& pairs) {
  json a = json::array();
  for (const auto& p : pairs) {
    a.push_back({{"src", p.src},
                 {"dst", p.dst},
                 {"same_host", p.same_host},
                 {"can_access_peer", opt_json(p.can_access_peer)},
                 {"peer_access", p.peer_access},
                 {"already_enabled", opt_json(p.already_enabled)},
                 {"error", str_or_null(p.error)},
                 {"nccl", p.nccl ? pair_transport_json(*p.nccl) : json()}});
  }
  return a;
}

json nccl_json(const NcclCapture& n) {
  return {{"mode", n.mode},
          {"note", str_or_null(n.note)},
          {"subsystems", n.subsystems},
          {"path_type", str_or_null(n.path_type)},
          {"graphs", graphs_json(n.graphs)},
          {"unknown_lines", n.unknown_lines},
          {"reasons", n.reasons}};
}

}  // namespace

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
  j["system"] = system_json(d.system);
  j["config"] = d.config.is_null() ? json::object() : d.config;
  j["environment"] = d.environment;
  j["methods"] = array_of(d.methods);
  j["pairs"] = pairs_json(d.pairs);
  j["topology"] = d.topology ? to_json(*d.topology) : json();
  j["nccl"] = nccl_json(d.nccl);
  j["results"] = array_of(d.results);
  j["confirmations"] = array_of(d.confirmations);
  j["gpu_activity"] = array_of(d.gpu_activity);
  j["burn_in"] = d.burn_in ? to_json(*d.burn_in) : json();
  j["verdicts"] = array_of(d.verdicts);
  j["link_health"] = array_of(d.link_health);
  j["node_evidence"] = json::array();
  for (const auto& e : d.node_evidence) j["node_evidence"].push_back(to_json(e));
  j["diagnosis"] = diagnosis_json(d.diagnosis);
  j["timing"] = {{"estimated_s", opt_json(d.timing.estimated_s)},
                 {"elapsed_s", opt_json(d.timing.elapsed_s)}};
  j["errors"] = d.errors;
  return j;
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
