#include "core/plan/plan.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <ostream>
#include <set>
#include <sstream>

#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/model/sizes.h"

namespace peerbench {

int PlanStep::running_pairs() const {
  return static_cast<int>(
      std::count_if(pairs.begin(), pairs.end(), [](const PlannedPair& p) { return p.applicable; }));
}

std::vector<std::vector<std::pair<int, int>>> tournament_rounds(int n) {
  std::vector<std::vector<std::pair<int, int>>> rounds;
  if (n < 2) return rounds;
  const int m = n % 2 ? n + 1 : n;  // pad odd n with a "bye" slot m-1
  std::vector<int> pos(m);
  for (int i = 0; i < m; ++i) pos[i] = i;
  for (int r = 0; r < m - 1; ++r) {
    std::vector<std::pair<int, int>> round;
    for (int i = 0; i < m / 2; ++i) {
      int a = pos[i];
      int b = pos[m - 1 - i];
      if (a >= n || b >= n) continue;  // bye
      // Alternate orientation by round so each rank sends about as often as it receives.
      if ((r + i) % 2) std::swap(a, b);
      round.emplace_back(a, b);
    }
    rounds.push_back(round);
    // Rotate every slot but the first.
    std::rotate(pos.begin() + 1, pos.end() - 1, pos.end());
  }
  return rounds;
}

double estimate_case_seconds(const MethodInfo& m, std::uint64_t bytes, const PlanInput& in,
                             int nranks) {
  // Assumed rates (GB/s) and per-operation overheads; NVLink-class node.
  double op_s = 0;
  const double b = static_cast<double>(bytes);
  if (m.metric == Metric::kLatency) {
    const double one_way = m.family == "sm" ? 2.5e-6 : 3e-6;
    const double per_iter = m.family == "sm" ? 2.0 * one_way * in.latency_iters : one_way;
    const int iters = m.family == "sm" ? 1 : in.latency_iters;
    return (in.warmup_iters + in.samples * iters) * per_iter + in.samples * 1e-3;
  }
  double gbps = 350;
  double overhead = 10e-6;
  if (m.family == "host") {
    gbps = 50;  // PCIe Gen5 x16 through the copy engine
  } else if (m.family == "staged") {
    gbps = 30;
    overhead = 30e-6;
  } else if (m.uses_nccl) {
    gbps =
        m.collective == Collective::kAllReduce ? 300.0 / busbw_factor(m.collective, nranks) : 330;
    overhead = 15e-6;
  }
  op_s = overhead + b / (gbps * 1e9);
  const double ops_per_sample = in.iters * std::max(1, in.graph_replays);
  const double per_sample_overhead = 0.5e-3 + 3 * b / 2e12;  // fill, poison, check
  return (in.warmup_iters * op_s) + in.samples * (ops_per_sample * op_s + per_sample_overhead) +
         2e-3;
}

std::string too_few_ranks_text() {
  return "the selected methods measure pairs of GPUs and need at least 2 ranks (one rank is "
         "enough for the host<->GPU methods, -m host, and the NCCL collectives)";
}

int minimum_ranks(const std::vector<std::string>& methods, const std::vector<MethodInfo>& catalog) {
  // Host<->GPU copies need one GPU; a collective runs on one rank too (NCCL's local path: not a
  // link, but what tests the tool on a one-GPU machine).
  const bool one_gpu_each = std::all_of(methods.begin(), methods.end(), [&](const std::string& n) {
    const MethodInfo* m = find_method(catalog, n);
    return m && m->scope != MethodScope::kPair;
  });
  return one_gpu_each && !methods.empty() ? 1 : 2;
}

RankFit fit_methods_to_ranks(const RunOptions& o, int ranks, const std::vector<MethodInfo>& catalog,
                             const std::string& where) {
  RankFit fit{o.methods, ""};
  if (o.methods_given || ranks != 1 || minimum_ranks(o.methods, catalog) <= ranks) return fit;
  fit.methods.clear();
  for (const auto& name : o.methods) {
    const MethodInfo* m = find_method(catalog, name);
    // Collectives run on one rank too, but through NCCL's local path: no link is measured.
    if (m && m->scope == MethodScope::kPerGpu && !m->all_gpus_at_once) fit.methods.push_back(name);
  }
  if (fit.methods.empty()) {  // nothing of the selection runs on one GPU: refused as it was
    fit.methods = o.methods;
    return fit;
  }
  fit.note = where + ": pair methods and collectives need 2 or more; measuring the host link " +
             "only (" + join(fit.methods, ", ") + ")";
  return fit;
}

PlanInput make_plan_input(const RunOptions& o, int world_size,
                          std::vector<std::string> host_of_rank,
                          const std::vector<MethodInfo>& catalog) {
  const bool rooted = std::any_of(o.methods.begin(), o.methods.end(), [&](const std::string& n) {
    const MethodInfo* m = find_method(catalog, n);
    return m && m->rooted;
  });
  if (rooted && o.root >= world_size) {
    throw UsageError("-r/--root " + std::to_string(o.root) + ": the job has " +
                     std::to_string(world_size) + " rank" + (world_size == 1 ? "" : "s") + " (0-" +
                     std::to_string(world_size - 1) + ")");
  }
  PlanInput in;
  in.world_size = world_size;
  in.host_of_rank = std::move(host_of_rank);
  for (const auto& n : o.methods) {
    if (const auto* m = find_method(catalog, n)) in.methods.push_back(*m);
  }
  in.schedule = o.schedule;
  in.pairs = o.pairs;
  in.sizes = make_sweep(o.sweep);
  in.datatypes = o.datatypes;
  in.ops = o.ops;
  in.latency_bytes = o.latency_bytes;
  in.warmup_iters = o.warmup_iters;
  in.iters = o.iters;
  in.samples = o.samples;
  in.graph_replays = o.cudagraph_replays;
  in.latency_iters = o.latency_iters;
  in.cycles = o.cycles;
  in.duration_s = o.duration_s;
  return in;
}

std::string estimate_text(double cycle_s, int cycles, double duration_s, int decimals) {
  const auto secs = [&](double s) { return format_fixed(s, decimals) + " s"; };
  if (cycles == 1 && duration_s <= 0) return secs(cycle_s);
  std::string t = secs(cycle_s) + " a cycle, ";
  if (duration_s <= 0)
    return t + (cycles == 0
                    ? "until stopped (-N 0)"
                    : secs(cycle_s * cycles) + " for " + std::to_string(cycles) + " cycles (-N)");
  if (cycles == 0) {
    t += "for " + secs(duration_s) + " (--duration)";
  } else {
    t += secs(cycle_s * cycles) + " for " + std::to_string(cycles) + " cycle" +
         (cycles > 1 ? "s" : "") + " (-N) or " + secs(duration_s) +
         " (--duration), whichever ends first";
  }
  // Every cycle that starts within --duration runs to its end: a duration shorter than a cycle
  // (or not a whole number of them) takes longer than it says.
  if (cycle_s <= 0) return t;
  double started = std::ceil(duration_s / cycle_s - 1e-9);
  if (cycles > 0) started = std::min(started, static_cast<double>(cycles));
  const double total = started * cycle_s;
  if (total > duration_s * 1.05)
    t += "; about " + secs(total) + " in all, as a cycle that has started finishes";
  return t;
}

std::string plan_summary_line(const PlanInput& in, const Plan& totals) {
  return "# Plan: " + std::to_string(in.world_size) + (in.world_size == 1 ? " rank" : " ranks") +
         ", schedule " + to_string(in.schedule) + ", pairs " + in.pairs.text + ", " +
         std::to_string(totals.cases) + " cases in " + std::to_string(totals.step_count) +
         " steps; estimated " + estimate_text(totals.estimate_s, in.cycles, in.duration_s, 1) +
         " (planning model: NVLink-class rates, not a measurement)";
}

namespace {

// Steps of a plan generated one at a time into one reused PlanStep, so a dry run of a large job
// (1024 ranks: ten million serial steps) needs no memory per step.
class PlanWalker {
 public:
  explicit PlanWalker(const PlanInput& in) : in_(in), n_(in.world_size) {
    std::map<std::string, int> ids;
    for (int r = 0; r < n_; ++r) {
      const std::string h =
          r < static_cast<int>(in.host_of_rank.size()) ? in.host_of_rank[r] : std::string();
      host_id_.push_back(ids.emplace(h, static_cast<int>(ids.size())).first->second);
    }
    if (in.pairs.kind == PairFilter::Kind::kExplicit) {
      for (const auto& [a, b] : in.pairs.pairs) {
        if (a >= n_ || b >= n_) {
          throw UsageError("--pairs: pair " + std::to_string(a) + "-" + std::to_string(b) +
                           " names a rank that does not exist; this job has ranks 0 to " +
                           std::to_string(n_ - 1));
        }
        explicit_.insert({a, b});
      }
    }
    if (in.schedule == Schedule::kRounds) tournament_ = tournament_rounds(n_);
  }

  // Calls visit(step) for every step in run order; returns whether any pair step was made.
  template <typename Visit>
  bool walk(Visit&& visit) {
    bool any_pair = false;
    for (const auto& m : in_.methods) {
      ++method_index_;
      step_.method = m.name;
      na_reason_ =
          "the two ranks are on different hosts; " + m.name + " needs both GPUs in one host";
      step_.sizes = m.fixed_size ? std::vector<std::uint64_t>{m.fixed_bytes ? m.fixed_bytes
                                                                            : in_.latency_bytes}
                                 : in_.sizes;
      const int nranks = m.scope == MethodScope::kAllRanks ? n_ : 2;
      // Each variant is a case of its own (-d all -o all: 60 per size; counted once before, so
      // a dry run's estimate and a run's progress were short by that factor).
      step_.variants = (m.typed ? static_cast<int>(in_.datatypes.size()) : 1) *
                       (m.reduces ? static_cast<int>(in_.ops.size()) : 1);
      double sizes_estimate = 0;
      for (auto sz : step_.sizes) sizes_estimate += estimate_case_seconds(m, sz, in_, nranks);
      sizes_estimate *= step_.variants;
      if (m.scope == MethodScope::kAllRanks) {
        step_.round = 0;
        step_.all_ranks = true;
        step_.pairs.clear();
        slot_reason_of_.clear();
        step_.estimate_s = sizes_estimate;
        visit(static_cast<const PlanStep&>(step_));
        continue;
      }
      step_.all_ranks = false;
      if (m.scope == MethodScope::kPerGpu) {
        gpu_steps(m, sizes_estimate, visit);
        continue;
      }
      int round_index = 0;
      for_each_round(m.bidirectional, [&](const std::pair<int, int>* pairs, std::size_t count) {
        fill_pairs(m, pairs, count);
        if (step_.pairs.empty()) return;
        any_pair = true;
        step_.round = round_index++;
        step_.estimate_s = step_.running_pairs() > 0 ? sizes_estimate : 0;
        visit(static_cast<const PlanStep&>(step_));
      });
    }
    return any_pair;
  }

 private:
  bool accept(int a, int b) const {
    switch (in_.pairs.kind) {
      case PairFilter::Kind::kAll:
        return true;
      case PairFilter::Kind::kIntraHost:
        return host_id_[a] == host_id_[b];
      case PairFilter::Kind::kInterHost:
        return host_id_[a] != host_id_[b];
      case PairFilter::Kind::kExplicit:
        return explicit_.count({a, b}) > 0;
    }
    return false;
  }

  // Host<->GPU methods: the "pair" of a step is (r, r), GPU r and its host. One step per GPU,
  // or one step with every GPU at once (all_gpus_at_once: the host's PCIe and memory shared).
  // Which GPUs: PairFilter::measures_gpu.
  template <typename Visit>
  void gpu_steps(const MethodInfo& m, double sizes_estimate, Visit&& visit) {
    std::vector<int> gpus;
    for (int r = 0; r < n_; ++r) {
      if (in_.pairs.measures_gpu(r)) gpus.push_back(r);
    }
    slot_reason_of_.clear();
    auto step_of = [&](int round, const int* first, std::size_t count) {
      step_.round = round;
      step_.pairs.assign(count, PlannedPair{});
      for (std::size_t i = 0; i < count; ++i) step_.pairs[i].src = step_.pairs[i].dst = first[i];
      step_.estimate_s = sizes_estimate;
      visit(static_cast<const PlanStep&>(step_));
    };
    if (m.all_gpus_at_once) {
      if (!gpus.empty()) step_of(0, gpus.data(), gpus.size());
      return;
    }
    for (std::size_t i = 0; i < gpus.size(); ++i) step_of(static_cast<int>(i), &gpus[i], 1);
  }

  // The ordered pairs of each round of one direction pass; serial rounds are generated, not kept.
  template <typename F>
  void for_each_round(bool bidir, F&& f) {
    if (in_.schedule == Schedule::kSerial) {
      for (int a = 0; a < n_; ++a) {
        for (int b = bidir ? a + 1 : 0; b < n_; ++b) {
          const std::pair<int, int> p{a, b};
          if (a != b) f(&p, 1);
        }
      }
      return;
    }
    std::vector<std::pair<int, int>> round;
    for (int pass = 0; pass < (bidir ? 1 : 2); ++pass) {
      for (const auto& r : tournament_) {
        round.clear();
        for (const auto& [a, b] : r) {
          if (bidir) {
            round.emplace_back(std::min(a, b), std::max(a, b));
          } else {
            round.push_back(pass == 0 ? std::make_pair(a, b) : std::make_pair(b, a));
          }
        }
        f(round.data(), round.size());
      }
    }
  }

  // The round's pairs the filter keeps, written over the reused step (its strings keep their
  // capacity).
  void fill_pairs(const MethodInfo& m, const std::pair<int, int>* pairs, std::size_t count) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const auto [a, b] = pairs[i];
      if (!(m.bidirectional ? (accept(a, b) || accept(b, a)) : accept(a, b))) continue;
      if (kept == step_.pairs.size()) step_.pairs.emplace_back();
      PlannedPair& p = step_.pairs[kept++];
      p.src = a;
      p.dst = b;
      p.applicable = !(m.same_host_only && host_id_[a] != host_id_[b]);
      const int reason_of = p.applicable ? -1 : method_index_;
      if (slot_reason_of_.size() < kept) slot_reason_of_.push_back(-2);
      if (slot_reason_of_[kept - 1] != reason_of) {  // rewrite only when it changes: hot loop
        p.reason = p.applicable ? std::string() : na_reason_;
        slot_reason_of_[kept - 1] = reason_of;
      }
    }
    step_.pairs.resize(kept);
    if (slot_reason_of_.size() > kept) slot_reason_of_.resize(kept);
  }

  const PlanInput& in_;
  int n_;
  std::vector<int> host_id_;
  std::set<std::pair<int, int>> explicit_;
  std::vector<std::vector<std::pair<int, int>>> tournament_;
  PlanStep step_;
  std::string na_reason_;  // of the current method
  int method_index_ = -1;
  std::vector<int> slot_reason_of_;  // per reused pair: method whose reason it holds, -1 none
};

// Totals of a plan; `keep` also stores every step.
Plan walk_plan(const PlanInput& in, bool keep) {
  Plan plan;
  PlanWalker walker(in);
  const bool any_pair = walker.walk([&](const PlanStep& s) {
    plan.cases += static_cast<std::int64_t>(s.sizes.size()) * s.variants *
                  static_cast<std::int64_t>(s.all_ranks ? 1 : s.pairs.size());
    plan.estimate_s += s.estimate_s;
    plan.step_count += 1;
    if (keep) plan.steps.push_back(s);
  });
  const bool has_pair_methods =
      std::any_of(in.methods.begin(), in.methods.end(),
                  [](const MethodInfo& m) { return m.scope == MethodScope::kPair; });
  if (has_pair_methods && !any_pair && in.world_size >= 2) {
    throw UsageError("--pairs: '" + in.pairs.text + "' selects no pair of ranks in this job");
  }
  const bool nccl = std::any_of(in.methods.begin(), in.methods.end(),
                                [](const MethodInfo& m) { return m.uses_nccl; });
  plan.estimate_s += 1.0 + (nccl ? 3.0 : 0.0);  // start-up, NCCL communicator
  return plan;
}

}  // namespace

Plan make_plan(const PlanInput& in) {
  return walk_plan(in, true);
}

Plan summarize_plan(const PlanInput& in) {
  return walk_plan(in, false);
}

void for_each_plan_step(const PlanInput& in, const std::function<void(const PlanStep&)>& visit) {
  PlanWalker(in).walk(visit);
}

}  // namespace peerbench
