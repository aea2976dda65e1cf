#pragma once
// One (method, plan step, size) through the engine's phases, on every rank at once:
//   availability -> prepare -> warm-up -> graph capture -> timed samples -> link counters ->
//   results.
// Each phase ends with a gather of RankReports (settle), so every rank agrees on which pairs go
// on. A sample is: fill and poison, launch behind the start gate, wait under the watchdog,
// check the data, record the slowest worker's time.
#include <cstdint>
#include <string>
#include <vector>

#include "gpu/engine.h"
#include "gpu/engine_phase.h"

namespace peerbench::gpu {

// Copy-engine bandwidth one way: NVLink counters around its samples prove which link carried it.
bool counts_link_traffic(const MethodInfo& m);

class SizeRun {
 public:
  SizeRun(EngineResources& res, Method& m, const PlanStep& step, std::size_t bytes,
          std::vector<PairState>& pairs, StepContext ctx);
  // Results for every pair of the step, identical on every rank. When the run must stop,
  // fatal_error() is set after the results of this size are made.
  std::vector<Result> run();
  const std::string& fatal_error() const { return fatal_error_; }
  bool fatal_stuck() const { return fatal_stuck_; }

 private:
  // Phases.
  void check_availability();
  void prepare();
  void warm_up();
  void capture_graph();
  void timed_samples();
  void prepare_sample(int sample);
  void run_batches();
  void run_streamed_graph();
  void run_blocking();
  void check_sample(int sample);
  void record_sample(const std::vector<RankReport>& all);
  void record_units();
  void record_check(const std::vector<RankReport>& all);
  void gather_interference();
  void count_link_traffic(bool before);
  void gather_link_traffic();
  Result make_result(std::size_t i, bool failed_before);
  Result result_identity(const PairState& p) const;
  LinkCounters link_counters(const Tally& t) const;
  EnqueueInfo enqueue_info(const Tally& t) const;

  // Launching: what goes behind the start gate, and the rest after it opens.
  kernels::CollectiveData collective_data(const CollectiveLayout& l, std::uint32_t sample) const;
  int units_per_batch() const;
  bool timed_per_unit() const;
  bool streams_graph() const;
  cudaEvent_t replay_mark(int replay) const;
  void enqueue_batch(int first, int count);
  double wait_batch(int count);
  void release_gate();

  // Phase bookkeeping.
  std::vector<RankReport> settle(const char* phase);
  void record_failure(const std::exception& e);
  std::string label() const;
  bool active() const { return mine_ && !mine_->failed; }
  bool worker() const { return active() && mine_->has_worker(me_); }

  EngineResources& res_;
  Method& m_;
  const MethodInfo& info_;
  const RunOptions& o_;
  const PlanStep& step_;
  const std::size_t bytes_;
  std::vector<PairState>& pairs_;
  StepContext ctx_;
  const int me_;
  PairState* mine_ = nullptr;
  RankReport rep_;
  std::vector<Tally> tally_;

  int iters_ = 1;
  bool use_graph_ = false;
  int replays_ = 1;
  double transfers_ = 1;
  std::uint32_t salt_ = 0;
  bool corrupt_here_ = false;
  bool hang_here_ = false;
  std::vector<double> unit_ms_;  // this rank's time of each unit of the current sample
  bool per_unit_ = false;        // this sample times every unit (the per-iteration sample)
  int samples_run_ = 0;          // samples between the NVLink counter reads, per-unit one included
  int gate_openings_ = 0;        // gate releases in the last timed (not per-unit) sample
  double t0_s_ = 0;              // when this size started, on the GPU monitor's clock
  bool count_link_ = false;      // this rank reads NVLink counters around the samples
  GraphExec graph_;
  Nvml::Traffic before_src_, before_dst_;

  std::string fatal_error_;
  bool fatal_stuck_ = false;
};

}  // namespace peerbench::gpu
