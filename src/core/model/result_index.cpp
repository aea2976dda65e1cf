#include "core/model/result_index.h"

#include <algorithm>
#include <cmath>

namespace peerbench {

ResultIndex::ResultIndex(const RunDocument& d) {
  for (const auto& r : d.results) {
    every_[{r.method, r.src, r.dst}].push_back(&r);
    const auto first = first_variant_.emplace(r.method, variant_label(r)).first->second;
    if (variant_label(r) != first) continue;
    by_key_[{r.method, r.src, r.dst}].push_back(&r);
    methods_of_pair_[{r.src, r.dst}].insert(r.method);
    methods_.insert(r.method);
    if (r.src >= 0 && r.src == r.dst) {
      gpus_.insert(r.src);
    } else if (r.src >= 0 && r.dst >= 0) {
      pairs_.insert({r.src, r.dst});
    }
    if (r.concurrent_pairs > 1) rounds_[{r.method, r.round}].insert({r.src, r.dst});
  }
  for (auto* m : {&by_key_, &every_}) {
    for (auto& [key, v] : *m) {
      std::stable_sort(v.begin(), v.end(),
                       [](const Result* a, const Result* b) { return a->bytes < b->bytes; });
    }
  }
  for (const auto& p : d.pairs) {
    pairs_.insert({p.src, p.dst});
    facts_.emplace(std::make_pair(p.src, p.dst), &p);
  }
  for (const auto& r : d.system.ranks) ranks_.emplace(r.rank, &r);
}

const std::vector<const Result*>& ResultIndex::of(const std::string& method, int src,
                                                  int dst) const {
  static const std::vector<const Result*> kNone;
  const auto it = by_key_.find({method, src, dst});
  return it == by_key_.end() ? kNone : it->second;
}

const std::vector<const Result*>& ResultIndex::every_variant(const std::string& method, int src,
                                                             int dst) const {
  static const std::vector<const Result*> kNone;
  const auto it = every_.find({method, src, dst});
  return it == every_.end() ? kNone : it->second;
}

std::string burn_in_unit(const MethodInfo* m, std::uint64_t bytes) {
  return figure_is_time(m, bytes) ? "us" : "GB/s";
}

bool has_figure(const Result& r) {
  return r.status == ResultStatus::kOk && (r.algbw_gbps || r.time_us);
}

std::uint64_t planned_bytes(const Result& r) {
  return r.requested_bytes ? r.requested_bytes : r.bytes;
}

std::optional<double> sample_cv(const Result& r) {
  const auto& t = r.sample_time_us;
  if (t.size() < 2) return std::nullopt;
  double mean = 0;
  for (double x : t) mean += x;
  mean /= static_cast<double>(t.size());
  if (mean <= 0) return std::nullopt;
  double var = 0;
  for (double x : t) var += (x - mean) * (x - mean);
  return std::sqrt(var / static_cast<double>(t.size())) / mean;
}

bool contended(const Result& r) {
  if (!r.interference) return false;
  for (const auto& g : *r.interference) {
    if (g.contended()) return true;
  }
  return false;
}

bool throttled(const Result& r) {
  if (!r.interference) return false;
  for (const auto& g : *r.interference) {
    if (g.throttled()) return true;
  }
  return false;
}

bool host_paced(const Result& r) {
  return r.gate_timeouts > 0 || (r.enqueue && r.enqueue->launch_bound);
}

bool not_the_links_figure(const Result& r) {
  return contended(r) || throttled(r) || host_paced(r);
}

std::string variant_label(const Result& r) {
  if (r.datatype.empty()) return r.op;
  return r.op.empty() ? r.datatype : r.datatype + "/" + r.op;
}

const Result* ResultIndex::largest_ok(const std::string& method, int src, int dst) const {
  const auto& v = of(method, src, dst);
  for (auto it = v.rbegin(); it != v.rend(); ++it) {
    if (has_figure(**it)) return *it;
  }
  return nullptr;
}

const Result* ResultIndex::ok_at(const std::string& method, int src, int dst,
                                 std::uint64_t bytes) const {
  for (const auto* r : of(method, src, dst)) {
    if (r->bytes == bytes && has_figure(*r)) return r;
  }
  return nullptr;
}

std::vector<std::string> ResultIndex::methods_of(int src, int dst) const {
  const auto it = methods_of_pair_.find({src, dst});
  if (it == methods_of_pair_.end()) return {};
  return {it->second.begin(), it->second.end()};
}

const RankInfo* ResultIndex::rank(int r) const {
  const auto it = ranks_.find(r);
  return it == ranks_.end() ? nullptr : it->second;
}

const PairFacts* ResultIndex::facts(int src, int dst) const {
  const auto it = facts_.find({src, dst});
  return it == facts_.end() ? nullptr : it->second;
}

const std::set<std::pair<int, int>>& ResultIndex::round_pairs(const std::string& method,
                                                              int round) const {
  static const std::set<std::pair<int, int>> kNone;
  const auto it = rounds_.find({method, round});
  return it == rounds_.end() ? kNone : it->second;
}

}  // namespace peerbench
