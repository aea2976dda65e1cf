#include "core/present/compare.h"
#include "core/base/text.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "core/base/errors.h"
#include "core/judge/verdict.h"
#include "core/model/flag_table.h"
#include "core/model/json_text.h"
#include "core/model/pair_filter.h"
#include "core/model/result_index.h"
#include "core/model/sizes.h"
#include "core/present/report.h"
#include "core/present/report_parts.h"

namespace peerbench {
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

struct Key {
  std::string method, src, dst;
  std::uint64_t bytes;
  std::string variant;         // collectives' type/op ("" for other methods)
  bool bidirectional = false;  // src and dst in order of their names (follows from the method)
  bool operator<(const Key& o) const {
    return std::tie(method, variant, src, dst, bytes) <
           std::tie(o.method, o.variant, o.src, o.dst, o.bytes);
  }
};

// Every result under its key, in file order: several ranks on one GPU share a key, and each is
// matched with the same-numbered one of the other run, never dropped.
// A collective's type/op. Schema 1 recorded none: its all-reduce was float/sum, as every later
// default is, so the same case in an older and a newer file is matched (it was listed as only in
// A and only in B at every size).
std::string variant_of(const RunDocument& d, const Result& r) {
  if (d.schema_version != 1 || !r.datatype.empty() || r.src >= 0) return variant_label(r);
  const MethodInfo* m = find_method(d.methods, r.method);
  return m && m->collective == Collective::kAllReduce ? "float/sum" : variant_label(r);
}

std::map<Key, std::vector<const Result*>> index_results(const RunDocument& d,
                                                        const std::string& match) {
  const auto hosts = host_positions(d);
  std::map<int, const RankInfo*> ranks;
  for (const auto& r : d.system.ranks) ranks.emplace(r.rank, &r);
  auto rank = [&](int r) {
    const auto it = ranks.find(r);
    return it == ranks.end() ? nullptr : it->second;
  };
  std::map<Key, std::vector<const Result*>> out;
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

// "host0:X->host0:Y" for a pair of GPUs, "host0:X<->host" for one GPU and its host, "all ranks"
// for a collective over all of them. Decided by the result's ranks, not the key: two ranks
// sharing one GPU have one card at both ends.
std::string gpu_pair_text(const Key& k, const Result* r) {
  if (r && r->src < 0 && r->dst < 0) return "all ranks";
  if (r && r->src == r->dst) return k.src + "<->host";
  return k.src + (k.bidirectional ? "<->" : "->") + k.dst;
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

UnmatchedCase unmatched(const Key& k, const Result* a, const Result* b, const RunDocument& da,
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

CompareRow compare_row(const Key& key, const Result& ra_, const Result& rb_, const RunDocument& a,
                       const RunDocument& b, const CompareOptions& o, Comparison& c);

void diff(std::vector<std::string>& out, const std::string& what, const std::string& a,
          const std::string& b) {
  if (a != b)
    out.push_back(what + ": " + (a.empty() ? "(none)" : a) + " -> " + (b.empty() ? "(none)" : b));
}

std::string gpu_names(const RunDocument& d) {
  std::map<std::string, int> n;
  for (const auto& r : d.system.ranks) n[r.gpu.name]++;
  std::string s;
  for (const auto& [k, v] : n) s += (s.empty() ? "" : ", ") + std::to_string(v) + "x " + k;
  return s;
}

// Each rank's GPU by host and PCI bus id, "0:vm/0000:00:06.0 1:vm/0000:00:07.0"; "" when a rank
// has no PCI id.
std::string gpu_of_rank(const RunDocument& d) {
  std::vector<RankInfo> ranks = d.system.ranks;
  std::sort(ranks.begin(), ranks.end(),
            [](const RankInfo& x, const RankInfo& y) { return x.rank < y.rank; });
  std::string s;
  for (const auto& r : ranks) {
    if (r.gpu.pci_bus_id.empty()) return "";
    s += (s.empty() ? "" : " ") + std::to_string(r.rank) + ":" + r.host + "/" + r.gpu.pci_bus_id;
  }
  return s;
}

// The UUIDs of a run's GPUs ("" for a rank that recorded none).
std::set<std::string> card_uuids(const RunDocument& d) {
  std::set<std::string> u;
  for (const auto& r : d.system.ranks) u.insert(r.gpu.uuid);
  return u;
}

// How many of B's GPUs are cards A did not have (by UUID): the same slots with other cards
// explain figures that moved with no version changed (an audit saw "nothing recorded").
void cards_differ(const RunDocument& a, const RunDocument& b, Comparison& c) {
  const auto in_a = card_uuids(a), in_b = card_uuids(b);
  int other = 0;
  for (const auto& u : in_b) other += in_a.count(u) ? 0 : 1;
  // A file without UUIDs cannot tell cards apart; the mapping below is still compared (review).
  if (other && !in_a.count("") && !in_b.count("")) {
    // Run-neutral words: a history says "run 3: GPU cards: ..." (B and A read wrong there).
    c.differences.push_back("GPU cards: " + std::to_string(other) + " of " +
                            std::to_string(in_b.size()) + " are other cards (UUIDs differ)");
  }
  const std::string ma = gpu_of_rank(a), mb = gpu_of_rank(b);
  if (!ma.empty() && !mb.empty()) diff(c.differences, "GPU of each rank (host/PCI)", ma, mb);
}

// NCCL's transport per pair of ranks ("0->1 P2P/CUMEM"), in words: a change of it explains NCCL
// figures that moved (an audit saw 16 regressions with no word of SHM in What differs).
void transports_differ(const RunDocument& a, const RunDocument& b, Comparison& c) {
  const ResultIndex ia(a), ib(b);
  std::set<std::pair<int, int>> pairs;
  for (const auto& p : a.pairs) pairs.insert({p.src, p.dst});
  for (const auto& p : b.pairs) pairs.insert({p.src, p.dst});
  for (const auto& [s, t] : pairs) {
    const std::string ta = report_parts::transport_of(ia, s, t);
    const std::string tb = report_parts::transport_of(ib, s, t);
    if (!ta.empty() || !tb.empty())
      diff(c.differences, "NCCL transport " + pair_name(s, t), ta, tb);
  }
}

}  // namespace

namespace {

// The options that change what a figure is, or which cases a run holds.
void config_differs(const RunDocument& a, const RunDocument& b, Comparison& c) {
  // The options that change what a figure is (whose time -a takes, NCCL's buffers under -R,
  // blocking -z, events of -I and -C); paths, timeouts and bars do not.
  // Sizes, methods and pairs too: they explain the rows listed only in A or only in B.
  for (const char* k : {"minbytes",
                        "maxbytes",
                        "stepfactor",
                        "stepbytes",
                        "methods_spec",
                        "pairs",
                        "warmup_iters",
                        "iters",
                        "samples",
                        "cudagraph_replays",
                        "schedule",
                        "check",
                        "allreduce_inplace",
                        "datatypes",
                        "ops",
                        "root",
                        "staged_chunk",
                        "staged_slots",
                        "latency_bytes",
                        "latency_iters",
                        "average",
                        "local_register",
                        "blocking",
                        "report_cputime",
                        "per_iteration"}) {
    // A key one file lacks is one its version did not record: a change of format, not of run.
    const bool both = a.config.is_object() && a.config.contains(k) && b.config.is_object() &&
                      b.config.contains(k);
    if (both)
      diff(c.differences, std::string("config ") + k, json_text(a.config[k]),
           json_text(b.config[k]));
  }
}

void environment_differs(const RunDocument& a, const RunDocument& b, Comparison& c) {
  std::set<std::string> env_keys;
  for (const auto& [k, v] : a.environment) env_keys.insert(k);
  for (const auto& [k, v] : b.environment) env_keys.insert(k);
  for (const auto& k : env_keys) {
    const auto ia = a.environment.find(k);
    const auto ib = b.environment.find(k);
    diff(c.differences, "env " + k, ia == a.environment.end() ? "" : ia->second,
         ib == b.environment.end() ? "" : ib->second);
  }
}

std::string burn_in_text(const RunDocument& d) {
  if (!d.burn_in) return "";
  const BurnIn& b = *d.burn_in;
  return std::to_string(b.cycles_done) + (b.cycles_done == 1 ? " whole cycle" : " whole cycles") +
         ", stopped by " + (b.stopped_by.empty() ? std::string("nothing recorded") : b.stopped_by);
}

// What differs between the runs besides the figures: versions, GPUs, hosts, config, environment.
void what_differs(const RunDocument& a, const RunDocument& b, Comparison& c) {
  diff(c.differences, "driver", a.system.driver_version, b.system.driver_version);
  diff(c.differences, "CUDA driver API", std::to_string(a.system.cuda_driver_version),
       std::to_string(b.system.cuda_driver_version));
  diff(c.differences, "CUDA runtime", std::to_string(a.system.cuda_runtime_version),
       std::to_string(b.system.cuda_runtime_version));
  diff(c.differences, "NCCL", a.system.nccl_version, b.system.nccl_version);
  // Some MPI libraries end the string with a NUL, which made "...2023\x00 -> ...2023" a difference.
  const auto mpi = [](std::string v) {
    while (!v.empty() && (v.back() == '\0' || v.back() == '\n' || v.back() == ' ')) v.pop_back();
    return v;
  };
  diff(c.differences, "MPI", mpi(a.system.mpi_library_version), mpi(b.system.mpi_library_version));
  diff(c.differences, "GPUs", gpu_names(a), gpu_names(b));
  auto hosts = [](const RunDocument& d) {
    std::string s;
    for (const auto& h : d.system.hosts) s += (s.empty() ? "" : ",") + h;
    return s;
  };
  diff(c.differences, "hosts", hosts(a), hosts(b));
  if (hosts(a) != hosts(b)) {
    c.hosts_a = hosts(a);
    c.hosts_b = hosts(b);
    c.other_hosts = "A: " + hosts(a) + "; B: " + hosts(b);
  }
  diff(c.differences, "peerbench", a.tool.version + " " + a.tool.git_revision,
       b.tool.version + " " + b.tool.git_revision);
  // A run that failed or was cut short, and its errors: what explains the cases it lost.
  diff(c.differences, "run status", a.status, b.status);
  const auto errors = [](const RunDocument& d) {
    return d.errors.empty() ? std::string()
                            : std::to_string(d.errors.size()) + " (" + d.errors.front() +
                                  (d.errors.size() > 1 ? ", ..." : "") + ")";
  };
  diff(c.differences, "run errors", errors(a), errors(b));
  diff(c.differences, "burn-in", burn_in_text(a), burn_in_text(b));
  // Read with defaults where a file predates a key, so an older run's -R 0 still shows.
  const auto mode = [](const RunDocument& d) {
    const std::string m = measurement_mode(d);
    return m.empty() ? std::string("defaults (-R 0 -a 3 -z 0)") : m;
  };
  diff(c.differences, "settings that change the figures", mode(a), mode(b));
  cards_differ(a, b, c);
  transports_differ(a, b, c);
  config_differs(a, b, c);
  environment_differs(a, b, c);
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

// Every method, pair and size of either run: compared where both measured it, else listed.
void match_results(const RunDocument& a, const RunDocument& b, const CompareOptions& o,
                   Comparison& c) {
  const auto ia = index_results(a, o.match);
  const auto ib = index_results(b, o.match);
  const bool b_cut_short = b.status != "complete";
  std::set<Key> keys;
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

}  // namespace

namespace {

// B's burn-in findings in words: its burn-in flags, the later cycles under a bar, a cut short.
std::vector<std::string> burn_in_findings_of(const RunDocument& b,
                                             const std::vector<PairVerdict>& vs) {
  std::vector<std::string> out;
  if (!b.burn_in) return out;
  if (const std::string s = burn_in_cut_short(b); !s.empty()) out.push_back(s);
  std::set<std::string> seen;  // a GPU's own flag stands on each of its pairs
  for (const auto& v : vs) {
    for (const auto& f : v.flags) {
      const FlagInfo* info = find_flag(f.code);
      const bool burn_in = (info && info->family == FlagFamily::kBurnIn) ||
                           (f.evidence.is_object() && (f.evidence.contains("burn_in") ||
                                                       f.evidence.contains("burn_in_cycles")));
      if (burn_in && seen.insert(f.code + ": " + f.message).second)
        out.push_back(f.code + ": " + f.message);
    }
  }
  return out;
}

// Refuses runs that cannot be compared case by case: another node shape, or (under --match
// uuid) no card in common.
void check_alike(const RunDocument& a, const std::string& a_name, const RunDocument& b,
                 const std::string& b_name, const CompareOptions& o) {
  // GPUs, not ranks: two ranks on one GPU against two GPUs is another node shape.
  const auto gpus = [](const RunDocument& d) {
    std::set<std::string> cards;
    for (const auto& r : d.system.ranks)
      cards.insert(!r.gpu.uuid.empty()         ? r.gpu.uuid
                   : !r.gpu.pci_bus_id.empty() ? r.host + "/" + r.gpu.pci_bus_id
                                               : r.host + "/#" + std::to_string(r.gpu.index));
    return cards.size();
  };
  if (gpus(a) != gpus(b)) {
    throw InputError(b_name, "system.ranks",
                     "runs are unlike: " + a_name + " drives " + std::to_string(gpus(a)) +
                         " GPUs, " + b_name + " drives " + std::to_string(gpus(b)) +
                         " (ranks that share a GPU count once); compare runs of the same node "
                         "shape");
  }
  if (a.system.ranks.size() != b.system.ranks.size()) {
    throw InputError(b_name, "system.ranks",
                     "runs are unlike: " + a_name + " has " +
                         std::to_string(a.system.ranks.size()) + " GPUs, " + b_name + " has " +
                         std::to_string(b.system.ranks.size()) +
                         "; compare runs of the same node shape");
  }
  // --match uuid pairs cards, not slots: two nodes' runs share none, and every case read "lost
  // in B" (exit 1) though B measured it all (a hostile audit).
  if (o.match == "uuid") {
    const auto in_a = card_uuids(a), in_b = card_uuids(b);
    // A GPU without a UUID falls back to its position; against a run whose GPUs all have one,
    // nothing matches, and every case read "lost" (an audit).
    if (in_a.count("") != in_b.count("")) {
      const std::string& without = in_a.count("") ? a_name : b_name;
      throw InputError(without, "system.ranks",
                       "--match uuid: " + without +
                           " recorded no UUID for some GPUs, the other run for all; compare "
                           "them by position with --match pci or index");
    }
    const bool any = std::any_of(b.system.ranks.begin(), b.system.ranks.end(),
                                 [&](const RankInfo& r) { return in_a.count(r.gpu.uuid) > 0; });
    if (!any && !in_a.count("")) {
      throw InputError(b_name, "system.ranks",
                       "--match uuid: no GPU of " + a_name + " is in " + b_name +
                           " (their UUIDs differ): other cards; compare them by position "
                           "with --match pci or index");
    }
  }
}

}  // namespace

Comparison compare_runs(const RunDocument& a, const std::string& a_name, const RunDocument& b,
                        const std::string& b_name, const CompareOptions& o) {
  check_alike(a, a_name, b, b_name, o);
  Comparison c;
  c.versions_a = run_versions(a);
  c.versions_b = run_versions(b);
  c.run_hosts_a = join(a.system.hosts, " ");
  c.run_hosts_b = join(b.system.hosts, " ");
  what_differs(a, b, c);
  // Matched by card, not by position, where every GPU has a UUID; one without falls back to its
  // position, and the headline says so still (an audit: UUID-less files, no word).
  if (o.match == "uuid" && !card_uuids(a).count("") && !card_uuids(b).count(""))
    c.other_hosts.clear();
  c.verdicts_a = compute_verdicts(a, {});
  c.verdicts_b = compute_verdicts(b, {});
  c.burn_in_in_b = burn_in_findings_of(b, c.verdicts_b);
  match_results(a, b, o, c);
  if (c.rows.empty()) {
    throw InputError(b_name, "results",
                     "runs are unlike: no method, GPU pair and size measured in both " + a_name +
                         " and " + b_name);
  }
  return c;
}

namespace {

// The spread a row's figure must leave to count as changed: the interquartile range of the
// samples where the run recorded four or more (sample_time_us), else min-max. With min-max one
// slow sample of five hid a 20 % drop in every other sample (audit).
std::pair<double, double> spread_of(const Stats& s, const Result& r, bool time) {
  std::vector<double> t = r.sample_time_us;
  if (t.size() < 4 || s.median <= 0) return {s.min, s.max};
  std::sort(t.begin(), t.end());
  const double q1 = t[t.size() / 4], q3 = t[t.size() - 1 - t.size() / 4];
  if (time) return {q1, q3};
  // A bandwidth is bytes over time: the figures at the quartile times, scaled from the median.
  const double mid = t[t.size() / 2];
  if (q1 <= 0 || q3 <= 0 || mid <= 0) return {s.min, s.max};
  return {s.median * mid / q3, s.median * mid / q1};
}

// The figure `report` shows: the time for latency methods and at latency sizes (8 B is 0.00
// GB/s in both runs however much slower one is), busbw for NCCL methods (where both runs
// recorded it), algbw otherwise.
void choose_figure(CompareRow& row, const MethodInfo* m, const Result& ra, const Result& rb) {
  row.lower_is_better = figure_is_time(m, row.bytes) && ra.time_us && rb.time_us;
  if (row.lower_is_better) {
    row.metric = "time_us";
    row.a = *ra.time_us;
    row.b = *rb.time_us;
  } else if (m && m->uses_nccl && ra.busbw_gbps && rb.busbw_gbps) {
    row.metric = "busbw_gbps";
    row.a = *ra.busbw_gbps;
    row.b = *rb.busbw_gbps;
  } else {
    row.metric = "algbw_gbps";
    row.a = *ra.algbw_gbps;
    row.b = *rb.algbw_gbps;
  }
}

// What a row's figures say, counted in `c`: a change only beyond the threshold and outside both
// runs' spreads, and none where B's data was wrong, the settings differ or a run was disturbed.
std::string change_of(const CompareRow& row, const Result& ra, const Result& rb, bool wrong,
                      bool other_settings, const CompareOptions& o, Comparison& c) {
  if (wrong) {
    // Wrong data in B outweighs any figure: a case that delivered garbage at the old speed read
    // "same" (an audit).
    ++c.data_errors;
    return "data-errors";
  }
  if (other_settings) {
    // -R 2's symmetric kernels, another rank's time (-a), blocking (-z) or graphs (-G): another
    // figure, not a change of the same one (an audit saw -R 2 called a 26 % regression).
    ++c.other_settings;
    return "other-settings";
  }
  if (contended(ra) || contended(rb) || throttled(ra) || throttled(rb)) {
    // Another job on a GPU or held clocks in either run: no regression is called on that figure.
    ++c.untrusted;
    return contended(ra) || contended(rb) ? "contended" : "throttled";
  }
  const bool beyond = std::abs(row.ratio - 1.0) > o.threshold;
  if (!beyond) return "same";
  const auto [a_lo, a_hi] = spread_of(row.a, ra, row.lower_is_better);
  const auto [b_lo, b_hi] = spread_of(row.b, rb, row.lower_is_better);
  if (!(b_hi < a_lo || b_lo > a_hi)) {
    if (ra.sample_time_us.size() < 4 || rb.sample_time_us.size() < 4) ++c.min_max_inconclusive;
    return "within-noise";
  }
  const bool worse =
      row.lower_is_better ? row.b.median > row.a.median : row.b.median < row.a.median;
  if (worse) {
    ++c.regressions;
    return "regression";
  }
  ++c.improvements;
  return "improvement";
}

CompareRow compare_row(const Key& key, const Result& ra_, const Result& rb_, const RunDocument& a,
                       const RunDocument& b, const CompareOptions& o, Comparison& c) {
  // The measurement that settled each case's verdict (built-in bars): a confirmation repeat
  // where one did, else the plan's.
  const Result* ra = settled_result(a, ra_, settled_attempt(c.verdicts_a, ra_));
  const Result* rb = settled_result(b, rb_, settled_attempt(c.verdicts_b, rb_));
  const auto* m = find_method(a.methods, key.method);
  CompareRow row;
  row.method = key.variant.empty() ? key.method : key.method + " " + key.variant;
  row.pair = pair_name(ra->src, ra->dst);
  row.gpu_pair = gpu_pair_text(key, ra);
  row.bytes = key.bytes;
  row.latency_method = m && m->metric == Metric::kLatency;
  choose_figure(row, m, *ra, *rb);
  row.ratio = row.a.median > 0 ? row.b.median / row.a.median : 0;
  const bool wrong = rb_.wrong || rb->wrong;
  const bool other_settings = measurement_mode(a, m) != measurement_mode(b, m);
  row.change = change_of(row, *ra, *rb, wrong, other_settings, o, c);
  return row;
}

}  // namespace

bool waived_by_fail_on(const Comparison& c, const CompareOptions& o) {
  CompareOptions by_default = o;
  by_default.fail_on = CompareOptions{}.fail_on;
  return comparison_exit_code(c, o) == kExitOk && comparison_exit_code(c, by_default) != kExitOk;
}

int comparison_exit_code(const Comparison& c, const CompareOptions& o) {
  if (o.fail_on == "none") return kExitOk;
  const std::size_t lost =
      c.lost_in_b.size() + static_cast<std::size_t>(c.data_errors) + c.burn_in_in_b.size();
  if (o.fail_on == "any") return (c.regressions + c.improvements + lost) ? kExitFlagged : kExitOk;
  return (c.regressions + lost) ? kExitFlagged : kExitOk;
}

}  // namespace peerbench
