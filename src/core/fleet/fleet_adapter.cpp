#include "core/fleet/fleet_adapter.h"
#include "core/import/import.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/base/text.h"
#include "core/judge/diagnosis.h"
#include "core/judge/expectations_keys.h"
#include "core/judge/verdict_context.h"
#include "core/model/json_in.h"
#include "core/model/json_text.h"
#include "core/model/result_index.h"
#include "core/model/schema.h"

namespace peerbench {
namespace {

// The run's per-pair verdict words, as the fleet counts them.
// Not-judged (no bar applies: sizes below the judged minimum, an unknown link) does not fail a
// node: its place in the fleet still judges it.
std::string fleet_state(const PairVerdict& v) {
  if (v.verdict == "pass" || v.verdict == "flagged") return v.verdict;
  if (v.verdict == "not-measured" || v.verdict == "incomplete") return "incomplete";
  // Another job on a GPU, held clocks, spread samples: not a pass, and never the link's fault.
  if (v.verdict == "contended" || v.verdict == "throttled" || v.verdict == "noisy")
    return v.verdict;
  return "not-counted";  // not-applicable, not-a-link (one GPU shared by two ranks), not-judged
}

// The methods' reasons behind a state that is not a pass ("sm-read: 174.8 GB/s ... ran beside").
std::vector<std::pair<std::string, std::string>> state_reasons(const PairVerdict& v) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& m : v.methods) {
    if (m.state == v.verdict && !m.reason.empty()) out.emplace_back(m.method, m.reason);
  }
  return out;
}

std::string pci_of(const RunDocument& d, int rank) {
  const auto* r = rank_info(d, rank);
  return r ? r->gpu.pci_bus_id : "rank" + std::to_string(rank);
}

std::string model_of(const RunDocument& d, const PairVerdict& v) {
  std::set<std::string> names;
  for (const auto& r : d.system.ranks) {
    if (v.src < 0 || r.rank == v.src || r.rank == v.dst) names.insert(r.gpu.name);
  }
  if (names.size() == 1) return *names.begin();
  return names.empty() ? "?" : "mixed GPUs";
}

// The pair's ok measurements, looked up in the run's index (a scan of every result per verdict
// made large runs quadratic); for collectives, the variant the verdict judged. Those kept out of
// the fleet go to `left_out`, by method and size.
std::vector<Measurement> measurements_of(
    const RunDocument& d, const ResultIndex& idx, const std::vector<PairVerdict>& vs, int src,
    int dst, std::set<std::pair<std::string, std::uint64_t>>& left_out) {
  std::vector<Measurement> out;
  for (const auto& name : idx.methods_of(src, dst)) {
    const auto* m = find_method(d.methods, name);
    for (const Result* plan : idx.of(name, src, dst)) {
      // The measurement that settled the case's verdict (a confirmation repeat, where one did).
      // A figure measured beside another job or under held clocks says nothing of the link: it
      // is kept out of the fleet's medians and never an outlier.
      const Result* r = settled_result(d, *plan, settled_attempt(vs, *plan));
      if (!placeable(d, *r)) {
        left_out.emplace(r->method, r->bytes);
        continue;
      }
      const double ops = r->warmup_iters + static_cast<double>(r->iters) * r->samples;
      // Latency methods, and bandwidth methods at latency sizes, by their time per operation:
      // what the verdict judges there (8 B is 0.0 GB/s), so a site baseline can hold it.
      const double time_us = r->time_us ? r->time_us->median : 0;
      out.push_back({r->method, r->bytes, figure_value(m, *r), figure_is_time(m, r->bytes),
                     m && m->family == "staged", m && m->bidirectional, time_us * ops * 1e-6});
    }
  }
  return out;
}

// The clock reasons seen on the pair's GPUs while the cases its verdict settled on ran.
std::set<std::string> throttle_reasons_of(const RunDocument& d, const ResultIndex& idx,
                                          const std::vector<PairVerdict>& vs, int src, int dst) {
  std::set<std::string> out;
  for (const auto& name : idx.methods_of(src, dst)) {
    for (const Result* plan : idx.of(name, src, dst)) {
      const Result* r = settled_result(d, *plan, settled_attempt(vs, *plan));
      if (!r->interference) continue;
      for (const auto& g : *r->interference)
        out.insert(g.throttle_reasons.begin(), g.throttle_reasons.end());
    }
  }
  return out;
}

FleetPair fleet_pair(const RunDocument& d, const ResultIndex& idx,
                     const std::vector<PairVerdict>& vs, const PairVerdict& v) {
  FleetPair p;
  if (v.src < 0) {
    p.src_pci = p.dst_pci = "all";
  } else {
    p.src_pci = pci_of(d, v.src);
    p.dst_pci = pci_of(d, v.dst);
    p.one_gpu = v.src == v.dst;
    if (host_of(d, v.src) != host_of(d, v.dst)) p.dst_pci = host_of(d, v.dst) + "/" + p.dst_pci;
  }
  p.gpu_model = model_of(d, v);
  p.link = baseline_group(d, v);
  p.link_label = v.link;
  p.ranks = static_cast<int>(d.system.ranks.size());
  p.state = fleet_state(v);
  if (p.unsettled()) {
    p.note_by_method = state_reasons(v);
    p.throttle_reasons = throttle_reasons_of(d, idx, vs, v.src, v.dst);
  }
  p.flags = v.flags;
  for (const auto& m : v.methods) {
    if (m.state == "not-judged") p.not_judged[m.method] = m.reason;
    if (m.bar && (m.state == "pass" || m.state == "flagged"))
      p.bars[m.method] = {m.bytes, *m.bar, m.bar_source, m.expected.value_or(0)};
    if (!m.expected_ratio || (m.state != "pass" && m.state != "flagged")) continue;
    if (p.known_good_ratio == 0 || *m.expected_ratio < p.known_good_ratio)
      p.known_good_ratio = *m.expected_ratio;
  }
  // Two ranks on one GPU: its figures are the GPU's own memory, no link's; they join no group.
  if (v.verdict != "not-a-link")
    p.measurements = measurements_of(d, idx, vs, v.src, v.dst, p.left_out);
  for (const auto& x : p.measurements)
    p.group_by_method.emplace(x.method, baseline_group(d, v, find_method(d.methods, x.method)));
  return p;
}

// Spelled as the verdicts spell them (run_versions), so a site baseline matches by version.
NodeVersions versions_of(const RunDocument& d, const std::string& host) {
  const RunVersions r = run_versions(d);
  NodeVersions v{r.driver, r.cuda, r.nccl};
  if (d.topology) {
    for (const auto& h : d.topology->hosts) {
      if (h.host == host && !h.driver_version.empty()) v.driver = h.driver_version;
    }
  }
  return v;
}

// Why a run does not count as a whole measurement, in words.
std::vector<std::string> run_problems(const RunDocument& d) {
  std::vector<std::string> out;
  // Status "incomplete" alone is no problem: a stop in the first pass records the cases not
  // run, and a job killed leaves in_progress set (run_cut_short). Files from before a fix wrote
  // "incomplete" over whole burn-ins that `report` passed, and `fleet` failed.
  if (d.status == "failed") out.push_back("run failed");
  if (const std::string s = run_cut_short(d); !s.empty()) out.push_back(s);
  int not_run = 0;
  for (const auto& r : d.results) not_run += r.status == ResultStatus::kNotRun;
  if (not_run) out.push_back(std::to_string(not_run) + " results not run");
  for (const auto& e : d.errors) out.push_back("run error: " + e);
  return out;
}

// The methods a run was asked for: its configuration's list, else those its results name.
std::set<std::string> methods_asked(const RunDocument& d) {
  std::set<std::string> out;
  const auto it = d.config.find("methods");
  if (it != d.config.end() && it->is_array()) {
    for (const auto& m : *it)
      if (m.is_string()) out.insert(m.get<std::string>());
  }
  if (out.empty()) {
    for (const auto& r : d.results) out.insert(r.method);
  }
  return out;
}

// What the run covered on `host`: methods, models, GPUs, and the ordered pairs of distinct GPUs
// of the host that a pair method has a result for (any status: not-applicable answers too).
void set_coverage(const RunDocument& d, const std::string& host, FleetNode& n) {
  n.methods_run = methods_asked(d);
  // Each rank's GPU as the first rank of the host on the same card (the verdicts' same_card).
  std::map<int, int> card_of_rank;
  std::vector<const RankInfo*> cards;
  for (const auto& r : d.system.ranks) {
    if (r.host != host) continue;
    n.gpu_models.insert(r.gpu.name);
    const auto same = std::find_if(cards.begin(), cards.end(), [&](const RankInfo* c) {
      return verdict_detail::same_card(*c, r);
    });
    card_of_rank[r.rank] = same == cards.end() ? r.rank : (*same)->rank;
    if (same == cards.end()) cards.push_back(&r);
  }
  n.gpus_run = static_cast<int>(cards.size());
  if (d.topology) {
    for (const auto& h : d.topology->hosts)
      if (h.host == host) n.gpus_listed = static_cast<int>(h.gpus.size());
  }
  // Per pair method, the pairs of distinct GPUs of the host it has a result for: ordered, or
  // unordered for a bidirectional method (one result moves both ways).
  std::map<std::string, std::set<std::pair<int, int>>> answered;
  for (const auto& r : d.results) {
    const MethodInfo* m = find_method(d.methods, r.method);
    if (!m || m->scope != MethodScope::kPair) continue;
    auto& pairs = answered[r.method];
    const auto a = card_of_rank.find(r.src), b = card_of_rank.find(r.dst);
    if (a == card_of_rank.end() || b == card_of_rank.end() || a->second == b->second) continue;
    const bool swap = m->bidirectional && b->second < a->second;  // one result moves both ways
    pairs.insert(swap ? std::make_pair(b->second, a->second)
                      : std::make_pair(a->second, b->second));
  }
  const int ordered = n.gpus_run * (n.gpus_run - 1);
  for (const auto& [method, pairs] : answered) {
    const int all = find_method(d.methods, method)->bidirectional ? ordered / 2 : ordered;
    if (static_cast<int>(pairs.size()) < all)
      n.pairs_short.push_back(method + " " + std::to_string(pairs.size()) + " of " +
                              std::to_string(all));
  }
  const auto spec = d.config.find("pairs");
  if (spec != d.config.end() && spec->is_string()) n.pairs_spec = spec->get<std::string>();
}

}  // namespace

FleetExpectations load_fleet_expectations(const std::string& path,
                                          const std::vector<MethodInfo>& catalog) {
  FleetExpectations e;
  if (path.empty()) return e;
  nlohmann::json j = load_json_file(path, InputKind::kExpect, 16);
  e.verdicts = expectations_from_json(j, path, catalog);
  if (auto t = fleet_outlier_tolerance(JsonIn(j, path))) e.outlier_tolerance = *t;
  e.source = path;
  return e;
}

std::vector<FleetNode> read_fleet_nodes(const std::string& file, const FleetExpectations& e) {
  const RunDocument d = load_run_or_import(file);  // peerbench's own, or another tool's output
  const auto verdicts = compute_verdicts(d, e.verdicts);
  const auto causes = diagnose(d, verdicts);
  const ResultIndex idx(d);
  std::vector<FleetNode> nodes;
  for (const auto& host : d.system.hosts) {
    FleetNode n;
    n.host = host;
    n.file = file;
    n.started_at = d.started_at;
    n.elapsed_s = d.timing.elapsed_s.value_or(0);
    n.versions = versions_of(d, host);
    for (const auto& r : d.system.ranks)
      if (host_of(d, r.rank) == host && !r.gpu.uuid.empty()) n.gpu_uuids.insert(r.gpu.uuid);
    n.problems = run_problems(d);
    if (!e.verdicts.baseline.empty()) n.baseline_judged = baseline_judged_any(verdicts);
    set_coverage(d, host, n);
    for (const auto& c : causes)
      if (c.host.empty() || c.host == host) n.causes.push_back(c);
    nodes.push_back(std::move(n));
  }
  // A pair belongs to its source's host; an all-rank verdict to every host of the run.
  for (const auto& v : verdicts) {
    const FleetPair p = fleet_pair(d, idx, verdicts, v);
    for (auto& n : nodes) {
      if (v.src < 0 || host_of(d, v.src) == n.host) n.pairs.push_back(p);
    }
  }
  return nodes;
}

}  // namespace peerbench
