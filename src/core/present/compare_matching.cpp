// Matching two runs' cases: each result under its case (method, type/op, GPU pair, size), a case
// both runs measured becomes a row (compare_rows.cpp), one measured in one run alone is listed,
// as lost in B where B asked for it.
#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "core/model/pair_filter.h"
#include "core/model/sizes.h"
#include "core/present/compare_matching.h"
#include "core/present/compare_rows.h"
#include "core/present/report.h"

namespace peerbench::compare_detail {
namespace {

// Position of each host in order of its first rank: matches hosts across runs by role.
std::map<std::string, int> host_positions(const RunDocument& d) {
  std::map<std::string, int> pos;
  std::vector<RankInfo> ranks = d.system.ranks;
  std::sort(ranks.begin(), ranks.end(),
            [](const RankInfo& x, const RankInfo& y) { return x.rank < y.rank; });
  for (const auto& r : ranks) {
    if (!pos.count(r.host)) {
      const int n = static_cast<int>(pos.size());
      pos[r.host] = n;
    }
  }
  return pos;
}

// A GPU as compare matches it: the host's position (hosts in order of their first rank, so two
// nodes' runs line up) and its PCI bus id, or its UUID alone, or its CUDA index.
std::string gpu_identity(const RankInfo* r, int rank, const std::string& match,
                         const std::map<std::string, int>& hosts) {
  if (rank < 0) return "all";
  if (!r) return "rank" + std::to_string(rank);
  if (match == "uuid" && !r->gpu.uuid.empty()) return r->gpu.uuid;
  const auto it = hosts.find(r->host);
  const std::string h = "host" + std::to_string(it == hosts.end() ? -1 : it->second);
  if (match == "pci" && !r->gpu.pci_bus_id.empty()) return h + ":" + r->gpu.pci_bus_id;
  return h + ":gpu" + std::to_string(r->gpu.index);
}

// A collective's type/op. Schema 1 recorded none: its all-reduce was float/sum, as every later
// default is, so the same case in an older and a newer file is matched (it was listed as only in
// A and only in B at every size).
std::string variant_of(const RunDocument& d, const Result& r) {
  if (d.schema_version != 1 || !r.datatype.empty() || r.src >= 0) return variant_label(r);
  const MethodInfo* m = find_method(d.methods, r.method);
  return m && m->collective == Collective::kAllReduce ? "float/sum" : variant_label(r);
}

// Every result under its key, in file order: several ranks on one GPU share a key, and each is
// matched with the same-numbered one of the other run, never dropped.
std::map<CaseKey, std::vector<const Result*>> index_results(const RunDocument& d,
                                                            const std::string& match) {
  const auto hosts = host_positions(d);
  std::map<int, const RankInfo*> ranks;
  for (const auto& r : d.system.ranks) ranks.emplace(r.rank, &r);
  auto rank = [&](int r) {
    const auto it = ranks.find(r);
    return it == ranks.end() ? nullptr : it->second;
  };
  std::map<CaseKey, std::vector<const Result*>> out;
  for (const auto& r : d.results) {
    std::string src = gpu_identity(rank(r.src), r.src, match, hosts);
    std::string dst = gpu_identity(rank(r.dst), r.dst, match, hosts);
    // A bidirectional result is one per unordered pair: ranks that swapped GPUs between the runs
    // (another binding, CUDA_VISIBLE_DEVICES order) measured the same case (an audit saw it lost).
    const MethodInfo* m = find_method(d.methods, r.method);
    if (m && m->bidirectional && r.src != r.dst && dst < src) std::swap(src, dst);
    const bool both_ways = m && m->bidirectional;
    out[{r.method, src, dst, r.bytes, variant_of(d, r), both_ways}].push_back(&r);
  }
  return out;
}

bool measured(const Result* r) {
  return r && r->status == ResultStatus::kOk && r->time_us && r->algbw_gbps;
}

// One run's figure for a case, chosen as compare_row chooses (time at latency sizes, busbw for
// NCCL, algbw otherwise).
void figure_of(const MethodInfo* m, const Result& r, UnmatchedCase& u, std::optional<Stats>& out) {
  if (figure_is_time(m, r.bytes) && r.time_us) {
    u.metric = "time_us";
    u.lower_is_better = true;
    out = *r.time_us;
  } else if (m && m->uses_nccl && r.busbw_gbps) {
    u.metric = "busbw_gbps";
    out = *r.busbw_gbps;
  } else if (r.algbw_gbps) {
    u.metric = "algbw_gbps";
    out = *r.algbw_gbps;
  }
}

UnmatchedCase unmatched(const CaseKey& k, const Result* a, const Result* b, const RunDocument& da,
                        const RunDocument& db) {
  auto status = [](const Result* r) { return r ? to_string(r->status) : std::string("absent"); };
  const Result* r = a ? a : b;
  UnmatchedCase u;
  u.method = k.method;
  u.variant = k.variant;
  u.pair = r ? pair_name(r->src, r->dst) : "";
  u.gpu_pair = gpu_pair_text(k, r);
  u.bytes = k.bytes;
  u.a_status = status(a);
  u.b_status = status(b);
  u.label = k.method + (k.variant.empty() ? "" : " " + k.variant) + " " + u.gpu_pair + " " +
            format_size_label(k.bytes) + " (A: " + u.a_status + ", B: " + u.b_status + ")";
  if (measured(a)) figure_of(find_method(da.methods, k.method), *a, u, u.a_figure);
  if (measured(b)) figure_of(find_method(db.methods, k.method), *b, u, u.b_figure);
  return u;
}

// Whether B's configuration asked for a case A measured: its method, its size (sweep methods),
// its pair (--pairs, in A's rank numbers: the runs are of one node shape) and its type and
// reduction. A file that does not say answers no. A complete B lacking a case it asked for read
// "B did not ask for it" (an audit).
bool b_asked_for(const RunDocument& b, const Result& r) {
  const auto& c = b.config;
  const auto lists = [&](const char* key, const nlohmann::json& value) {
    const auto it = c.find(key);
    return it != c.end() && it->is_array() && std::find(it->begin(), it->end(), value) != it->end();
  };
  if (!c.is_object() || !lists("methods", r.method)) return false;
  const MethodInfo* m = find_method(b.methods, r.method);
  if (!m || (!m->fixed_size && !lists("sizes", r.bytes))) return false;
  if (!r.datatype.empty() && !lists("datatypes", r.datatype)) return false;
  if (!r.op.empty() && !lists("ops", r.op)) return false;
  const auto pairs = c.find("pairs");
  if (r.src < 0 || r.src == r.dst || pairs == c.end() || !pairs->is_string()) return true;
  try {
    const PairFilter f = parse_pair_filter(pairs->get<std::string>());
    const bool same_host = host_of(b, r.src) == host_of(b, r.dst);
    switch (f.kind) {
      case PairFilter::Kind::kAll:
        return true;
      case PairFilter::Kind::kIntraHost:
        return same_host;
      case PairFilter::Kind::kInterHost:
        return !same_host;
      case PairFilter::Kind::kExplicit:
        return std::find(f.pairs.begin(), f.pairs.end(), std::make_pair(r.src, r.dst)) !=
               f.pairs.end();
    }
  } catch (const std::exception&) {
  }
  return false;
}

}  // namespace

// "host0:X->host0:Y" for a pair of GPUs, "host0:X<->host" for one GPU and its host, "all ranks"
// for a collective over all of them. Decided by the result's ranks, not the key: two ranks
// sharing one GPU have one card at both ends.
std::string gpu_pair_text(const CaseKey& k, const Result* r) {
  if (r && r->src < 0 && r->dst < 0) return "all ranks";
  if (r && r->src == r->dst) return k.src + "<->host";
  return k.src + (k.bidirectional ? "<->" : "->") + k.dst;
}

// Every method, pair and size of either run: compared where both measured it, else listed.
void match_results(const RunDocument& a, const RunDocument& b, const CompareOptions& o,
                   Comparison& c) {
  const auto ia = index_results(a, o.match);
  const auto ib = index_results(b, o.match);
  const bool b_cut_short = b.status != "complete";
  std::set<CaseKey> keys;
  for (const auto& [k, v] : ia) keys.insert(k);
  for (const auto& [k, v] : ib) keys.insert(k);
  static const std::vector<const Result*> kNone;
  for (const auto& key : keys) {
    const auto ita = ia.find(key);
    const auto itb = ib.find(key);
    const auto& va = ita == ia.end() ? kNone : ita->second;
    const auto& vb = itb == ib.end() ? kNone : itb->second;
    for (std::size_t i = 0; i < std::max(va.size(), vb.size()); ++i) {
      const Result* ra = i < va.size() ? va[i] : nullptr;
      const Result* rb = i < vb.size() ? vb[i] : nullptr;
      if (measured(ra) && measured(rb)) {
        c.rows.push_back(compare_row(key, *ra, *rb, a, b, o, c));
      } else if (measured(ra)) {
        // Absent from a B that stopped early (killed, out of memory: no not-run records) is lost
        // too; it read "B did not ask for it" (a review).
        const bool lost = rb || b_cut_short || b_asked_for(b, *ra);
        (lost ? c.lost_in_b : c.only_in_a).push_back(unmatched(key, ra, rb, a, b));
      } else if (measured(rb)) {
        c.only_in_b.push_back(unmatched(key, ra, rb, a, b));
      } else {
        c.in_neither.push_back(unmatched(key, ra, rb, a, b));
      }
    }
  }
}

}  // namespace peerbench::compare_detail
