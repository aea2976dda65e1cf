#include "gpu/size_run.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>

#include "collective_kernels.h"
#include "core/model/bandwidth.h"
#include "core/model/schema_activity.h"
#include "core/model/sizes.h"
#include "core/model/statistics.h"
#include "gpu/check.h"
#include "gpu/methods/nccl_collective.h"
#include "gpu/watchdog.h"
#include "pattern_formula.h"
#include "pattern_kernels.h"
#include "sync_kernels.h"

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

// ---- The samples.

// The timed samples, then (-I 1, the default) one more with an event after every iteration: the
// per-iteration distribution (nccl-tests' -I). Events between small operations add about a
// microsecond to each on Hopper, so that sample gives the percentiles and never the headline.
void SizeRun::timed_samples() {
  const int extra = o_.per_iteration && m_.use_start_gate() && o_.blocking == 0 ? 1 : 0;
  for (int s = 0; s < o_.samples + extra; ++s) {
    per_unit_ = s == o_.samples;
    prepare_sample(s);
    barrier(res_.rank->world);
    run_batches();
    // Destinations are checked only after every worker's transfer is complete: a non-worker
    // destination (ce-write's, sm-write's) would otherwise race the incoming data.
    barrier(res_.rank->world);
    check_sample(s);
    const auto all = settle(per_unit_ ? "per-iteration sample" : "sample");
    record_check(all);
    if (per_unit_) {
      record_units();
    } else {
      record_sample(all);
    }
  }
  per_unit_ = false;
}

void SizeRun::prepare_sample(int sample) {
  try {
    if (!active()) return;
    const auto st = res_.stream.get();
    const auto s = static_cast<std::uint32_t>(sample);
    if (m_.data_mode() == DataMode::kCollective) {
      const CollectiveLayout l = m_.collective_layout(ctx_);
      const auto d = collective_data(l, s);
      PB_CUDA(kernels::fill_collective_input(st, ctx_.local.src, l.send_elems, d));
      if (!l.in_place && l.recv_elems > 0)
        PB_CUDA(kernels::poison_collective_output(st, ctx_.local.dst, l.recv_elems, d.type));
    } else if (m_.data_mode() == DataMode::kBytes) {
      for (const auto& f : mine_->flows) {
        const std::uint64_t seed = pattern_seed(f.from, bytes_, s, salt_);
        if (f.from == me_) PB_CUDA(kernels::fill_pattern(st, ctx_.local.src, bytes_, seed));
        if (f.to == me_) PB_CUDA(kernels::poison(st, ctx_.local.dst, bytes_, seed));
      }
    }
    PB_CUDA(cudaMemsetAsync(res_.scratch.get(), 0, 64, st));
    m_.before_sample(ctx_);
    PB_CUDA(cudaStreamSynchronize(st));
  } catch (const std::exception& e) {
    record_failure(e);
  }
}

kernels::CollectiveData SizeRun::collective_data(const CollectiveLayout& l,
                                                 std::uint32_t sample) const {
  kernels::CollectiveData d;
  d.kind = l.kind;
  d.type = ctx_.dtype;
  d.op = ctx_.op;
  d.nranks = res_.rank->size;
  d.rank = me_;
  d.root = ctx_.root;
  d.count = l.count;
  // Inputs differ per size, sample, method and variant, so stale data never passes.
  d.seed = pattern_seed(0, bytes_, sample,
                        salt_ ^ (static_cast<std::uint32_t>(ctx_.dtype) << 8) ^
                            (static_cast<std::uint32_t>(ctx_.op) << 16));
  d.tolerance = check_tolerance(ctx_.dtype, ctx_.op);
  return d;
}

// Units (iterations, or graph replays) one gate opening covers: as many as the launch queue holds
// behind the gate (with an event after each in the per-iteration sample). A sample of more units is
// timed as several batches, each behind its own gate and timed by its own events, so the host's
// enqueue rate never enters the figure (issue 17: -n 4000 measured 58 us where -n 250 gave 6 us).
// Methods that cannot wait behind the gate run as one batch, timed start to stop.
int SizeRun::units_per_batch() const {
  const int total = use_graph_ ? replays_ : iters_;
  if (!m_.use_start_gate()) return total;
  // A graph replay is counted as the launches it holds: on 2 x H200 a graph of 200 peer copies
  // took queue entries per copy node, and 100 replays behind one gate opened it by its timeout.
  const int per_iteration = std::max(1, m_.launches_per_iteration());
  const int entries =
      (use_graph_ ? iters_ * per_iteration : per_iteration) + (timed_per_unit() ? 1 : 0);
  return std::max(1, std::min(total, kGateDepth / entries));
}

bool SizeRun::timed_per_unit() const {
  return per_unit_;
}

void SizeRun::enqueue_batch(int first, int count) {
  const auto st = res_.stream.get();
  if (m_.use_start_gate()) {
    const auto gate_ns = static_cast<std::uint64_t>(std::min(5.0, 0.5 * o_.timeout_s) * 1e9);
    PB_CUDA(kernels::gate_wait(st, static_cast<const volatile std::uint32_t*>(res_.gate.device()),
                               res_.gate_epoch + 1, gate_ns, ctx_.counters));
  }
  PB_CUDA(cudaEventRecord(res_.marks[0].get(), st));
  if (hang_here_) {
    // Test fault: work that never finishes by itself (longer than the watchdog). A hang fault on
    // NCCL is a peer that never posts its part: nothing is enqueued.
    if (!info_.uses_nccl) {
      PB_CUDA(kernels::gate_wait(st, static_cast<const volatile std::uint32_t*>(res_.gate.device()),
                                 0xFFFFFFFFu, static_cast<std::uint64_t>(4 * o_.timeout_s * 1e9),
                                 ctx_.counters + 3));
    }
    PB_CUDA(cudaEventRecord(res_.marks[timed_per_unit() ? count : 1].get(), st));
    return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  for (int u = first; u < first + count; ++u) {
    if (use_graph_) {
      graph_.launch(st);
    } else {
      m_.enqueue(ctx_);
    }
    if (timed_per_unit()) PB_CUDA(cudaEventRecord(res_.marks[u - first + 1].get(), st));
  }
  if (!timed_per_unit()) PB_CUDA(cudaEventRecord(res_.marks[1].get(), st));
  rep_.enqueue_us +=
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

// Waits for a batch under the watchdog; returns its time in ms and appends each unit's.
double SizeRun::wait_batch(int count) {
  const int last = timed_per_unit() ? count : 1;
  wait_with_watchdog(res_.marks[last].get(), info_.uses_nccl ? res_.nccl.get() : nullptr,
                     o_.timeout_s, label());
  float ms = 0;
  PB_CUDA(cudaEventElapsedTime(&ms, res_.marks[0].get(), res_.marks[last].get()));
  if (timed_per_unit() && !hang_here_) {
    for (int u = 0; u < count; ++u) {
      float unit = 0;
      PB_CUDA(cudaEventElapsedTime(&unit, res_.marks[u].get(), res_.marks[u + 1].get()));
      unit_ms_.push_back(static_cast<double>(unit));
    }
  }
  return ms;
}

// -z 1 / -z 2 (nccl-tests' blocking modes): the host waits for each operation (and with 1, every
// rank meets after it). The figure includes those waits: not a link figure, never judged.
void SizeRun::run_blocking() {
  const auto st = res_.stream.get();
  const int total = use_graph_ ? replays_ : iters_;
  auto guarded = [&](auto&& f) {
    try {
      if (worker() && rep_.ok()) f();
    } catch (const std::exception& e) {
      record_failure(e);
    }
  };
  guarded([&] { PB_CUDA(cudaEventRecord(res_.marks[0].get(), st)); });
  barrier(res_.rank->world);
  for (int u = 0; u < total; ++u) {
    guarded([&] {
      if (use_graph_) {
        graph_.launch(st);
      } else {
        m_.enqueue(ctx_);
      }
      PB_CUDA(cudaEventRecord(res_.done.get(), st));
      wait_with_watchdog(res_.done.get(), info_.uses_nccl ? res_.nccl.get() : nullptr, o_.timeout_s,
                         label());
    });
    if (o_.blocking == 1) barrier(res_.rank->world);
  }
  guarded([&] {
    PB_CUDA(cudaEventRecord(res_.marks[1].get(), st));
    PB_CUDA(cudaEventSynchronize(res_.marks[1].get()));
    float ms = 0;
    PB_CUDA(cudaEventElapsedTime(&ms, res_.marks[0].get(), res_.marks[1].get()));
    rep_.elapsed_ms = ms;
  });
}

void SizeRun::run_batches() {
  if (o_.blocking > 0) {
    run_blocking();
    return;
  }
  const int total = use_graph_ ? replays_ : iters_;
  const int per_batch = units_per_batch();
  double elapsed_ms = 0;
  unit_ms_.clear();
  for (int first = 0; first < total; first += per_batch) {  // the same count on every rank
    const int count = std::min(per_batch, total - first);
    try {
      if (worker() && rep_.ok()) enqueue_batch(first, count);
    } catch (const std::exception& e) {
      record_failure(e);
    }
    barrier(res_.rank->world);
    release_gate();
    try {
      if (worker() && rep_.ok()) elapsed_ms += wait_batch(count);
    } catch (const std::exception& e) {
      record_failure(e);
    }
    if (hang_here_) break;
  }
  if (worker() && rep_.ok()) rep_.elapsed_ms = elapsed_ms;
}

void SizeRun::release_gate() {
  ++res_.gate_epoch;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  *static_cast<volatile std::uint32_t*>(res_.gate.host()) = res_.gate_epoch;
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

void SizeRun::check_sample(int sample) {
  try {
    if (!active() || !rep_.ok()) return;
    const auto st = res_.stream.get();
    const auto s = static_cast<std::uint32_t>(sample);
    auto* wrong_dev = static_cast<unsigned long long*>(res_.scratch.get());
    std::uint64_t elements = 0;
    if (o_.check && m_.data_mode() == DataMode::kCollective) {
      const CollectiveLayout l = m_.collective_layout(ctx_);
      void* outbuf = l.in_place ? ctx_.local.src : ctx_.local.dst;
      const std::size_t out_bytes = l.recv_elems * type_size(ctx_.dtype);
      if (corrupt_here_ && out_bytes >= 4)
        PB_CUDA(kernels::corrupt_one_word(st, outbuf, out_bytes));
      if (l.recv_elems > 0) {
        PB_CUDA(kernels::check_collective_output(st, outbuf, l.recv_elems, collective_data(l, s),
                                                 wrong_dev));
      }
      elements += l.recv_elems;
    } else if (o_.check && m_.data_mode() == DataMode::kBytes) {
      m_.before_check(ctx_);
      for (const auto& f : mine_->flows) {
        if (f.to != me_) continue;
        if (corrupt_here_) PB_CUDA(kernels::corrupt_one_word(st, ctx_.local.dst, bytes_));
        const std::uint64_t seed = pattern_seed(f.from, bytes_, s, salt_);
        PB_CUDA(kernels::check_pattern(st, ctx_.local.dst, bytes_, seed, wrong_dev));
        elements += bytes_ / 4 + bytes_ % 4;
      }
    }
    unsigned long long wrong = 0;
    unsigned int gate_timeouts = 0;
    PB_CUDA(cudaMemcpyAsync(&wrong, wrong_dev, sizeof(wrong), cudaMemcpyDeviceToHost, st));
    PB_CUDA(cudaMemcpyAsync(&gate_timeouts, ctx_.counters, sizeof(gate_timeouts),
                            cudaMemcpyDeviceToHost, st));
    PB_CUDA(cudaStreamSynchronize(st));
    const CheckCounts extra = m_.after_sample(ctx_);
    rep_.wrong = wrong + extra.wrong;
    rep_.checked = elements + extra.elements;
    rep_.gate_timeouts = static_cast<int>(gate_timeouts);
    if (gate_timeouts > 0) {
      // The timed work started when the gate gave up, not when every rank was ready: the
      // figure would mix launch gaps into the transfer. Not a measurement.
      rep_.fail(RankStatus::kError, res_.rank->where() + ": " + label() +
                                        ": the start gate opened by its timeout, not by the "
                                        "host; sample discarded");
    }
  } catch (const std::exception& e) {
    record_failure(e);
  }
}

void SizeRun::record_sample(const std::vector<RankReport>& all) {
  const double per = static_cast<double>(iters_) * replays_ * transfers_;
  for (std::size_t i = 0; i < pairs_.size(); ++i) {
    const auto& p = pairs_[i];
    if (p.failed) continue;
    // The time over the working ranks, by -a (default: the slowest rank's).
    std::vector<double> worker_ms;
    for (int q : p.workers) worker_ms.push_back(all[q].elapsed_ms);
    tally_[i].times.push_back(over_ranks(worker_ms, o_.average) * 1e-3 / per);
    std::vector<double> dirs;
    for (const auto& f : p.flows) dirs.push_back(all[f.issuer].elapsed_ms * 1e-3 / per);
    tally_[i].dir_times.push_back(dirs);
    double enqueue = 0;
    for (int q : p.workers) enqueue = std::max(enqueue, all[q].enqueue_us);
    tally_[i].enqueue_us.push_back(enqueue);
  }
}

// The data check of every sample counts, the per-iteration one too.
void SizeRun::record_check(const std::vector<RankReport>& all) {
  for (std::size_t i = 0; i < pairs_.size(); ++i) {
    if (pairs_[i].failed) continue;
    for (int q : pairs_[i].ranks) {
      tally_[i].wrong += all[q].wrong;
      tally_[i].checked += all[q].checked;
    }
  }
}

// Each unit's time, the slowest worker's per unit, as the time of one transfer (us).
void SizeRun::record_units() {
  std::string mine;
  if (worker() && !unit_ms_.empty())
    mine.assign(reinterpret_cast<const char*>(unit_ms_.data()), unit_ms_.size() * sizeof(double));
  const auto all = allgather_strings(res_.rank->world, mine);  // collective: every rank
  const double per_unit = static_cast<double>(use_graph_ ? iters_ : 1) * transfers_;
  for (std::size_t i = 0; i < pairs_.size(); ++i) {
    const auto& p = pairs_[i];
    if (p.failed) continue;
    std::vector<double> slowest;
    for (int q : p.workers) {
      const auto& bytes = all[static_cast<std::size_t>(q)];
      const std::size_t n = bytes.size() / sizeof(double);
      if (slowest.empty()) slowest.assign(n, 0);
      if (n != slowest.size()) continue;  // a worker that failed this sample
      for (std::size_t u = 0; u < n; ++u) {
        double ms = 0;
        std::memcpy(&ms, bytes.data() + u * sizeof(double), sizeof(double));
        slowest[u] = std::max(slowest[u], ms);
      }
    }
    for (double ms : slowest) tally_[i].iteration_us.push_back(ms * 1e3 / per_unit);
  }
}

// What was in the way while this size ran, on every rank's GPU, into each pair's tally.
void SizeRun::gather_interference() {
  std::string mine;
  if (res_.monitor && res_.monitor->watching())
    mine = to_json(res_.monitor->case_window(t0_s_)).dump();
  const auto all = allgather_strings(res_.rank->world, mine);  // collective: every rank
  for (std::size_t i = 0; i < pairs_.size(); ++i) {
    std::vector<GpuInterference> seen;
    bool watched = true;
    for (int q : pairs_[i].ranks) {
      const auto& s = all[static_cast<std::size_t>(q)];
      if (s.empty()) {
        watched = false;
        continue;
      }
      const auto g = gpu_interference_from(JsonIn(nlohmann::json::parse(s), "rank report"));
      if (g.contended() || g.throttled()) seen.push_back(g);
    }
    if (watched) tally_[i].interference = seen;
  }
}

// ---- NVLink counters around the whole sample loop: which link carried the copies.

void SizeRun::count_link_traffic(bool before) {
  if (!count_link_ || !active()) return;
  const Nvml& nvml = *res_.nvml;
  const auto& bus = res_.bus_id_of_rank;
  Nvml::Traffic src, dst;
  if (auto d = nvml.device_by_pci(bus[mine_->pair.src])) src = nvml.nvlink_traffic(*d);
  if (auto d = nvml.device_by_pci(bus[mine_->pair.dst])) dst = nvml.nvlink_traffic(*d);
  if (before) {
    before_src_ = src;
    before_dst_ = dst;
    return;
  }
  if (before_src_.tx_bytes && src.tx_bytes) rep_.nvl_tx = *src.tx_bytes - *before_src_.tx_bytes;
  if (before_dst_.rx_bytes && dst.rx_bytes) rep_.nvl_rx = *dst.rx_bytes - *before_dst_.rx_bytes;
  if (rep_.nvl_tx < 0 || rep_.nvl_rx < 0) {
    std::snprintf(rep_.message, sizeof(rep_.message), "%s",
                  (src.note.empty() ? dst.note : src.note).c_str());
  }
}

void SizeRun::gather_link_traffic() {
  if (!counts_link_traffic(info_)) return;
  const auto all = res_.gather(rep_);  // collective: every rank of the step takes part
  rep_ = RankReport{};
  for (std::size_t i = 0; i < pairs_.size(); ++i) {
    if (pairs_[i].all_ranks) continue;
    const auto& r = all[pairs_[i].pair.src];
    tally_[i].nvl_tx = r.nvl_tx;
    tally_[i].nvl_rx = r.nvl_rx;
    tally_[i].counter_note = r.message;
  }
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
