#pragma once
// What the engine's phases exchange between ranks. After each phase every rank contributes one
// fixed-size RankReport; the gathered reports decide, identically on every rank, which pairs go
// on, which failed and whether the run must stop.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "core/model/results.h"
#include "core/plan/plan.h"
#include "gpu/method.h"

namespace peerbench::gpu {

// Severity order matters: a report keeps its first, most severe failure.
enum class RankStatus : int {
  kOk = 0,
  kError = 1,    // this case failed on this rank; the run goes on
  kTimeout = 2,  // our own kernels gave up waiting for a peer
  kFatal = 3,    // the run cannot go on (NCCL error, ...)
  kStuck = 4,    // fatal, and GPU work may still be running
};

struct RankReport {
  double elapsed_ms = -1;
  double enqueue_us = 0;  // host wall time spent enqueuing this sample's units
  double nvl_tx = -1;
  double nvl_rx = -1;
  unsigned long long wrong = 0;
  unsigned long long checked = 0;
  int gate_timeouts = 0;
  RankStatus status = RankStatus::kOk;
  char message[464] = {0};

  bool ok() const { return status == RankStatus::kOk; }
  void fail(RankStatus st, const std::string& m) {
    if (!ok() && status >= st) return;
    status = st;
    std::snprintf(message, sizeof(message), "%s", m.c_str());
  }
};

// One pair of a plan step (or all ranks, for collectives) as it moves through the sizes.
struct PairState {
  PlannedPair pair;
  bool all_ranks = false;
  std::vector<int> ranks;  // members
  std::vector<int> workers;
  std::vector<Flow> flows;
  bool failed = false;
  ResultStatus fail_status = ResultStatus::kError;
  std::string reason;

  bool has(int rank) const;
  bool has_worker(int rank) const;
  void fail(ResultStatus st, std::string why) {
    failed = true;
    fail_status = st;
    reason = std::move(why);
  }
};

// What the samples of one size gathered for one pair.
struct Tally {
  std::vector<double> times;                   // per sample: seconds per transfer
  std::vector<std::vector<double>> dir_times;  // per sample, per flow
  unsigned long long wrong = 0;
  unsigned long long checked = 0;
  double nvl_tx = -1;  // NVLink counter deltas, -1 unknown
  double nvl_rx = -1;
  std::string counter_note;
  std::vector<double> iteration_us;  // per iteration, the slowest worker's, every sample
  std::vector<double> enqueue_us;    // per sample: the slowest worker's host enqueue time
  // Other processes and held clocks on the pair's GPUs: nullopt where a rank could not watch.
  std::optional<std::vector<GpuInterference>> interference;
};

}  // namespace peerbench::gpu
