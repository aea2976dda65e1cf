#include "core/verdict.h"

#include <algorithm>
#include <deque>
#include <optional>
#include <set>

#include "core/errors.h"
#include "core/options.h"
#include "core/result_index.h"
#include "core/sizes.h"
#include "core/text.h"

namespace peerbench {

using nlohmann::json;
namespace vs = verdict_state;

namespace {

// What a pair's (or all ranks') link is, what it carries, and which bars apply to it.
struct Link {
  LinkClass cls;
  std::optional<LinkExpectation> expected;
  std::string kind;  // nvlink, pcie, net, or "" (unknown, same GPU)
};

std::string bar_kind_of(const LinkClass& cls) {
  switch (cls.kind) {
    case LinkKind::kNvLink:
      return "nvlink";
    case LinkKind::kPcieSwitch:
    case LinkKind::kPcieHostBridge:
    case LinkKind::kPcieNode:
    case LinkKind::kPcieSystem:
      return "pcie";
    case LinkKind::kCrossHost:
      return "net";
    default:
      return "";
  }
}

// Everything the rules look up, built once per document.
struct Ctx {
  const RunDocument& d;
  const Expectations& e;
  ResultIndex idx;
  std::vector<const MethodInfo*> requested;
  std::set<std::string> requested_names;
  std::deque<MethodInfo> unknown_methods;  // requested names the file does not describe
  std::optional<PairFilter> filter;
  std::uint64_t max_requested_bytes = 0;
  std::map<std::pair<std::string, int>, const GpuTopology*> gpus;
  std::map<std::tuple<std::string, int, int>, const GpuPairTopology*> gpu_pairs;
  // A rank's GPU by PCI bus id: with per-task binding every rank's GPU is index 0 in its view.
  std::map<std::pair<std::string, std::string>, const GpuTopology*> gpus_by_bus;
  std::map<std::pair<std::string, int>, const GpuLinkHealth*> health;

  Ctx(const RunDocument& doc, const Expectations& ex) : d(doc), e(ex), idx(doc) {}
  const MethodInfo* method(const std::string& name) const { return find_method(d.methods, name); }
  std::string host(int rank) const {
    const auto* r = idx.rank(rank);
    return r ? r->host : "";
  }
};

void index_topology(Ctx& c) {
  if (c.d.topology) {
    for (const auto& h : c.d.topology->hosts) {
      for (const auto& g : h.gpus) {
        c.gpus[{h.host, g.index}] = &g;
        if (!g.pci_bus_id.empty()) c.gpus_by_bus[{h.host, g.pci_bus_id}] = &g;
      }
      for (const auto& p : h.pairs) c.gpu_pairs[{h.host, p.gpu_a, p.gpu_b}] = &p;
    }
  }
  for (const auto& h : c.d.link_health) c.health[{h.host, h.gpu_index}] = &h;
}

// Requested methods: the run's config.methods; files without one: the methods with results.
void read_request(Ctx& c) {
  std::vector<std::string> names;
  const auto& cfg = c.d.config;
  if (cfg.is_object() && cfg.contains("methods") && cfg["methods"].is_array()) {
    for (const auto& n : cfg["methods"]) {
      if (n.is_string()) names.push_back(n.get<std::string>());
    }
  } else {
    names.assign(c.idx.methods().begin(), c.idx.methods().end());
  }
  for (const auto& n : names) {
    if (!c.requested_names.insert(n).second) continue;
    const MethodInfo* m = c.method(n);
    if (!m) {
      c.unknown_methods.push_back(MethodInfo{});
      c.unknown_methods.back().name = n;
      m = &c.unknown_methods.back();
    }
    c.requested.push_back(m);
  }
  if (cfg.is_object() && cfg.contains("pairs") && cfg["pairs"].is_string()) {
    try {
      c.filter = parse_pair_filter(cfg["pairs"].get<std::string>());
    } catch (const std::exception&) {
      c.filter.reset();  // an unreadable filter: every pair counts as requested
    }
  }
  if (cfg.is_object() && cfg.contains("sizes") && cfg["sizes"].is_array()) {
    for (const auto& s : cfg["sizes"]) {
      if (s.is_number_unsigned())
        c.max_requested_bytes = std::max(c.max_requested_bytes, s.get<std::uint64_t>());
    }
  }
}

bool pair_accepted(const Ctx& c, int a, int b) {
  if (!c.filter) return true;
  switch (c.filter->kind) {
    case PairFilter::Kind::kAll:
      return true;
    case PairFilter::Kind::kIntraHost:
      return c.host(a) == c.host(b);
    case PairFilter::Kind::kInterHost:
      return c.host(a) != c.host(b);
    case PairFilter::Kind::kExplicit:
      return std::find(c.filter->pairs.begin(), c.filter->pairs.end(), std::make_pair(a, b)) !=
             c.filter->pairs.end();
  }
  return true;
}

bool requested_for(const Ctx& c, const MethodInfo& m, int src, int dst) {
  if (!c.requested_names.count(m.name)) return false;
  if (m.scope == MethodScope::kAllRanks) return src < 0;
  if (m.scope == MethodScope::kPerGpu)
    return src >= 0 && src == dst && (!c.filter || c.filter->measures_gpu(src));
  if (src < 0 || src == dst) return false;
  if (m.bidirectional)
    return src < dst && (pair_accepted(c, src, dst) || pair_accepted(c, dst, src));
  return pair_accepted(c, src, dst);
}

CardId card_from(const RankInfo* r, int rank) {
  CardId c;
  c.rank = rank;
  if (!r) return c;
  c.host = r->host;
  c.gpu_index = r->gpu.index;
  c.pci_bus_id = r->gpu.pci_bus_id;
  c.uuid = r->gpu.uuid;
  c.serial = r->gpu.serial;
  return c;
}

std::string who(const Ctx& c, int rank) {
  return "rank " + std::to_string(rank) + " (" + card_label(card_from(c.idx.rank(rank), rank)) +
         ")";
}

// One physical GPU: by PCI bus id where both are known (the index is per process), else index.
bool same_gpu(const GpuInfo& a, const GpuInfo& b) {
  if (!a.pci_bus_id.empty() && !b.pci_bus_id.empty()) return a.pci_bus_id == b.pci_bus_id;
  return a.index == b.index;
}

const GpuTopology* topology_gpu(const Ctx& c, const RankInfo& r) {
  if (!r.gpu.pci_bus_id.empty()) {
    const auto it = c.gpus_by_bus.find({r.host, r.gpu.pci_bus_id});
    if (it != c.gpus_by_bus.end()) return it->second;
  }
  const auto it = c.gpus.find({r.host, r.gpu.index});
  return it == c.gpus.end() ? nullptr : it->second;
}

Link link_of(const Ctx& c, int src, int dst) {
  Link l;
  const auto* ra = c.idx.rank(src);
  const auto* rb = c.idx.rank(dst);
  if (ra && rb && ra->host != rb->host) {
    l.cls = cross_host_link();
  } else if (ra && rb && same_gpu(ra->gpu, rb->gpu)) {
    l.cls.kind = LinkKind::kSameGpu;
    l.cls.label = "X";
  } else {
    l.cls.label = "?";
    const GpuTopology* ga = ra ? topology_gpu(c, *ra) : nullptr;
    const GpuTopology* gb = rb ? topology_gpu(c, *rb) : nullptr;
    const auto p =
        ga && gb ? c.gpu_pairs.find({ra->host, ga->index, gb->index}) : c.gpu_pairs.end();
    if (p != c.gpu_pairs.end()) {
      l.cls = classify_link(*p->second);
      l.expected = expected_link_bandwidth(l.cls, *ga, *gb);
    }
  }
  l.kind = bar_kind_of(l.cls);
  return l;
}

// " over all ranks", " between host and rank 0 (...)", " from rank 0 (...) to rank 1 (...)".
std::string where_text(const Ctx& c, const PairVerdict& v) {
  if (v.src < 0) return " over all ranks";
  if (v.src == v.dst) return " between the host and " + who(c, v.src);
  return " from " + who(c, v.src) + " to " + who(c, v.dst);
}

// The link between a GPU and its host: the GPU's PCIe link through the CPU's host bridge. Its
// bar is the generation and width GPU and slot both support (expected_link_bandwidth).
Link host_link_of(const Ctx& c, int rank) {
  Link l;
  l.cls.kind = LinkKind::kPcieHostBridge;
  l.cls.label = "PCIe";
  const auto* r = c.idx.rank(rank);
  if (const GpuTopology* g = r ? topology_gpu(c, *r) : nullptr) {
    l.expected = expected_link_bandwidth(l.cls, *g, *g);
    if (l.expected) {
      l.cls.label =
          "PCIe Gen" + std::to_string(pcie_gen_bar(*g)) + " x" + std::to_string(pcie_width_bar(*g));
    }
  }
  l.kind = bar_kind_of(l.cls);
  return l;
}

Flag make_flag(const std::string& code, const std::string& method, const std::string& message,
               json evidence) {
  Flag f;
  f.code = code;
  f.method = method;
  f.message = message;
  f.evidence = std::move(evidence);
  return f;
}

// ---- Facts about the pair, independent of any one method.

void host_staged_flag(const Ctx& c, PairVerdict& v, const PairFacts& f) {
  const bool cannot = (f.can_access_peer && !*f.can_access_peer) ||
                      f.peer_access == "unsupported" || f.peer_access == "error";
  if (!cannot) return;
  json ev = {{"can_access_peer", f.can_access_peer ? json(*f.can_access_peer) : json()},
             {"peer_access", f.peer_access},
             {"error", f.error}};
  if (const auto* st = c.idx.largest_ok("staged", v.src, v.dst)) {
    ev["staged_gbps"] = st->algbw_gbps ? st->algbw_gbps->median : 0.0;
    ev["staged_bytes"] = st->bytes;
  }
  v.flags.push_back(make_flag("host-staged", "",
                              "no peer-to-peer between " + who(c, v.src) + " and " + who(c, v.dst) +
                                  " on one host: copies go through host memory",
                              ev));
}

std::string transport_text(const PairTransport& t) {
  std::string s = t.details.empty() ? t.kind : t.details.front();
  if (!t.net_paths.empty()) {
    s.clear();
    for (const auto& p : t.net_paths) s += (s.empty() ? "" : ", ") + p;
    if (t.gdrdma) s += *t.gdrdma ? " GDRDMA" : " (no GDRDMA)";
  }
  return s + " (" + std::to_string(t.channels) + " ch)";
}

void nccl_flags(const Ctx& c, PairVerdict& v, const PairTransport& t, const Link& link) {
  const json base = {{"transport", t.kind},   {"details", t.details},     {"channels", t.channels},
                     {"log_line", t.example}, {"net_paths", t.net_paths}, {"link", v.link}};
  if (link.cls.kind == LinkKind::kCrossHost) {
    const bool socket = std::any_of(t.details.begin(), t.details.end(), [](const std::string& d) {
      return d.rfind("NET/Socket", 0) == 0;
    });
    if (socket) {
      v.flags.push_back(make_flag(
          "nccl-net-socket", "",
          "NCCL used its Socket transport from " + who(c, v.src) + " to " + who(c, v.dst) +
              ": between hosts that means the InfiniBand/RoCE path is not in use",
          base));
    }
    return;
  }
  if (link.cls.kind == LinkKind::kSameGpu) return;
  for (const auto& k : t.kinds) {
    if (k != "SHM" && k != "NET") continue;
    v.flags.push_back(make_flag(
        k == "SHM" ? "nccl-shm" : "nccl-net", "",
        "NCCL used " + (k == "SHM" ? std::string("shared memory (SHM)") : "the network (NET)") +
            " from " + who(c, v.src) + " to " + who(c, v.dst) + " on one host" +
            (link.cls.kind == LinkKind::kNvLink ? " although they share " + v.link_description
                                                : ""),
        base));
  }
}

// Counters that grew between the two readings, as "link 3 replay +2". The data CRC counter is
// left out: on NVLink 4 (H100/H200) it rises with traffic on healthy links (62-232 a link in one
// default run on 2 x H200 at full bandwidth, zero replays), counting what the link corrected.
// Replays, recoveries and flit CRC errors mean retransmission or retraining. Both readings stay
// in the results file either way.
std::vector<std::string> grown_counters(const GpuLinkHealth& h) {
  std::map<int, const NvLinkErrorCounts*> before;
  for (const auto& b : h.nvlink_errors_before) before[b.link] = &b;
  std::vector<std::string> out;
  for (const auto& a : h.nvlink_errors_after) {
    const auto it = before.find(a.link);
    if (it == before.end()) continue;
    const NvLinkErrorCounts& b = *it->second;
    const std::pair<const char*,
                    std::pair<std::optional<std::uint64_t>, std::optional<std::uint64_t>>>
        counters[] = {{"replay", {b.replay, a.replay}},
                      {"recovery", {b.recovery, a.recovery}},
                      {"crc_flit", {b.crc_flit, a.crc_flit}}};
    for (const auto& [name, ba] : counters) {
      if (ba.first && ba.second && *ba.second > *ba.first) {
        out.push_back("link " + std::to_string(a.link) + " " + name + " +" +
                      std::to_string(*ba.second - *ba.first));
      }
    }
  }
  return out;
}

void pcie_flag(PairVerdict& v, const GpuLinkHealth& h, const std::string& card) {
  std::optional<int> gen_bar = h.pcie_gen_max;
  if (h.pcie_gen_gpu_max)
    gen_bar = gen_bar ? std::min(*gen_bar, *h.pcie_gen_gpu_max) : h.pcie_gen_gpu_max;
  const bool gen_low = gen_bar && h.pcie_gen_under_load && *h.pcie_gen_under_load < *gen_bar;
  const bool width_low =
      h.pcie_width_max && h.pcie_width_under_load && *h.pcie_width_under_load < *h.pcie_width_max;
  if (!gen_low && !width_low) return;
  auto opt = [](const std::optional<int>& x) { return x ? std::to_string(*x) : std::string("?"); };
  v.flags.push_back(make_flag(
      "pcie-downtrained", "",
      "PCIe link of " + card + " ran at Gen" + opt(h.pcie_gen_under_load) + " x" +
          opt(h.pcie_width_under_load) + " under load (" + h.under_load_during +
          "); GPU and slot support Gen" + opt(gen_bar) + " x" + opt(h.pcie_width_max),
      {{"pcie_gen_under_load", h.pcie_gen_under_load ? json(*h.pcie_gen_under_load) : json()},
       {"pcie_width_under_load", h.pcie_width_under_load ? json(*h.pcie_width_under_load) : json()},
       {"pcie_gen_bar", gen_bar ? json(*gen_bar) : json()},
       {"pcie_width_bar", h.pcie_width_max ? json(*h.pcie_width_max) : json()},
       {"read_during", h.under_load_during},
       {"pci_bus_id", h.pci_bus_id}}));
}

void health_flags(const Ctx& c, PairVerdict& v) {
  std::set<std::pair<std::string, int>> seen;
  for (const auto& card : v.cards) {
    if (!seen.insert({card.host, card.gpu_index}).second) continue;
    const auto it = c.health.find({card.host, card.gpu_index});
    if (it == c.health.end()) continue;
    const GpuLinkHealth& h = *it->second;
    const auto grown = grown_counters(h);
    if (!grown.empty()) {
      std::string list;
      for (const auto& g : grown) list += (list.empty() ? "" : ", ") + g;
      v.flags.push_back(make_flag(
          "link-errors", "", "NVLink errors on " + card_label(card) + " during the run: " + list,
          {{"counters", grown}, {"pci_bus_id", card.pci_bus_id}, {"serial", card.serial}}));
    }
    pcie_flag(v, h, card_label(card));
  }
}

// ---- One method on one pair.

std::string not_run_reason(const Ctx& c) {
  if (c.d.status == "incomplete") return "not run: the run was cut short before it";
  if (c.d.status == "failed") return "not run: the run failed before it";
  return "requested, but no result is recorded";
}

// Fills `mv` when the method has no usable measurement; false when there is one to judge.
bool unmeasured(const Ctx& c, const MethodInfo& m, const std::vector<const Result*>& rs,
                const Link& link, bool asked, MethodVerdict& mv) {
  if (rs.empty()) {
    if (m.same_host_only && link.cls.kind == LinkKind::kCrossHost) {
      mv.state = vs::kNotApplicable;
      mv.reason = m.name + " needs both GPUs in one host";
    } else {
      mv.state = vs::kIncomplete;
      mv.reason = not_run_reason(c);
    }
    return true;
  }
  for (const auto* r : rs) {
    if (r->status == ResultStatus::kError || r->status == ResultStatus::kTimeout ||
        r->status == ResultStatus::kNotRun) {
      mv.state = vs::kIncomplete;
      mv.reason = to_string(r->status) + " at " + format_size(r->bytes) +
                  (r->reason.empty() ? "" : ": " + r->reason);
      return true;
    }
  }
  const Result* best = c.idx.largest_ok(m.name, rs.front()->src, rs.front()->dst);
  for (const auto* r : rs) {
    if (r->status != ResultStatus::kSkipped && r->status != ResultStatus::kNotApplicable) continue;
    const bool by_design = r->status == ResultStatus::kNotApplicable ||
                           link.cls.kind == LinkKind::kSameGpu || r->reason.rfind("p2p:", 0) == 0;
    mv.state = by_design ? vs::kNotApplicable : vs::kIncomplete;
    mv.reason = (by_design ? "" : "skipped: ") + r->reason;
    return true;
  }
  if (!best) {
    mv.state = vs::kIncomplete;
    mv.reason = "no usable measurement";
    return true;
  }
  if (asked && !m.fixed_size && c.max_requested_bytes > best->bytes) {
    mv.state = vs::kIncomplete;
    mv.reason = "the largest requested size, " + format_size(c.max_requested_bytes) +
                ", was not measured (largest: " + format_size(best->bytes) + ")";
    return true;
  }
  return false;
}

void data_error_flags(const Ctx& c, PairVerdict& v, const std::vector<const Result*>& rs) {
  for (const auto* r : rs) {
    if (r->wrong == 0) continue;
    v.flags.push_back(make_flag(
        "data-errors", r->method,
        r->method + (variant_label(*r).empty() ? "" : " (" + variant_label(*r) + ")") +
            " delivered " + std::to_string(r->wrong) + " wrong elements at " +
            format_size(r->bytes) + where_text(c, v),
        {{"bytes", r->bytes}, {"wrong", r->wrong}, {"checked_elements", r->checked_elements}}));
  }
}

std::string bar_kind_for(const Ctx& c, const MethodInfo& m, const Link& link, int src, int dst) {
  if (link.cls.kind == LinkKind::kCrossHost) return "net";
  if (m.family == "staged") return "staged";
  if (m.uses_nccl && src >= 0) {
    const auto* f = c.idx.facts(src, dst);
    if (f && f->nccl && f->nccl->kind == "SHM") return "staged";
    if (f && f->nccl && f->nccl->kind == "NET") return "net";
  }
  return link.kind;
}

// A site bar for `method` on link kind `kind`: the kind's own, else the "*" one.
std::optional<double> site_bar(const std::map<std::string, std::map<std::string, double>>& bars,
                               const std::string& method, const std::string& kind) {
  const auto it = bars.find(method);
  if (it == bars.end()) return std::nullopt;
  for (const auto& k : {kind, std::string("*")}) {
    const auto b = it->second.find(k);
    if (b != it->second.end()) return b->second;
  }
  return std::nullopt;
}

// The latency bar for a method: the site's per-method bar, else the per-kind default.
void latency_bar(const Ctx& c, const MethodInfo& m, const std::string& kind, bool small_message,
                 MethodVerdict& mv) {
  if (auto b = site_bar(c.e.max_latency_us, m.name, kind)) {
    mv.bar = *b;
    mv.bar_basis = "max_latency_us from " + c.e.source;
    return;
  }
  const auto& table = small_message ? c.e.small_message_us : c.e.latency_us;
  const auto it = table.find(kind);
  if (it == table.end()) return;
  mv.bar = it->second;
  mv.bar_basis = std::string(small_message ? "small_message_us" : "latency_us") + "." + kind +
                 " (" + (c.e.source) + ")";
}

void judge_latency(const Ctx& c, PairVerdict& v, const MethodInfo& m, const Result& r,
                   const std::string& kind, bool small_message, MethodVerdict& mv) {
  mv.value = r.time_us ? r.time_us->median : 0;
  mv.unit = "us";
  latency_bar(c, m, kind, small_message, mv);
  if (!mv.bar) {
    mv.state = vs::kNotJudged;
    mv.reason = "no latency bar for link " + v.link;
    return;
  }
  if (*mv.value <= *mv.bar) return;
  v.flags.push_back(make_flag("high-latency", m.name,
                              m.name + " took " + format_fixed(*mv.value, 2) +
                                  " us per operation at " + format_size(r.bytes) +
                                  where_text(c, v) + ", over the " + format_fixed(*mv.bar, 1) +
                                  " us bar for " + kind,
                              {{"measured_us", *mv.value},
                               {"bar_us", *mv.bar},
                               {"basis", mv.bar_basis},
                               {"bytes", r.bytes},
                               {"link", v.link}}));
}

// The default bandwidth bar: a fraction of the link (pairs in one host), or of the slowest local
// link (all ranks). Staged copies and links between hosts have none unless the site sets one.
void default_bandwidth_bar(const Ctx& c, const MethodInfo& m, const Link& link, bool all_ranks,
                           MethodVerdict& mv) {
  if (!link.expected || m.family == "staged" || link.cls.kind == LinkKind::kCrossHost) return;
  if (all_ranks) {
    mv.bar = c.e.allreduce_fraction_of_link * link.expected->raw_gbps;
    mv.bar_basis = format_fixed(c.e.allreduce_fraction_of_link * 100, 0) +
                   "% of the slowest local link, " + link.expected->basis;
    return;
  }
  mv.bar = c.e.fraction_of_link * link.expected->raw_gbps * (m.bidirectional ? 2 : 1);
  mv.bar_basis = format_fixed(c.e.fraction_of_link * 100, 0) + "% of " + link.expected->basis +
                 (m.bidirectional ? ", both directions" : "");
}

void judge_bandwidth(const Ctx& c, PairVerdict& v, const MethodInfo& m, const Result& r,
                     const Link& link, const std::string& kind, MethodVerdict& mv) {
  mv.value = headline_value(&m, r);
  mv.unit = m.uses_nccl ? "busbw GB/s" : "GB/s";
  if (auto b = site_bar(c.e.min_gbps, m.name, kind)) {
    mv.bar = *b;
    mv.bar_basis = "min_gbps from " + c.e.source;
  } else {
    default_bandwidth_bar(c, m, link, v.src < 0, mv);
  }
  if (!mv.bar || *mv.value >= *mv.bar) return;
  json ev = {{"measured_gbps", *mv.value},
             {"threshold_gbps", *mv.bar},
             {"basis", mv.bar_basis},
             {"bytes", r.bytes},
             {"link", v.link}};
  if (link.expected) ev["link_raw_gbps"] = link.expected->raw_gbps;
  // Per GPU, only the every-GPU-at-once methods ran beside others.
  const bool at_once = v.src != v.dst || m.all_gpus_at_once;
  if (!v.concurrent_pairs.empty() && at_once) ev["ran_at_once_with"] = v.concurrent_pairs;
  v.flags.push_back(make_flag("below-link", m.name,
                              m.name + " reached " + format_fixed(*mv.value, 1) + " GB/s at " +
                                  format_size(r.bytes) + where_text(c, v) + ", under the " +
                                  format_fixed(*mv.bar, 1) + " GB/s that " + v.link_description +
                                  " should carry",
                              ev));
}

void asymmetry_flag(const Ctx& c, PairVerdict& v, const MethodInfo& m, const Result& r) {
  if (m.bidirectional || m.scope != MethodScope::kPair) return;
  const auto* back = c.idx.ok_at(m.name, v.dst, v.src, r.bytes);
  if (!back) return;
  const double value = headline_value(&m, r);
  const double other = headline_value(&m, *back);
  const double hi = std::max(value, other);
  if (hi <= 0 || value >= other || (hi - value) / hi <= c.e.asymmetry_tolerance) return;
  const std::string a = std::to_string(v.src), b = std::to_string(v.dst);
  v.flags.push_back(make_flag("asymmetric", m.name,
                              m.name + " " + a + "->" + b + " " + format_fixed(value, 1) +
                                  " GB/s vs " + b + "->" + a + " " + format_fixed(other, 1) +
                                  " GB/s at " + format_size(r.bytes) + " (" +
                                  format_fixed(100 * (hi - value) / hi, 1) + "% apart; tolerance " +
                                  format_fixed(100 * c.e.asymmetry_tolerance, 0) + "%)",
                              {{"this_direction_gbps", value},
                               {"reverse_direction_gbps", other},
                               {"bytes", r.bytes},
                               {"tolerance", c.e.asymmetry_tolerance}}));
}

// A copy-engine copy on NVLink whose NVLink data counters moved less than the payload.
void off_nvlink_flag(const Ctx& c, PairVerdict& v, const MethodInfo& m,
                     const std::vector<const Result*>& rs, const Link& link) {
  if (m.family != "ce" || m.metric != Metric::kBandwidth || link.cls.kind != LinkKind::kNvLink)
    return;
  for (auto it = rs.rbegin(); it != rs.rend(); ++it) {
    const Result& r = **it;
    if (r.status != ResultStatus::kOk || !r.link_counters) continue;
    const auto& lc = *r.link_counters;
    if ((!lc.src_tx_bytes && !lc.dst_rx_bytes) || lc.payload_bytes <= 0) continue;
    const double moved = std::min(lc.src_tx_bytes.value_or(lc.payload_bytes),
                                  lc.dst_rx_bytes.value_or(lc.payload_bytes));
    if (moved >= c.e.off_nvlink_fraction * lc.payload_bytes) return;
    v.flags.push_back(
        make_flag("off-nvlink", m.name,
                  m.name + " at " + format_size(r.bytes) + " from " + who(c, v.src) + " to " +
                      who(c, v.dst) + " moved " + format_fixed(100 * moved / lc.payload_bytes, 1) +
                      "% of its payload over NVLink: the bytes took another road",
                  {{"src_nvlink_tx_bytes", lc.src_tx_bytes ? json(*lc.src_tx_bytes) : json()},
                   {"dst_nvlink_rx_bytes", lc.dst_rx_bytes ? json(*lc.dst_rx_bytes) : json()},
                   {"payload_bytes", lc.payload_bytes},
                   {"fraction_required", c.e.off_nvlink_fraction},
                   {"bytes", r.bytes}}));
    return;
  }
}

// Judges a measured method: its figure at the largest size against the bar that applies.
void judge_measured(const Ctx& c, PairVerdict& v, const MethodInfo& m, const Result& r,
                    const Link& link, MethodVerdict& mv) {
  mv.state = vs::kPass;
  mv.bytes = r.bytes;
  if (link.cls.kind == LinkKind::kSameGpu) {
    mv.state = vs::kNotALink;
    mv.reason = "both ranks drive one GPU: the figure is not a link's";
    mv.value = headline_value(&m, r);
    return;
  }
  const std::string kind = bar_kind_for(c, m, link, v.src, v.dst);
  if (m.metric == Metric::kLatency) {
    judge_latency(c, v, m, r, kind, false, mv);
  } else if (r.bytes >= c.e.judge_min_bytes) {
    judge_bandwidth(c, v, m, r, link, kind, mv);
    asymmetry_flag(c, v, m, r);
  } else if (r.bytes <= c.e.small_message_max_bytes) {
    judge_latency(c, v, m, r, kind, true, mv);
  } else {
    mv.state = vs::kNotJudged;
    mv.value = headline_value(&m, r);
    mv.unit = m.uses_nccl ? "busbw GB/s" : "GB/s";
    mv.reason = "not judged: largest size " + format_size(r.bytes) + " < " +
                format_size(c.e.judge_min_bytes);
  }
}

std::optional<MethodVerdict> judge_method(const Ctx& c, PairVerdict& v, const MethodInfo& m,
                                          const Link& link) {
  const auto& rs = c.idx.of(m.name, v.src, v.dst);
  const bool asked = requested_for(c, m, v.src, v.dst);
  if (rs.empty() && !asked) return std::nullopt;
  MethodVerdict mv;
  mv.method = m.name;
  data_error_flags(c, v, c.idx.every_variant(m.name, v.src, v.dst));
  if (unmeasured(c, m, rs, link, asked, mv)) return mv;
  judge_measured(c, v, m, *c.idx.largest_ok(m.name, v.src, v.dst), link, mv);
  off_nvlink_flag(c, v, m, rs, link);
  return mv;
}

// p2p-slower-than-staged: a peer copy slower than copying through host memory, at the largest
// size both measured.
void p2p_vs_staged_flags(const Ctx& c, PairVerdict& v) {
  for (const auto& mv : v.methods) {
    const auto* m = c.method(mv.method);
    if (!m || (m->family != "ce" && m->family != "sm") || m->metric != Metric::kBandwidth ||
        m->bidirectional) {
      continue;
    }
    const auto& rs = c.idx.of(m->name, v.src, v.dst);
    for (auto it = rs.rbegin(); it != rs.rend(); ++it) {
      const Result* p2p = *it;
      const Result* staged = c.idx.ok_at("staged", v.src, v.dst, p2p->bytes);
      if (p2p->status != ResultStatus::kOk || !p2p->algbw_gbps || !staged || !staged->algbw_gbps)
        continue;
      if (p2p->algbw_gbps->median < staged->algbw_gbps->median) {
        v.flags.push_back(make_flag("p2p-slower-than-staged", m->name,
                                    m->name + " (" + format_fixed(p2p->algbw_gbps->median, 1) +
                                        " GB/s) is slower than copying through host memory (" +
                                        format_fixed(staged->algbw_gbps->median, 1) + " GB/s) at " +
                                        format_size(p2p->bytes) +
                                        ": the peer path is broken or throttled",
                                    {{"p2p_gbps", p2p->algbw_gbps->median},
                                     {"staged_gbps", staged->algbw_gbps->median},
                                     {"bytes", p2p->bytes}}));
      }
      break;
    }
  }
}

// Pairs that ran in the same round as this one (--schedule rounds).
std::vector<std::string> concurrent_with(const Ctx& c, int src, int dst) {
  std::set<std::pair<int, int>> others;
  for (const auto& name : c.idx.methods_of(src, dst)) {
    std::set<int> rounds;
    for (const auto* r : c.idx.of(name, src, dst)) {
      if (r->concurrent_pairs > 1) rounds.insert(r->round);
    }
    for (int round : rounds) {
      for (const auto& p : c.idx.round_pairs(name, round)) {
        if (p != std::make_pair(src, dst)) others.insert(p);
      }
    }
  }
  std::vector<std::string> out;
  for (const auto& [a, b] : others) {
    out.push_back(a == b ? "rank " + std::to_string(a)
                         : std::to_string(a) + "->" + std::to_string(b));
  }
  return out;
}

// The worst state wins: flagged > incomplete > not-a-link > pass > not-judged > not-applicable.
void settle(PairVerdict& v, bool same_gpu) {
  std::set<std::string> flagged_methods;
  for (const auto& f : v.flags) flagged_methods.insert(f.method);
  for (auto& mv : v.methods) {
    if (flagged_methods.count(mv.method) && mv.state != vs::kIncomplete) mv.state = vs::kFlagged;
  }
  auto any = [&](const char* s) {
    return std::any_of(v.methods.begin(), v.methods.end(),
                       [&](const MethodVerdict& m) { return m.state == s; });
  };
  if (!v.flags.empty()) {
    v.verdict = vs::kFlagged;
  } else if (any(vs::kIncomplete)) {
    v.verdict = vs::kIncomplete;
  } else if (same_gpu) {
    v.verdict = vs::kNotALink;
  } else if (any(vs::kPass)) {
    v.verdict = vs::kPass;
  } else if (any(vs::kNotJudged)) {
    v.verdict = vs::kNotJudged;
  } else {
    v.verdict = vs::kNotApplicable;
  }
}

void describe_observed(const Ctx& c, PairVerdict& v) {
  std::vector<std::string> parts;
  if (v.src >= 0) {
    const auto* f = c.idx.facts(v.src, v.dst);
    if (f && f->nccl) parts.push_back("NCCL " + transport_text(*f->nccl));
  }
  for (const auto& mv : v.methods) {
    if (!mv.value) continue;
    const bool us = mv.unit == "us";
    parts.push_back(mv.method + " " + format_fixed(*mv.value, us ? 2 : 1) + " " +
                    (us ? "us" : "GB/s") +
                    (v.src < 0 ? " @ " + format_size_compact(mv.bytes) : ""));
  }
  if (!v.concurrent_pairs.empty()) {
    std::string with;
    for (const auto& p : v.concurrent_pairs) with += (with.empty() ? "" : ", ") + p;
    parts.push_back("ran at once with " + with +
                    (v.src == v.dst ? " (every GPU at once)" : " (--schedule rounds)"));
  }
  for (const auto& p : parts) v.observed += (v.observed.empty() ? "" : "; ") + p;
}

std::optional<PairVerdict> pair_verdict(const Ctx& c, int src, int dst) {
  PairVerdict v;
  v.src = src;
  v.dst = dst;
  const Link link = link_of(c, src, dst);
  v.link = link.cls.label;
  v.link_description = link.cls.describe();
  v.cards = {card_from(c.idx.rank(src), src), card_from(c.idx.rank(dst), dst)};
  v.concurrent_pairs = concurrent_with(c, src, dst);
  if (const auto* f = c.idx.facts(src, dst)) {
    if (f->same_host && link.cls.kind != LinkKind::kSameGpu) host_staged_flag(c, v, *f);
    if (f->nccl) nccl_flags(c, v, *f->nccl, link);
  }
  std::set<std::string> done;
  for (const auto* m : c.requested) {
    if (m->scope != MethodScope::kPair || !done.insert(m->name).second) continue;
    if (auto mv = judge_method(c, v, *m, link)) v.methods.push_back(std::move(*mv));
  }
  for (const auto& name : c.idx.methods_of(src, dst)) {  // results of methods not requested
    const auto* m = c.method(name);
    if (!m || !done.insert(name).second) continue;
    if (auto mv = judge_method(c, v, *m, link)) v.methods.push_back(std::move(*mv));
  }
  if (v.methods.empty() && v.flags.empty()) return std::nullopt;
  if (link.cls.kind != LinkKind::kSameGpu) p2p_vs_staged_flags(c, v);
  health_flags(c, v);
  describe_observed(c, v);
  settle(v, link.cls.kind == LinkKind::kSameGpu);
  return v;
}

// Another rank drives the same GPU (--allow-gpu-sharing): its "every GPU at once" copies share
// one PCIe link, so their figure is not the link's.
bool gpu_shared(const Ctx& c, int rank) {
  const auto* me = c.idx.rank(rank);
  if (!me) return false;
  return std::any_of(c.d.system.ranks.begin(), c.d.system.ranks.end(), [&](const RankInfo& r) {
    return r.rank != rank && r.host == me->host && same_gpu(r.gpu, me->gpu);
  });
}

// One GPU and its host: the host<->GPU methods (h2d, d2h, h2d-all, d2h-all) against the GPU's
// PCIe link.
std::optional<PairVerdict> gpu_verdict(const Ctx& c, int rank) {
  PairVerdict v;
  v.src = v.dst = rank;
  const Link link = host_link_of(c, rank);
  v.link = link.cls.label;
  v.link_description =
      "the GPU's PCIe link to the host" + (link.expected ? " (" + link.expected->basis + ")" : "");
  v.cards = {card_from(c.idx.rank(rank), rank)};
  v.concurrent_pairs = concurrent_with(c, rank, rank);
  Link shared = link;
  shared.cls.kind = LinkKind::kSameGpu;
  const bool is_shared = gpu_shared(c, rank);
  auto judge = [&](const MethodInfo& m) {
    if (auto mv = judge_method(c, v, m, is_shared && m.all_gpus_at_once ? shared : link))
      v.methods.push_back(std::move(*mv));
  };
  std::set<std::string> done;
  for (const auto* m : c.requested) {
    if (m->scope == MethodScope::kPerGpu && done.insert(m->name).second) judge(*m);
  }
  for (const auto& name : c.idx.methods_of(rank, rank)) {  // results of methods not requested
    const auto* m = c.method(name);
    if (m && done.insert(name).second) judge(*m);
  }
  if (v.methods.empty()) return std::nullopt;
  health_flags(c, v);
  describe_observed(c, v);
  settle(v, false);
  return v;
}

// The link that bounds a collective over all ranks: the network across hosts, else the slowest
// local link; the same GPU when every rank shares one.
Link all_ranks_link(const Ctx& c) {
  Link slowest;
  slowest.cls.label = "all";
  if (c.d.system.hosts.size() > 1) {
    slowest.cls = cross_host_link();
    slowest.kind = "net";
    return slowest;
  }
  bool all_same_gpu = !c.idx.pairs().empty();
  for (const auto& [s, t] : c.idx.pairs()) {
    const Link l = link_of(c, s, t);
    if (l.cls.kind != LinkKind::kSameGpu) all_same_gpu = false;
    if (l.expected && (!slowest.expected || l.expected->raw_gbps < slowest.expected->raw_gbps)) {
      slowest = l;
    }
  }
  if (all_same_gpu) slowest.cls.kind = LinkKind::kSameGpu;
  return slowest;
}

std::optional<PairVerdict> all_ranks_verdict(const Ctx& c) {
  PairVerdict v;
  v.link = "all";
  v.link_description = "all ranks";
  for (const auto& r : c.d.system.ranks) v.cards.push_back(card_from(&r, r.rank));
  const Link link = all_ranks_link(c);
  std::set<std::string> names;
  for (const auto* m : c.requested) {
    if (m->scope == MethodScope::kAllRanks) names.insert(m->name);
  }
  for (const auto& n : c.idx.methods_of(-1, -1)) names.insert(n);
  for (const auto* m : c.requested) {  // run order first, then the rest
    if (!names.count(m->name)) continue;
    names.erase(m->name);
    if (auto mv = judge_method(c, v, *m, link)) v.methods.push_back(std::move(*mv));
  }
  for (const auto& n : names) {
    if (const auto* m = c.method(n)) {
      if (auto mv = judge_method(c, v, *m, link)) v.methods.push_back(std::move(*mv));
    }
  }
  if (v.methods.empty()) return std::nullopt;
  describe_observed(c, v);
  settle(v, link.cls.kind == LinkKind::kSameGpu);
  return v;
}

// Ordered pairs to judge: those with facts or results, and every pair the request covers.
std::set<std::pair<int, int>> pairs_to_judge(const Ctx& c) {
  std::set<std::pair<int, int>> pairs = c.idx.pairs();
  const bool any_pair_method =
      std::any_of(c.requested.begin(), c.requested.end(),
                  [](const MethodInfo* m) { return m->scope == MethodScope::kPair; });
  if (!any_pair_method) return pairs;
  if (c.filter && c.filter->kind == PairFilter::Kind::kExplicit) {
    for (const auto& p : c.filter->pairs) {
      if (c.idx.rank(p.first) && c.idx.rank(p.second)) pairs.insert(p);
    }
    return pairs;
  }
  for (const auto& a : c.d.system.ranks) {
    for (const auto& b : c.d.system.ranks) {
      if (a.rank != b.rank && pair_accepted(c, a.rank, b.rank)) pairs.insert({a.rank, b.rank});
    }
  }
  return pairs;
}

}  // namespace

std::vector<PairVerdict> compute_verdicts(const RunDocument& d, const Expectations& e) {
  Ctx c(d, e);
  index_topology(c);
  read_request(c);
  std::vector<PairVerdict> out;
  for (const auto& [src, dst] : pairs_to_judge(c)) {
    if (auto v = pair_verdict(c, src, dst)) out.push_back(std::move(*v));
  }
  std::set<int> gpus = c.idx.gpus();
  for (const auto* m : c.requested) {
    if (m->scope != MethodScope::kPerGpu) continue;
    for (const auto& r : d.system.ranks) {
      if (!c.filter || c.filter->measures_gpu(r.rank)) gpus.insert(r.rank);
    }
  }
  for (int r : gpus) {
    if (auto v = gpu_verdict(c, r)) out.push_back(std::move(*v));
  }
  if (auto all = all_ranks_verdict(c)) out.push_back(std::move(*all));
  return out;
}

std::vector<std::string> known_flag_codes() {
  return {"host-staged",
          "nccl-shm",
          "nccl-net",
          "nccl-net-socket",
          "below-link",
          "high-latency",
          "p2p-slower-than-staged",
          "asymmetric",
          "data-errors",
          "off-nvlink",
          "link-errors",
          "pcie-downtrained"};
}

VerdictCounts count_verdicts(const std::vector<PairVerdict>& v) {
  VerdictCounts c;
  for (const auto& p : v) {
    ++c.verdicts;
    c.pass += p.verdict == vs::kPass;
    c.flagged += p.verdict == vs::kFlagged;
    c.incomplete += p.verdict == vs::kIncomplete;
    c.not_applicable += p.verdict == vs::kNotApplicable;
    c.not_a_link += p.verdict == vs::kNotALink;
    c.not_judged += p.verdict == vs::kNotJudged;
    c.flags += static_cast<int>(p.flags.size());
    for (const auto& m : p.methods) c.incomplete_methods += m.state == vs::kIncomplete;
  }
  return c;
}

std::string verdict_headline(const VerdictCounts& c) {
  if (c.verdicts == 0) return "nothing was judged";
  if (c.pass == c.verdicts) return "all " + std::to_string(c.verdicts) + " pass";
  std::string s;
  const std::pair<int, const char*> parts[] = {{c.flagged, "flagged"},
                                               {c.incomplete, "incomplete"},
                                               {c.pass, "pass"},
                                               {c.not_judged, "not judged"},
                                               {c.not_a_link, "not a link"},
                                               {c.not_applicable, "not applicable"}};
  for (const auto& [n, what] : parts) {
    if (n) s += (s.empty() ? "" : ", ") + std::to_string(n) + " " + what;
  }
  s += " of " + std::to_string(c.verdicts) + " verdicts";
  if (c.flags) s += " (" + std::to_string(c.flags) + " flag" + (c.flags == 1 ? "" : "s") + ")";
  return s;
}

int count_failing(const std::vector<PairVerdict>& v, const std::string& fail_on) {
  if (fail_on == "none") return 0;
  const auto codes = split(fail_on, ',');
  auto selected = [&](const std::string& code) {
    return fail_on == "all" || std::find(codes.begin(), codes.end(), code) != codes.end();
  };
  int n = 0;
  for (const auto& pv : v) {
    for (const auto& f : pv.flags) n += selected(f.code);
    if (!selected("incomplete")) continue;
    for (const auto& m : pv.methods) n += m.state == vs::kIncomplete;
  }
  return n;
}

int verdict_exit_code(const std::vector<PairVerdict>& v, const std::string& fail_on) {
  return count_failing(v, fail_on) > 0 ? kExitFlagged : kExitOk;
}

int acceptance_exit_code(const std::vector<PairVerdict>& v) {
  return verdict_exit_code(v, "all");
}

CardId card_of(const RunDocument& d, int rank) {
  return card_from(rank_info(d, rank), rank);
}

std::string card_label(const CardId& c) {
  if (c.gpu_index < 0) return "rank " + std::to_string(c.rank) + ", GPU unknown";
  std::string s = "GPU " + std::to_string(c.gpu_index);
  std::string ids = c.pci_bus_id;
  if (!c.serial.empty()) ids += (ids.empty() ? "" : ", ") + std::string("serial ") + c.serial;
  if (!ids.empty()) s += " (" + ids + ")";
  return s + " on " + c.host;
}

double headline_value(const MethodInfo* m, const Result& r) {
  if (m && m->metric == Metric::kLatency) return r.time_us ? r.time_us->median : 0;
  if (m && m->uses_nccl && r.busbw_gbps) return r.busbw_gbps->median;
  return r.algbw_gbps ? r.algbw_gbps->median : 0;
}

}  // namespace peerbench
