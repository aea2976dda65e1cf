// The verdicts' shared context: the document indexed once, the request, the link between two
// ranks, and the words that name ranks and cards.
#include <algorithm>
#include <set>

#include "core/base/text.h"
#include "core/judge/verdict_context.h"
#include "core/model/sizes.h"

namespace peerbench::verdict_detail {

using nlohmann::json;

namespace {

void index_topology(Ctx& c) {
  if (c.d.topology) {
    for (const auto& h : c.d.topology->hosts) {
      for (const auto& g : h.gpus) {
        c.gpus[{h.host, g.index}] = &g;
        if (!g.pci_bus_id.empty()) c.gpus_by_bus[{h.host, g.pci_bus_id}] = &g;
      }
      for (const auto& p : h.pairs) c.gpu_pairs[{h.host, p.gpu_a, p.gpu_b}] = &p;
      for (const auto& g : h.gpus) {
        auto& m = c.model_links[{h.host, g.name}];
        m.most_up = std::max(m.most_up, g.nvlinks_up);
        for (const auto& l : g.nvlinks) {
          if (l.active && l.speed_gbps) m.fastest_gbps = std::max(m.fastest_gbps, *l.speed_gbps);
        }
      }
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

// Confirmation repeats by case, and how many the run asked for.
void index_confirmations(Ctx& c) {
  for (const auto& r : c.d.confirmations) c.confirmations[case_key(r)].push_back(&r);
  for (auto& [key, v] : c.confirmations) {
    std::stable_sort(v.begin(), v.end(),
                     [](const Result* a, const Result* b) { return a->attempt < b->attempt; });
  }
  const auto& cfg = c.d.config;
  if (cfg.is_object() && cfg.contains("confirm") && cfg["confirm"].is_number_integer())
    c.confirm_requested = std::max(0, cfg["confirm"].get<int>());
  if (cfg.is_object() && cfg.contains("local_register") &&
      cfg["local_register"].is_number_integer())
    c.local_register = cfg["local_register"].get<int>();
}

}  // namespace

void index_document(Ctx& c) {
  index_topology(c);
  read_request(c);
  index_confirmations(c);
  c.known = &builtin_known_good_table();
  const auto it = c.d.environment.find("NCCL_NVLS_ENABLE");
  if (it != c.d.environment.end()) c.nvls = it->second != "0";
  c.versions = run_versions(c.d);
  if (c.d.burn_in) {
    for (const auto& s : c.d.burn_in->series) {
      c.burn_in_series.emplace(std::make_tuple(s.method, s.src, s.dst, s.bytes, s.datatype, s.op),
                               &s);
      c.burn_in_of_method[std::make_tuple(s.method, s.src, s.dst)].push_back(&s);
    }
  }
}

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

// A GPU's UUID is unique across hosts, so two ranks that report one UUID drive one GPU whatever
// their host names say (PEERBENCH_HOST_ID can give one machine's ranks two names); without
// UUIDs, the PCI id or index on one host.
bool same_card(const RankInfo& a, const RankInfo& b) {
  if (!a.gpu.uuid.empty() && a.gpu.uuid == b.gpu.uuid) return true;
  return a.host == b.host && same_gpu(a.gpu, b.gpu);
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
  if (ra && rb && same_card(*ra, *rb)) {
    l.cls.kind = LinkKind::kSameGpu;
    l.cls.label = "X";
  } else if (ra && rb && ra->host != rb->host) {
    l.cls = cross_host_link();
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
std::string where_text(const Ctx& c, const PairVerdict& v, const std::string& method) {
  if (v.src < 0) return " over all ranks";
  if (v.src == v.dst) return " between the host and " + who(c, v.src);
  // A bidirectional figure is both ways' sum: "from rank 0 to rank 1" beside 627.6 GB/s read as
  // one direction, past NV18's raw rate (an audit).
  const MethodInfo* m = method.empty() ? nullptr : c.method(method);
  if (m && m->bidirectional)
    return " both ways together between " + who(c, v.src) + " and " + who(c, v.dst);
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

bool judged_in_time(const Ctx& c, const MethodInfo& m, const Result& r) {
  return figure_is_time(&m, r.bytes, c.e.small_message_max_bytes);
}

// The link that bounds a collective over all ranks: the network across hosts, else the slowest
// local link; the same GPU when every rank shares one.
Link all_ranks_link(const Ctx& c) {
  Link slowest;
  slowest.cls.label = "all";
  const auto& ranks = c.d.system.ranks;
  // One rank, or every rank on one GPU (under any host names): the collective crosses no link.
  if (!ranks.empty() && std::all_of(ranks.begin() + 1, ranks.end(), [&](const RankInfo& r) {
        return same_card(r, ranks.front());
      })) {
    slowest.cls.kind = LinkKind::kSameGpu;
    return slowest;
  }
  if (c.d.system.hosts.size() > 1) {
    slowest.cls = cross_host_link();
    slowest.kind = "net";
    return slowest;
  }
  // The pairs measured or described; where none are (an imported collective's log without
  // NCCL's INFO lines), every pair of ranks, so that a topology still gives the link.
  std::set<std::pair<int, int>> pairs = c.idx.pairs();
  if (pairs.empty()) {
    for (const auto& a : ranks) {
      for (const auto& b : ranks) {
        if (a.rank != b.rank) pairs.insert({a.rank, b.rank});
      }
    }
  }
  bool all_same_gpu = !pairs.empty();
  for (const auto& [s, t] : pairs) {
    const Link l = link_of(c, s, t);
    if (l.cls.kind != LinkKind::kSameGpu) all_same_gpu = false;
    if (l.expected && (!slowest.expected || l.expected->raw_gbps < slowest.expected->raw_gbps)) {
      slowest = l;
    }
  }
  if (all_same_gpu) slowest.cls.kind = LinkKind::kSameGpu;
  return slowest;
}

}  // namespace peerbench::verdict_detail
