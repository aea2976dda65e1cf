#include "gpu/engine.h"

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>

#include "core/bandwidth.h"
#include "core/sizes.h"
#include "gpu/check.h"
#include "pattern_formula.h"
#include "pattern_kernels.h"
#include "sync_kernels.h"

namespace peerbench::gpu {
namespace {

constexpr int kStatusOk = 0;
constexpr int kStatusError = 1;
constexpr int kStatusTimeout = 2;
constexpr int kStatusFatal = 3;
constexpr int kStatusStuck = 4;  // fatal, and GPU work may still be running

std::uint32_t name_salt(const std::string& s) {
  std::uint32_t h = 2166136261u;  // FNV-1a
  for (unsigned char c : s) h = (h ^ c) * 16777619u;
  return h;
}

bool contains(const std::vector<int>& v, int x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

// Fixed-size record every rank contributes after each phase, gathered to all ranks.
struct Engine::RankReport {
  double elapsed_ms = -1;
  double nvl_tx = -1;
  double nvl_rx = -1;
  unsigned long long wrong = 0;
  unsigned long long checked = 0;
  int gate_timeouts = 0;
  int status = kStatusOk;
  char message[472] = {0};

  void fail(int st, const std::string& m) {
    if (status != kStatusOk && status >= st) return;  // keep the first, most severe
    status = st;
    std::snprintf(message, sizeof(message), "%s", m.c_str());
  }
};

struct Engine::PairState {
  PlannedPair pair;
  bool all_ranks = false;
  std::vector<int> ranks;  // members
  std::vector<int> workers;
  std::vector<Flow> flows;
  bool failed = false;
  ResultStatus fail_status = ResultStatus::kError;
  std::string reason;
};

std::unique_ptr<EngineResources> EngineResources::create(RankContext& rank, const RunOptions& opts,
                                                         std::size_t buffer_bytes,
                                                         int multiprocessors) {
  auto r = std::make_unique<EngineResources>();
  r->rank = &rank;
  r->opts = &opts;
  r->stream = Stream::create();
  r->start = Event::create();
  r->stop = Event::create();
  r->done = Event::create();
  r->src = DeviceBuffer::allocate(buffer_bytes);
  r->dst = DeviceBuffer::allocate(buffer_bytes);
  r->signal = DeviceBuffer::allocate(4096);
  r->scratch = DeviceBuffer::allocate(256);
  PB_CUDA(cudaMemset(r->signal.get(), 0, 4096));
  PB_CUDA(cudaMemset(r->scratch.get(), 0, 256));
  r->gate = MappedHostBuffer::allocate(64);
  std::memset(r->gate.host(), 0, 64);
  r->copy_launch = kernels::copy_launch_for(multiprocessors);
  cudaIpcMemHandle_t mine[3];
  PB_CUDA(cudaIpcGetMemHandle(&mine[0], r->src.get()));
  PB_CUDA(cudaIpcGetMemHandle(&mine[1], r->dst.get()));
  PB_CUDA(cudaIpcGetMemHandle(&mine[2], r->signal.get()));
  const auto all = allgather_bytes(rank.world, mine, sizeof(mine));
  r->ipc.resize(3 * static_cast<std::size_t>(rank.size));
  std::memcpy(r->ipc.data(), all.data(), all.size());
  return r;
}

EngineResources::~EngineResources() {
  // Close mappings before the peers free their buffers; release peer access after that.
  mapped_.clear();
  access.clear();
}

BufferSet EngineResources::peer_buffers(int peer) {
  auto it = mapped_.find(peer);
  if (it == mapped_.end()) {
    std::vector<IpcMapping> maps;
    for (int k = 0; k < 3; ++k)
      maps.push_back(IpcMapping::open(ipc[3 * static_cast<std::size_t>(peer) + k]));
    it = mapped_.emplace(peer, std::move(maps)).first;
  }
  return {it->second[0].get(), it->second[1].get(), it->second[2].get()};
}

StepContext Engine::make_context(const Method& m, int src, int dst, std::size_t bytes) {
  const RankContext& rk = *res_.rank;
  StepContext c(rk, *res_.opts);
  c.stream = res_.stream.get();
  c.src = src;
  c.dst = dst;
  c.bytes = bytes;
  c.local = {res_.src.get(), res_.dst.get(), res_.signal.get()};
  c.copy_launch = res_.copy_launch;
  c.nccl = res_.nccl.get();
  c.nccl_reason = res_.nccl_reason;
  c.staging = res_.staging.get();
  c.staging_reason = res_.staging_reason;
  c.counters = reinterpret_cast<unsigned int*>(static_cast<char*>(res_.scratch.get()) + 8);
  c.timeout_ns = static_cast<std::uint64_t>(res_.opts->timeout_s * 0.5e9);
  c.sequence = &sequence_;
  if (src >= 0 && dst >= 0 && (rk.rank == src || rk.rank == dst)) {
    const int other = rk.rank == src ? dst : src;
    c.peer_device = rk.device_of_rank[other];
    if (!rk.same_physical_host(other) || !rk.same_host(other)) {
      c.peer_reason = "ranks " + std::to_string(src) + " and " + std::to_string(dst) +
                      " are on different hosts";
    } else if (c.peer_device == rk.device) {
      c.same_gpu = true;
      c.peer_usable = true;
    } else {
      auto a = res_.access.find(other);
      if (a == res_.access.end()) {
        c.peer_reason = "peer access to rank " + std::to_string(other) + " was not set up";
      } else if (!a->second.usable()) {
        c.peer_reason = "p2p: " + to_string(a->second.state()) + " from GPU " +
                        std::to_string(rk.device) + " to GPU " + std::to_string(c.peer_device) +
                        (a->second.error().empty() ? "" : " (" + a->second.error() + ")");
      } else {
        c.peer_usable = true;
      }
    }
    if (c.peer_usable && m.info().needs_p2p) {
      try {
        c.peer = res_.peer_buffers(other);
      } catch (const CudaError& e) {
        c.peer_usable = false;
        c.peer_reason = std::string("cannot map the peer's buffers: ") + e.what();
      }
    }
  }
  return c;
}

std::vector<Engine::RankReport> Engine::gather(const RankReport& mine) {
  const auto bytes = allgather_bytes(res_.rank->world, &mine, sizeof(RankReport));
  std::vector<RankReport> all(static_cast<std::size_t>(res_.rank->size));
  std::memcpy(all.data(), bytes.data(), bytes.size());
  return all;
}

void Engine::release_gate() {
  ++res_.gate_epoch;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  *static_cast<volatile std::uint32_t*>(res_.gate.host()) = res_.gate_epoch;
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

std::vector<Result> Engine::run_step(Method& m, const PlanStep& step) {
  const RankContext& rk = *res_.rank;
  const auto& fault = res_.opts->fault;
  if (fault.kind == "die" && fault.method == m.info().name && fault.rank == rk.rank) {
    std::fprintf(stderr, "peerbench: fault injection: rank %d kills itself at %s\n", rk.rank,
                 m.info().name.c_str());
    std::fflush(stderr);
    ::raise(SIGKILL);
  }
  std::vector<PairState> pairs;
  if (step.all_ranks) {
    PairState p;
    p.all_ranks = true;
    for (int r = 0; r < rk.size; ++r) p.ranks.push_back(r);
    p.workers = p.ranks;
    pairs.push_back(p);
  } else {
    for (const auto& pp : step.pairs) {
      PairState p;
      p.pair = pp;
      p.ranks = {pp.src, pp.dst};
      p.workers = m.workers(pp.src, pp.dst);
      p.flows = m.flows(pp.src, pp.dst);
      if (!pp.applicable) {
        p.failed = true;
        p.fail_status = ResultStatus::kNotApplicable;
        p.reason = pp.reason;
      }
      pairs.push_back(p);
    }
  }
  std::vector<Result> out;
  for (const auto bytes : step.sizes) {
    // Pairs that failed at an earlier size stay failed; not-applicable ones stay that way.
    run_size(m, step, bytes, pairs, out);
  }
  return out;
}

void Engine::run_size(Method& m, const PlanStep& step, std::size_t bytes,
                      std::vector<PairState>& pairs, std::vector<Result>& out) {
  const RankContext& rk = *res_.rank;
  const RunOptions& o = *res_.opts;
  const MethodInfo& info = m.info();
  const int me = rk.rank;

  // Availability can depend on the size (all-reduce needs whole floats): ask again each size.
  for (auto& p : pairs) {
    if (p.failed && p.fail_status == ResultStatus::kSkipped) {
      p.failed = false;
      p.reason.clear();
    }
  }
  // This rank's pair in the step (pairs of a step are disjoint).
  PairState* mine = nullptr;
  for (auto& p : pairs) {
    if (contains(p.ranks, me)) mine = &p;
  }
  auto is_worker = [&](const PairState* p) { return p && !p->failed && contains(p->workers, me); };
  const int src = mine && !mine->all_ranks ? mine->pair.src : -1;
  const int dst = mine && !mine->all_ranks ? mine->pair.dst : -1;
  StepContext ctx = make_context(m, src, dst, bytes);

  std::vector<int> skipped_before(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) skipped_before[i] = pairs[i].failed;

  // Gathers one phase's reports and marks pairs whose members failed. Fatal reports end the run.
  auto settle = [&](RankReport& r, const char* phase) -> std::vector<RankReport> {
    auto all = gather(r);
    std::string fatal;
    bool nccl_failed = false;
    bool stuck = false;
    for (int q = 0; q < rk.size; ++q) {
      if ((all[q].status == kStatusFatal || all[q].status == kStatusStuck) && fatal.empty())
        fatal = all[q].message;
      stuck = stuck || all[q].status == kStatusStuck;
      if (all[q].status != kStatusOk && info.uses_nccl) nccl_failed = true;
    }
    for (auto& p : pairs) {
      if (p.failed) continue;
      for (int q : p.ranks) {
        if (all[q].status != kStatusOk) {
          p.failed = true;
          p.fail_status =
              all[q].status == kStatusTimeout ? ResultStatus::kTimeout : ResultStatus::kError;
          p.reason = std::string(phase) + ": " + all[q].message;
          break;
        }
      }
    }
    if (nccl_failed && res_.nccl && !res_.nccl->aborted()) {
      // A failed NCCL operation leaves the communicator unusable; abort it on every rank.
      res_.nccl->abort();
      if (fatal.empty()) {
        for (int q = 0; q < rk.size; ++q) {
          if (all[q].status != kStatusOk) {
            fatal = all[q].message;
            break;
          }
        }
      }
      fatal += " (NCCL communicator aborted)";
    }
    if (!fatal.empty()) {
      // Record what this size got before stopping.
      for (auto& p : pairs) {
        if (!p.failed) {
          p.failed = true;
          p.fail_status = ResultStatus::kNotRun;
          p.reason = "not run: " + fatal;
        }
      }
      throw FatalRunError(info.name + " at " + format_size(bytes) + ": " + fatal, stuck);
    }
    r = RankReport{};
    return all;
  };
  auto record_failure = [&](RankReport& r, const std::exception& e) {
    const std::string msg = rk.where() + ": " + e.what();
    if (dynamic_cast<const WatchdogTimeout*>(&e)) {
      // Stuck copy engines or NCCL: nothing after this can trust the stream.
      r.fail(kStatusStuck, msg);
    } else if (dynamic_cast<const PeerTimeout*>(&e)) {
      r.fail(info.uses_nccl ? kStatusFatal : kStatusTimeout, msg);
    } else if (const auto* ce = dynamic_cast<const CudaError*>(&e); ce && ce->sticky()) {
      r.fail(kStatusStuck, msg);
    } else if (dynamic_cast<const NcclError*>(&e)) {
      r.fail(kStatusFatal, msg);
    } else {
      r.fail(kStatusError, msg);
    }
  };

  RankReport rep;
  // 1. Can the method run for this pair? Workers are asked.
  if (is_worker(mine)) {
    try {
      const std::string why = m.unavailable(ctx);
      if (!why.empty()) rep.fail(kStatusError, why);
    } catch (const std::exception& e) {
      rep.fail(kStatusError, rk.where() + ": " + e.what());
    }
  }
  {
    auto all = gather(rep);
    for (auto& p : pairs) {
      if (p.failed) continue;
      for (int q : p.workers) {
        if (all[q].status != kStatusOk) {
          p.failed = true;
          p.fail_status = ResultStatus::kSkipped;
          p.reason = all[q].message;
          break;
        }
      }
    }
    rep = RankReport{};
  }
  const bool any_running =
      std::any_of(pairs.begin(), pairs.end(), [](const PairState& p) { return !p.failed; });
  const int iters = m.iterations_per_sample(o);
  const bool use_graph = o.cudagraph_replays > 0 && info.graph_capturable;
  const int replays = use_graph ? o.cudagraph_replays : 1;
  const double transfers = m.transfers_per_iteration(o);
  const std::uint32_t salt = name_salt(info.name);
  const bool corrupt_here =
      o.fault.kind == "corrupt" && o.fault.method == info.name && o.fault.rank == me;
  const bool hang_here =
      o.fault.kind == "hang" && o.fault.method == info.name && o.fault.rank == me;
  const double watchdog_s = o.timeout_s;

  // What the samples of this size gathered, per pair of the step.
  struct Tally {
    std::vector<double> times;                   // per sample: seconds per transfer
    std::vector<std::vector<double>> dir_times;  // per sample, per flow
    unsigned long long wrong = 0;
    unsigned long long checked = 0;
    int gate_timeouts = 0;  // samples whose gate opened by timeout
    double nvl_tx = -1;     // NVLink counter deltas, -1 unknown
    double nvl_rx = -1;
    std::string counter_note;
  };
  std::vector<Tally> tally(pairs.size());
  const bool active = mine && !mine->failed;
  // Copy-engine bandwidth methods one way: NVLink counters around them prove the path.
  const bool ce_one_way =
      info.family == "ce" && info.metric == Metric::kBandwidth && !info.bidirectional;
  const bool count_link =
      ce_one_way && res_.nvml && res_.nvml->available() && mine && !mine->all_ranks && me == src;
  Nvml::Traffic before_src, before_dst;

  std::string fatal_error;
  bool fatal_stuck = false;
  if (any_running) try {
      // 2. Prepare and warm up.
      try {
        if (active) {
          PB_CUDA(cudaMemsetAsync(res_.scratch.get(), 0, 64, res_.stream.get()));
          m.prepare(ctx);
          PB_CUDA(cudaStreamSynchronize(res_.stream.get()));
        }
      } catch (const std::exception& e) {
        record_failure(rep, e);
      }
      settle(rep, "prepare");
      barrier(rk.world);
      try {
        if (is_worker(mine) && o.warmup_iters > 0) {
          for (int i = 0; i < o.warmup_iters; ++i) m.enqueue(ctx);
          PB_CUDA(cudaEventRecord(res_.done.get(), res_.stream.get()));
          wait_with_watchdog(res_.done.get(), info.uses_nccl ? res_.nccl.get() : nullptr,
                             watchdog_s, info.name + " warm-up at " + format_size(bytes));
        }
      } catch (const std::exception& e) {
        record_failure(rep, e);
      }
      settle(rep, "warm-up");

      // 3. Optional CUDA graph of one sample's iterations.
      GraphExec graph;
      try {
        if (is_worker(mine) && use_graph) {
          PB_CUDA(cudaStreamBeginCapture(res_.stream.get(), cudaStreamCaptureModeThreadLocal));
          try {
            for (int i = 0; i < iters; ++i) m.enqueue(ctx);
          } catch (...) {
            cudaGraph_t g = nullptr;
            (void)cudaStreamEndCapture(res_.stream.get(), &g);
            if (g) (void)cudaGraphDestroy(g);
            (void)cudaGetLastError();
            throw;
          }
          graph = GraphExec::end_capture(res_.stream.get());
        }
      } catch (const std::exception& e) {
        record_failure(rep, e);
      }
      settle(rep, "graph capture");

      if (count_link && active) {
        if (auto d = res_.nvml->device_by_pci(res_.bus_id_of_rank[src]))
          before_src = res_.nvml->nvlink_traffic(*d);
        if (auto d = res_.nvml->device_by_pci(res_.bus_id_of_rank[dst]))
          before_dst = res_.nvml->nvlink_traffic(*d);
      }

      // 4. Samples.
      for (int s = 0; s < o.samples; ++s) {
        const bool act = mine && !mine->failed;
        const bool work = is_worker(mine);
        try {
          if (act) {
            const auto st = res_.stream.get();
            if (m.data_mode() == DataMode::kAllReduceSum) {
              const std::uint64_t seed =
                  pattern_seed(0, bytes, static_cast<std::uint32_t>(s), salt);
              PB_CUDA(kernels::fill_allreduce_input(st, static_cast<float*>(ctx.local.src),
                                                    bytes / 4, seed, me));
              if (!o.allreduce_inplace)
                PB_CUDA(kernels::poison_float(st, static_cast<float*>(ctx.local.dst), bytes / 4));
            } else if (m.data_mode() == DataMode::kBytes) {
              for (const auto& f : mine->flows) {
                const std::uint64_t seed =
                    pattern_seed(f.from, bytes, static_cast<std::uint32_t>(s), salt);
                if (f.from == me) PB_CUDA(kernels::fill_pattern(st, ctx.local.src, bytes, seed));
                if (f.to == me) PB_CUDA(kernels::poison(st, ctx.local.dst, bytes, seed));
              }
            }
            PB_CUDA(cudaMemsetAsync(res_.scratch.get(), 0, 64, st));
            m.before_sample(ctx);
            PB_CUDA(cudaStreamSynchronize(st));
          }
        } catch (const std::exception& e) {
          record_failure(rep, e);
        }
        barrier(rk.world);
        try {
          if (work) {
            const auto st = res_.stream.get();
            if (m.use_start_gate()) {
              const std::uint64_t gate_ns =
                  static_cast<std::uint64_t>(std::min(5.0, 0.5 * o.timeout_s) * 1e9);
              PB_CUDA(kernels::gate_wait(
                  st, static_cast<const volatile std::uint32_t*>(res_.gate.device()),
                  res_.gate_epoch + 1, gate_ns, ctx.counters));
            }
            PB_CUDA(cudaEventRecord(res_.start.get(), st));
            if (hang_here && info.uses_nccl) {
              // Test fault: a peer that never posts its part (the other side's NCCL op waits).
            } else if (hang_here) {
              // Test fault: work that never finishes by itself (longer than the watchdog).
              PB_CUDA(kernels::gate_wait(
                  st, static_cast<const volatile std::uint32_t*>(res_.gate.device()), 0xFFFFFFFFu,
                  static_cast<std::uint64_t>(4 * o.timeout_s * 1e9), ctx.counters + 3));
            } else if (use_graph) {
              for (int r = 0; r < replays; ++r) graph.launch(st);
            } else {
              for (int i = 0; i < iters; ++i) m.enqueue(ctx);
            }
            PB_CUDA(cudaEventRecord(res_.stop.get(), st));
          }
        } catch (const std::exception& e) {
          record_failure(rep, e);
        }
        barrier(rk.world);
        release_gate();
        try {
          if (work && rep.status == kStatusOk) {
            wait_with_watchdog(
                res_.stop.get(), info.uses_nccl ? res_.nccl.get() : nullptr, watchdog_s,
                info.name + " " +
                    (src >= 0 ? std::to_string(src) + "->" + std::to_string(dst) : "all ranks") +
                    " at " + format_size(bytes));
            float ms = 0;
            PB_CUDA(cudaEventElapsedTime(&ms, res_.start.get(), res_.stop.get()));
            rep.elapsed_ms = ms;
          }
        } catch (const std::exception& e) {
          record_failure(rep, e);
        }
        // Destinations check only after every worker's transfer is complete: a non-worker
        // destination (ce-write's, sm-write's) would otherwise race the incoming data.
        barrier(rk.world);
        try {
          if (act && rep.status == kStatusOk) {
            const auto st = res_.stream.get();
            auto* wrong_dev = static_cast<unsigned long long*>(res_.scratch.get());
            std::uint64_t elements = 0;
            if (o.check && m.data_mode() == DataMode::kAllReduceSum) {
              float* outbuf =
                  static_cast<float*>(o.allreduce_inplace ? ctx.local.src : ctx.local.dst);
              if (corrupt_here) PB_CUDA(kernels::corrupt_one_word(st, outbuf, bytes));
              const std::uint64_t seed =
                  pattern_seed(0, bytes, static_cast<std::uint32_t>(s), salt);
              PB_CUDA(
                  kernels::check_allreduce_sum(st, outbuf, bytes / 4, seed, rk.size, wrong_dev));
              elements += bytes / 4;
            } else if (o.check && m.data_mode() == DataMode::kBytes) {
              for (const auto& f : mine->flows) {
                if (f.to != me) continue;
                if (corrupt_here) PB_CUDA(kernels::corrupt_one_word(st, ctx.local.dst, bytes));
                const std::uint64_t seed =
                    pattern_seed(f.from, bytes, static_cast<std::uint32_t>(s), salt);
                PB_CUDA(kernels::check_pattern(st, ctx.local.dst, bytes, seed, wrong_dev));
                elements += bytes / 4 + bytes % 4;
              }
            }
            unsigned long long wrong = 0;
            unsigned int gate_to = 0;
            PB_CUDA(cudaMemcpyAsync(&wrong, wrong_dev, sizeof(wrong), cudaMemcpyDeviceToHost, st));
            PB_CUDA(cudaMemcpyAsync(&gate_to, ctx.counters, sizeof(gate_to), cudaMemcpyDeviceToHost,
                                    st));
            PB_CUDA(cudaStreamSynchronize(st));
            const CheckCounts extra = m.after_sample(ctx);
            rep.wrong = wrong + extra.wrong;
            rep.checked = elements + extra.elements;
            rep.gate_timeouts = static_cast<int>(gate_to);
          }
        } catch (const std::exception& e) {
          record_failure(rep, e);
        }
        const auto all = settle(rep, "sample");
        for (std::size_t i = 0; i < pairs.size(); ++i) {
          auto& p = pairs[i];
          if (p.failed) continue;
          double slowest = 0;
          for (int q : p.workers) slowest = std::max(slowest, all[q].elapsed_ms);
          tally[i].times.push_back(slowest * 1e-3 /
                                   (static_cast<double>(iters) * replays * transfers));
          std::vector<double> dirs;
          for (const auto& f : p.flows) {
            dirs.push_back(all[f.issuer].elapsed_ms * 1e-3 /
                           (static_cast<double>(iters) * replays * transfers));
          }
          tally[i].dir_times.push_back(dirs);
          int gate_to = 0;
          for (int q : p.ranks) {
            tally[i].wrong += all[q].wrong;
            tally[i].checked += all[q].checked;
            gate_to = std::max(gate_to, all[q].gate_timeouts);
          }
          if (gate_to) ++tally[i].gate_timeouts;
        }
      }

      // NVLink counters around the whole sample loop: proof of which link carried the copies.
      RankReport link_rep;
      if (count_link && active) {
        Nvml::Traffic after_src, after_dst;
        if (auto d = res_.nvml->device_by_pci(res_.bus_id_of_rank[src]))
          after_src = res_.nvml->nvlink_traffic(*d);
        if (auto d = res_.nvml->device_by_pci(res_.bus_id_of_rank[dst]))
          after_dst = res_.nvml->nvlink_traffic(*d);
        if (before_src.tx_bytes && after_src.tx_bytes)
          link_rep.nvl_tx = *after_src.tx_bytes - *before_src.tx_bytes;
        if (before_dst.rx_bytes && after_dst.rx_bytes)
          link_rep.nvl_rx = *after_dst.rx_bytes - *before_dst.rx_bytes;
        if (link_rep.nvl_tx < 0 || link_rep.nvl_rx < 0) {
          std::snprintf(link_rep.message, sizeof(link_rep.message), "%s",
                        (after_src.note.empty() ? after_dst.note : after_src.note).c_str());
        }
      }
      if (ce_one_way) {
        const auto all = gather(link_rep);
        for (std::size_t i = 0; i < pairs.size(); ++i) {
          if (pairs[i].all_ranks) continue;
          const auto& r = all[pairs[i].pair.src];
          tally[i].nvl_tx = r.nvl_tx;
          tally[i].nvl_rx = r.nvl_rx;
          tally[i].counter_note = r.message;
        }
      }
    } catch (const FatalRunError& e) {
      fatal_error = e.what();  // results of this size are recorded below, then the run stops
      fatal_stuck = e.gpu_stuck();
    }

  // 5. Results, identical on every rank.
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    auto& p = pairs[i];
    Result r;
    r.method = info.name;
    r.src = p.all_ranks ? -1 : p.pair.src;
    r.dst = p.all_ranks ? -1 : p.pair.dst;
    r.bytes = bytes;
    r.warmup_iters = o.warmup_iters;
    r.iters = iters;
    r.samples = o.samples;
    r.graph_replays = use_graph ? replays : 0;
    r.round = step.round;
    r.concurrent_pairs = step.all_ranks ? 1 : std::max(1, step.running_pairs());
    if (p.failed || tally[i].times.empty()) {
      r.status = p.failed ? p.fail_status : ResultStatus::kNotRun;
      r.reason = p.reason;
      if (!skipped_before[i] && p.fail_status != ResultStatus::kSkipped &&
          p.fail_status != ResultStatus::kNotApplicable) {
        // Failed at this size; later sizes of this step report why.
        p.reason = "not run: an earlier size failed (" + p.reason + ")";
        p.fail_status = ResultStatus::kNotRun;
      }
    } else {
      r.status = ResultStatus::kOk;
      const double moved = static_cast<double>(bytes) * std::max<std::size_t>(1, p.flows.size());
      std::vector<double> us, gbps;
      for (double t : tally[i].times) {
        us.push_back(t * 1e6);
        gbps.push_back(algbw_gbps(moved, t));
      }
      r.time_us = summarize(us);
      r.sample_time_us = us;
      r.algbw_gbps = summarize(gbps);
      const int n = p.all_ranks ? rk.size : 2;
      std::vector<double> bus;
      for (double g : gbps) bus.push_back(g * busbw_factor(info.collective, n));
      r.busbw_gbps = summarize(bus);
      if (p.flows.size() > 1) {
        for (std::size_t f = 0; f < p.flows.size(); ++f) {
          std::vector<double> t_us, bw;
          for (const auto& sample : tally[i].dir_times) {
            t_us.push_back(sample[f] * 1e6);
            bw.push_back(algbw_gbps(static_cast<double>(bytes), sample[f]));
          }
          r.directions.push_back({p.flows[f].from, p.flows[f].to, summarize(t_us), summarize(bw)});
        }
      }
      r.checked = tally[i].checked > 0;
      r.checked_elements = tally[i].checked;
      r.wrong = tally[i].wrong;
      r.gate_timeouts = tally[i].gate_timeouts;
      if (ce_one_way && !p.all_ranks) {
        LinkCounters lc;
        lc.source = "nvml-field-values";
        lc.payload_bytes = static_cast<double>(bytes) * iters * replays * o.samples;
        if (tally[i].nvl_tx >= 0) lc.src_tx_bytes = tally[i].nvl_tx;
        if (tally[i].nvl_rx >= 0) lc.dst_rx_bytes = tally[i].nvl_rx;
        lc.note = res_.nvml && res_.nvml->available() ? tally[i].counter_note : "NVML unavailable";
        if (step.running_pairs() > 1)
          lc.note += (lc.note.empty() ? "" : "; ") + std::string("other pairs ran at once");
        r.link_counters = lc;
      }
    }
    if (sink_) sink_(r);
    out.push_back(std::move(r));
  }
  if (!fatal_error.empty()) throw FatalRunError(fatal_error, fatal_stuck);
}

}  // namespace peerbench::gpu
