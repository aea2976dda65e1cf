// SizeRun's timed samples: each sample's inputs, the batches behind the start gate (or the
// blocking modes), and the events that time them.
#include <algorithm>
#include <atomic>
#include <chrono>

#include "collective_kernels.h"
#include "core/model/sizes.h"
#include "gpu/check.h"
#include "gpu/size_run.h"
#include "gpu/watchdog.h"
#include "pattern_formula.h"
#include "pattern_kernels.h"
#include "sync_kernels.h"

namespace peerbench::gpu {

// ---- The samples.

// The timed samples, then (-I 1, the default) one more with an event after every iteration: the
// per-iteration distribution (nccl-tests' -I). Events between small operations add about a
// microsecond to each on Hopper, so that sample gives the percentiles and never the headline.
void SizeRun::timed_samples() {
  const int extra = o_.per_iteration && m_.use_start_gate() && o_.blocking == 0 ? 1 : 0;
  for (int s = 0; s < o_.samples + extra; ++s) {
    per_unit_ = s == o_.samples;
    ++samples_run_;
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

// A graph of many operations (a quarter of the gate depth or more) streams its replays: the first
// behind the start gate, the rest launched while the GPU runs them, as nccl-tests' -G loop does.
// Each gate opening costs the ranks' skew in releasing it (about 20 us on 2 x H200): behind every
// 200-operation replay of 8 B that was 0.1 us per operation. A replay outlasts its launch many
// times over, so the host's rate stays out; enqueue_info still compares the two. Two replays are
// in flight at most, so a replay of up to the gate depth keeps the queue at 512 entries, about
// half of what went in on 2 x H200: with a stuck GPU the launch still returns and the watchdog,
// waiting on the replay before, ends the sample. Larger replays take one gate each. Every rank
// decides alike (no rank-local state), so the ranks' barriers match.
bool SizeRun::streams_graph() const {
  const int entries = iters_ * std::max(1, m_.launches_per_iteration());
  return use_graph_ && !per_unit_ && o_.blocking == 0 && m_.use_start_gate() && replays_ > 1 &&
         entries >= kGateDepth / 4 && entries <= kGateDepth;
}

// Replay u's end: marks[1..3] in turn. The host waits for replay u - 2 before launching u, so a
// mark is recorded again only after its last record completed, and the host never blocks inside
// a launch where the watchdog cannot see it.
cudaEvent_t SizeRun::replay_mark(int replay) const {
  return res_.marks[1 + static_cast<std::size_t>(replay % 3)].get();
}

void SizeRun::enqueue_batch(int first, int count) {
  const auto st = res_.stream.get();
  if (m_.use_start_gate()) {
    const auto gate_ns = static_cast<std::uint64_t>(std::min(5.0, 0.5 * o_.timeout_s) * 1e9);
    PB_CUDA(kernels::gate_wait(st, static_cast<const volatile std::uint32_t*>(res_.gate.device()),
                               res_.gate_epoch + 1, gate_ns,
                               ctx_.counter(DeviceCounter::kGateTimeouts)));
  }
  PB_CUDA(cudaEventRecord(res_.marks[0].get(), st));
  if (hang_here_) {
    // Test fault: work that never finishes by itself (longer than the watchdog). A hang fault on
    // NCCL is a peer that never posts its part: nothing is enqueued.
    if (!info_.uses_nccl) {
      PB_CUDA(kernels::gate_wait(st, static_cast<const volatile std::uint32_t*>(res_.gate.device()),
                                 0xFFFFFFFFu, static_cast<std::uint64_t>(4 * o_.timeout_s * 1e9),
                                 ctx_.counter(DeviceCounter::kHangFault)));
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
  if (!per_unit_) gate_openings_ = 0;
  if (streams_graph()) {
    run_streamed_graph();
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
    // Every rank walks every batch, the failed ones without work: the barriers stay matched (a
    // rank that left the loop early hung its peers in the next barrier).
  }
  if (worker() && rep_.ok()) rep_.elapsed_ms = elapsed_ms;
}

// The streamed graph sample: one gate opening, then replays 1.. launched at most two ahead of the
// GPU, each wait under the watchdog; timed from the gate to the last replay's end.
void SizeRun::run_streamed_graph() {
  const auto st = res_.stream.get();
  unit_ms_.clear();
  try {
    if (worker() && rep_.ok()) enqueue_batch(0, 1);  // the gate, marks[0], replay 0, marks[1]
  } catch (const std::exception& e) {
    record_failure(e);
  }
  barrier(res_.rank->world);
  release_gate();
  try {
    if (!worker() || !rep_.ok()) return;
    if (hang_here_) {
      rep_.elapsed_ms = wait_batch(1);  // the hang fault: the watchdog ends it
      return;
    }
    const NcclComm* comm = info_.uses_nccl ? res_.nccl.get() : nullptr;
    for (int u = 1; u < replays_; ++u) {
      if (u >= 2) wait_with_watchdog(replay_mark(u - 2), comm, o_.timeout_s, label());
      const auto t0 = std::chrono::steady_clock::now();
      graph_.launch(st);
      PB_CUDA(cudaEventRecord(replay_mark(u), st));
      rep_.enqueue_us +=
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    }
    wait_with_watchdog(replay_mark(replays_ - 1), comm, o_.timeout_s, label());
    float ms = 0;
    PB_CUDA(cudaEventElapsedTime(&ms, res_.marks[0].get(), replay_mark(replays_ - 1)));
    rep_.elapsed_ms = ms;
  } catch (const std::exception& e) {
    record_failure(e);
  }
}

void SizeRun::release_gate() {
  if (!per_unit_) ++gate_openings_;
  ++res_.gate_epoch;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  *static_cast<volatile std::uint32_t*>(res_.gate.host()) = res_.gate_epoch;
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

}  // namespace peerbench::gpu
