#pragma once
// The plan of a run: which method runs on which pairs, in which round, at which sizes, and how
// long it should take. Identical on every rank (it depends only on options and the rank layout),
// so ranks walk it in lock step without negotiating.
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "core/model/method_info.h"
#include "core/plan/run_options.h"

namespace peerbench {

struct PlannedPair {
  int src = -1;
  int dst = -1;
  bool applicable = true;
  std::string reason;  // why not applicable
};

struct PlanStep {
  std::string method;
  int round = 0;                   // round index within this method
  bool all_ranks = false;          // a collective over every rank
  std::vector<PlannedPair> pairs;  // pairs that run at once (empty for all_ranks)
  std::vector<std::uint64_t> sizes;
  int variants = 1;  // collective variants each size runs: -d types (x -o ops, for reductions)
  double estimate_s = 0;
  int running_pairs() const;  // applicable pairs in this step
};

struct PlanInput {
  int world_size = 0;
  std::vector<std::string> host_of_rank;  // size world_size
  std::vector<MethodInfo> methods;        // selected methods, in run order
  Schedule schedule = Schedule::kSerial;
  PairFilter pairs;
  std::vector<std::uint64_t> sizes;
  std::vector<DataType> datatypes{DataType::kFloat};  // -d, for typed methods
  std::vector<ReduceOp> ops{ReduceOp::kSum};          // -o, for reductions
  std::uint64_t latency_bytes = 8;
  int warmup_iters = 5;
  int iters = 20;
  int samples = 5;
  int graph_replays = 0;
  int latency_iters = 200;
  int cycles = 1;         // burn-in: -N (0: no bound but --duration or a stop)
  double duration_s = 0;  // burn-in: --duration (0: none)
};

struct Plan {
  std::vector<PlanStep> steps;  // empty from summarize_plan
  double estimate_s = 0;
  std::int64_t cases = 0;  // (method, pair, size) results the run will produce
  std::int64_t step_count = 0;
};

// The plan's input from the run options: the selected methods looked up in `catalog`.
PlanInput make_plan_input(const RunOptions& o, int world_size,
                          std::vector<std::string> host_of_rank,
                          const std::vector<MethodInfo>& catalog);

// Ranks a run of these methods needs: 2 (a pair of GPUs), or 1 when every method measures one
// GPU and its host (-m host on a one-GPU node).
int minimum_ranks(const std::vector<std::string>& methods, const std::vector<MethodInfo>& catalog);
// Why a job of fewer ranks than minimum_ranks cannot run the methods, in one phrase for every
// caller (four had said it four ways, one leaving out the collectives).
std::string too_few_ranks_text();

// What a job of `ranks` ranks runs: the methods selected, or, where -m was left out and the job
// has one rank (a one-GPU host), the methods of one GPU and its host link (h2d, d2h: their -all
// twins would measure the same GPU again) and one line that says why (`note`; "" when the
// selection stands). `where` names the rank count as the user knows it: "1 GPU on this host",
// "--np 1". A method named with -m is never dropped: minimum_ranks refuses the job instead.
struct RankFit {
  std::vector<std::string> methods;
  std::string note;
};
RankFit fit_methods_to_ranks(const RunOptions& o, int ranks, const std::vector<MethodInfo>& catalog,
                             const std::string& where);

// Throws UsageError when --pairs names ranks that do not exist or selects nothing.
Plan make_plan(const PlanInput& in);
// The same totals (cases, estimate, step count) and checks without keeping the steps: memory
// does not grow with the plan, for dry runs of large jobs.
Plan summarize_plan(const PlanInput& in);

// The plan's totals in one line, what a quiet dry run prints: "# Plan: 8 ranks, schedule serial,
// pairs all, 3760 cases in 376 steps; estimated 812.3 s (planning model: ...)".
std::string plan_summary_line(const PlanInput& in, const Plan& totals);

// Round-robin tournament (circle method): n-1 rounds of disjoint pairs for even n, n rounds with
// one rank idle for odd n. Every unordered pair appears exactly once.
std::vector<std::vector<std::pair<int, int>>> tournament_rounds(int n);

// Planning model: seconds one (method, size) case takes with the input's iteration counts.
// Based on assumed link speeds (NVLink-class), not on measurements; used for estimates only.
double estimate_case_seconds(const MethodInfo& m, std::uint64_t bytes, const PlanInput& in,
                             int nranks);

// The run's estimate as people read it: "12 s" for one pass; for a burn-in the cycle's estimate
// and what bounds the whole ("12 s a cycle, for 600 s (--duration)"), since a cycle's estimate
// alone reads as the run's length.
std::string estimate_text(double cycle_s, int cycles, double duration_s, int decimals);

// Every step of the plan in order, generated one at a time (bounded memory at any rank count).
void for_each_plan_step(const PlanInput& in, const std::function<void(const PlanStep&)>& visit);

}  // namespace peerbench
