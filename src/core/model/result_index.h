#pragma once
// One pass over a run's results and ranks, so that verdicts and reports look things up instead of
// scanning every result per pair (which made 100k-result reports quadratic: issue 12).
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/model/results.h"

namespace peerbench {

class ResultIndex {
 public:
  explicit ResultIndex(const RunDocument& d);

  // Results of `method` for src->dst (-1/-1: over all ranks), in order of size; empty if none.
  // For collectives run over several types or ops (-d, -o), these are the first variant's
  // (the one the link is judged by); every variant is in every_variant().
  const std::vector<const Result*>& of(const std::string& method, int src, int dst) const;
  const std::vector<const Result*>& every_variant(const std::string& method, int src,
                                                  int dst) const;
  // The largest size with status ok and a figure, or nullptr.
  const Result* largest_ok(const std::string& method, int src, int dst) const;
  // The ok result at exactly `bytes`, or nullptr.
  const Result* ok_at(const std::string& method, int src, int dst, std::uint64_t bytes) const;
  // Ordered pairs of two ranks with results or pair facts, in order.
  const std::set<std::pair<int, int>>& pairs() const { return pairs_; }
  // Ranks with results of host<->GPU methods (src = dst = the rank).
  const std::set<int>& gpus() const { return gpus_; }
  // Methods with results for src->dst (or -1/-1), by name.
  std::vector<std::string> methods_of(int src, int dst) const;
  // Methods with results anywhere, by name.
  const std::set<std::string>& methods() const { return methods_; }
  const RankInfo* rank(int r) const;
  const PairFacts* facts(int src, int dst) const;
  // Pairs that ran in `round` of `method` (the plan's rounds: disjoint pairs at once).
  const std::set<std::pair<int, int>>& round_pairs(const std::string& method, int round) const;

 private:
  using Key = std::tuple<std::string, int, int>;
  std::map<Key, std::vector<const Result*>> by_key_;
  std::map<Key, std::vector<const Result*>> every_;
  std::map<std::string, std::string> first_variant_;  // per method
  std::map<std::pair<int, int>, std::set<std::string>> methods_of_pair_;
  std::set<std::string> methods_;
  std::set<std::pair<int, int>> pairs_;
  std::set<int> gpus_;
  std::map<int, const RankInfo*> ranks_;
  std::map<std::pair<int, int>, const PairFacts*> facts_;
  std::map<std::pair<std::string, int>, std::set<std::pair<int, int>>> rounds_;
};

}  // namespace peerbench
