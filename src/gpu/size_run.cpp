// SizeRun: one size of one step, its phases before the samples, and the bookkeeping that settles
// each phase across ranks (the samples in size_run_samples.cpp, their checks in
// size_run_checks.cpp).
#include "gpu/size_run.h"

#include <algorithm>

#include "core/model/sizes.h"
#include "gpu/check.h"
#include "gpu/methods/nccl_collective.h"
#include "gpu/watchdog.h"

namespace peerbench::gpu {
namespace {

std::uint32_t name_salt(const std::string& s) {
  std::uint32_t h = 2166136261u;  // FNV-1a
  for (unsigned char c : s) h = (h ^ c) * 16777619u;
  return h;
}

bool fault_here(const FaultInjection& f, const char* kind, const std::string& method, int rank,
                int cycle) {
  return f.kind == kind && f.method == method && f.rank == rank &&
         (f.cycle == 0 || f.cycle == cycle);
}

}  // namespace

// Copy-engine bandwidth one way: NVLink counters around its samples prove which link carried it.
bool counts_link_traffic(const MethodInfo& m) {
  return m.family == "ce" && m.metric == Metric::kBandwidth && !m.bidirectional;
}

SizeRun::SizeRun(EngineResources& res, Method& m, const PlanStep& step, std::size_t bytes,
                 std::vector<PairState>& pairs, StepContext ctx)
    : res_(res),
      m_(m),
      info_(m.info()),
      o_(*res.opts),
      step_(step),
      bytes_(bytes),
      pairs_(pairs),
      ctx_(std::move(ctx)),
      me_(res.rank->rank),
      tally_(pairs.size()) {
  for (auto& p : pairs_) {
    if (p.has(me_)) mine_ = &p;  // pairs of a step are disjoint
  }
  iters_ = m_.iterations_per_sample(o_);
  use_graph_ = o_.cudagraph_replays > 0 && info_.graph_capturable;
  replays_ = use_graph_ ? o_.cudagraph_replays : 1;
  transfers_ = m_.transfers_per_iteration(o_);
  salt_ = name_salt(info_.name);
  corrupt_here_ = fault_here(o_.fault, "corrupt", info_.name, me_, res_.cycle);
  hang_here_ = fault_here(o_.fault, "hang", info_.name, me_, res_.cycle);
  count_link_ = counts_link_traffic(info_) && res_.nvml && res_.nvml->available() && mine_ &&
                !mine_->all_ranks && me_ == mine_->pair.src;
}

std::vector<Result> SizeRun::run() {
  std::vector<bool> failed_before(pairs_.size());
  for (std::size_t i = 0; i < pairs_.size(); ++i) failed_before[i] = pairs_[i].failed;
  check_availability();
  const bool any_running =
      std::any_of(pairs_.begin(), pairs_.end(), [](const PairState& p) { return !p.failed; });
  if (any_running) {
    JobBusy busy(res_.monitor, mine_ != nullptr);
    t0_s_ = res_.monitor ? res_.monitor->now_s() : 0;
    try {
      prepare();
      warm_up();
      capture_graph();
      count_link_traffic(/*before=*/true);
      timed_samples();
      count_link_traffic(/*before=*/false);
      gather_link_traffic();
      gather_interference();
    } catch (const FatalRunError& e) {
      fatal_error_ = e.what();  // this size's results are still made, then the run stops
      fatal_stuck_ = e.gpu_stuck();
    }
  }
  std::vector<Result> out;
  for (std::size_t i = 0; i < pairs_.size(); ++i) out.push_back(make_result(i, failed_before[i]));
  return out;
}

// ---- Phases before the samples.

void SizeRun::check_availability() {
  // Availability can depend on the size (all-reduce needs whole floats): asked again each size.
  if (worker()) {
    try {
      const std::string why = m_.unavailable(ctx_);
      if (!why.empty()) rep_.fail(RankStatus::kError, why);
    } catch (const std::exception& e) {
      rep_.fail(RankStatus::kError, res_.rank->where() + ": " + e.what());
    }
  }
  const auto all = res_.gather(rep_);
  for (auto& p : pairs_) {
    if (p.failed) continue;
    for (int q : p.workers) {
      if (!all[q].ok()) {
        p.fail(ResultStatus::kSkipped, all[q].message);
        break;
      }
    }
  }
  rep_ = RankReport{};
}

void SizeRun::prepare() {
  try {
    if (active()) {
      PB_CUDA(cudaMemsetAsync(res_.scratch.get(), 0, 64, res_.stream.get()));
      m_.prepare(ctx_);
      PB_CUDA(cudaStreamSynchronize(res_.stream.get()));
    }
  } catch (const std::exception& e) {
    record_failure(e);
  }
  settle("prepare");
  barrier(res_.rank->world);
}

void SizeRun::warm_up() {
  try {
    if (worker() && o_.warmup_iters > 0) {
      for (int i = 0; i < o_.warmup_iters; ++i) m_.enqueue(ctx_);
      PB_CUDA(cudaEventRecord(res_.done.get(), res_.stream.get()));
      wait_with_watchdog(res_.done.get(), info_.uses_nccl ? res_.nccl.get() : nullptr, o_.timeout_s,
                         info_.name + " warm-up at " + format_size(bytes_));
    }
  } catch (const std::exception& e) {
    record_failure(e);
  }
  settle("warm-up");
}

void SizeRun::capture_graph() {
  try {
    if (worker() && use_graph_) {
      PB_CUDA(cudaStreamBeginCapture(res_.stream.get(), cudaStreamCaptureModeThreadLocal));
      try {
        for (int i = 0; i < iters_; ++i) m_.enqueue(ctx_);
      } catch (...) {
        // The enqueue's error is the one to report: the capture's cleanup is best effort.
        cudaGraph_t g = nullptr;
        (void)cudaStreamEndCapture(res_.stream.get(), &g);
        if (g) (void)cudaGraphDestroy(g);
        (void)cudaGetLastError();
        throw;
      }
      graph_ = GraphExec::end_capture(res_.stream.get());
    }
  } catch (const std::exception& e) {
    record_failure(e);
  }
  settle("graph capture");
}

// ---- Phase bookkeeping.

std::string SizeRun::label() const {
  const int src = mine_ && !mine_->all_ranks ? mine_->pair.src : -1;
  const int dst = mine_ && !mine_->all_ranks ? mine_->pair.dst : -1;
  const std::string who = src < 0      ? "all ranks"
                          : src == dst ? "GPU of rank " + std::to_string(src)
                                       : std::to_string(src) + "->" + std::to_string(dst);
  return info_.name + " " + who + " at " + format_size(bytes_);
}

void SizeRun::record_failure(const std::exception& e) {
  const std::string msg = res_.rank->where() + ": " + e.what();
  if (dynamic_cast<const WatchdogTimeout*>(&e)) {
    rep_.fail(RankStatus::kStuck, msg);  // stuck copy engines or NCCL: the stream is lost
  } else if (dynamic_cast<const PeerTimeout*>(&e)) {
    rep_.fail(info_.uses_nccl ? RankStatus::kFatal : RankStatus::kTimeout, msg);
  } else if (const auto* ce = dynamic_cast<const CudaError*>(&e); ce && ce->sticky()) {
    rep_.fail(RankStatus::kStuck, msg);
  } else if (dynamic_cast<const NcclError*>(&e)) {
    rep_.fail(RankStatus::kFatal, msg);
  } else {
    rep_.fail(RankStatus::kError, msg);
  }
}

// Gathers one phase's reports and marks pairs whose members failed. A fatal report ends the
// run: the communicator is aborted on every rank, and FatalRunError thrown everywhere at once.
std::vector<RankReport> SizeRun::settle(const char* phase) {
  const auto all = res_.gather(rep_);
  rep_ = RankReport{};
  std::string fatal;
  bool any_failed = false, stuck = false;
  for (const auto& r : all) {
    if ((r.status == RankStatus::kFatal || r.status == RankStatus::kStuck) && fatal.empty())
      fatal = r.message;
    stuck = stuck || r.status == RankStatus::kStuck;
    any_failed = any_failed || !r.ok();
  }
  for (auto& p : pairs_) {
    if (p.failed) continue;
    for (int q : p.ranks) {
      if (all[q].ok()) continue;
      p.fail(all[q].status == RankStatus::kTimeout ? ResultStatus::kTimeout : ResultStatus::kError,
             std::string(phase) + ": " + all[q].message);
      break;
    }
  }
  if (any_failed && info_.uses_nccl && res_.nccl && !res_.nccl->aborted()) {
    // A failed NCCL operation leaves the communicator unusable; abort it on every rank.
    res_.nccl->abort();
    if (fatal.empty()) {
      for (const auto& r : all) {
        if (!r.ok()) {
          fatal = r.message;
          break;
        }
      }
    }
    fatal += " (NCCL communicator aborted)";
  }
  if (fatal.empty()) return all;
  for (auto& p : pairs_) {
    if (!p.failed) p.fail(ResultStatus::kNotRun, "not run: " + fatal);
  }
  throw FatalRunError(info_.name + " at " + format_size(bytes_) + ": " + fatal, stuck);
}

}  // namespace peerbench::gpu
