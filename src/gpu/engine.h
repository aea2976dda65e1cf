#pragma once
// The one measurement engine. For each (method, concurrent pairs, size) of the plan it runs the
// phases of size_run.h: it fills sources with a pattern and poisons destinations, holds every
// working stream behind a start gate, records events around `iters` back-to-back iterations the
// method enqueues (or a CUDA graph of them), releases the gate, waits under a watchdog, checks
// the data on the GPU, and turns the slowest working rank's time into statistics over samples.
// Every rank walks the same plan, so collectives stay matched even when a pair fails or is
// skipped.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "copy_kernels.h"
#include "core/model/results.h"
#include "core/plan/plan.h"
#include "gpu/cuda_raii.h"
#include "gpu/gpu_monitor.h"
#include "gpu/host_staging.h"
#include "gpu/method.h"
#include "gpu/nccl_buffers.h"
#include "gpu/nccl_comm.h"
#include "gpu/numa_host_buffer.h"
#include "gpu/nvml.h"
#include "gpu/peer_access.h"

namespace peerbench::gpu {

// Launch-queue entries the host may put behind the start gate. A stream whose head spins on a
// host flag accepts only so many launches before the launch call itself blocks, and then the
// gate can open only by its timeout (2 x H200: ~1000 NCCL operations went in, 4000 did not;
// shared/REFERENCE.md). A quarter of that keeps far from the edge; a sample of more is timed as
// several batches, each behind its own gate, or a graph of many operations streams its replays
// after one opening (size_run_samples.cpp).
constexpr int kGateDepth = 256;

// A failure that ends the run (sticky CUDA error, stuck GPU work, NCCL error): every rank
// throws it together once the engine has gathered the reports.
struct RankReport;
struct PairState;

class FatalRunError : public std::runtime_error {
 public:
  FatalRunError(const std::string& what, bool gpu_stuck)
      : std::runtime_error(what), gpu_stuck_(gpu_stuck) {}
  // GPU work may still be running (watchdog, sticky error): tearing down would block on it.
  bool gpu_stuck() const { return gpu_stuck_; }

 private:
  bool gpu_stuck_;
};

struct EngineResources {
  RankContext* rank = nullptr;
  const RunOptions* opts = nullptr;
  Stream stream;
  Event done;
  // Events of one batch: [0] after the start gate, [u + 1] after unit u (iterations or graph
  // replays; at most the gate depth per batch).
  std::vector<Event> marks;
  DeviceBuffer src, dst, signal;
  DeviceBuffer scratch;  // wrong count (u64) then four u32 counters
  MappedHostBuffer gate;
  std::uint32_t gate_epoch = 0;
  std::vector<cudaIpcMemHandle_t> ipc;  // src, dst, signal of every rank (this rank's alone
                                        // until exchange_ipc_handles)
  std::map<int, PeerAccess> access;     // peers on this host with another GPU
  std::unique_ptr<NcclComm> nccl;
  std::string nccl_reason;
  // -R 1/2: NCCL's own registered buffers for the NCCL methods; destroyed before `nccl` (members
  // go in reverse order).
  std::unique_ptr<NcclBuffers> nccl_buffers;
  std::unique_ptr<HostStaging> staging;
  std::string staging_reason;
  NumaHostBuffer host;  // host<->GPU methods: pinned on the GPU's NUMA node
  std::string host_reason;
  const Nvml* nvml = nullptr;
  GpuMonitor* monitor = nullptr;  // this rank's GPU: who else uses it (null: not watched)
  int cycle = 1;                  // the burn-in cycle running (fault injection's CYCLE)
  std::vector<std::string> bus_id_of_rank;
  kernels::CopyLaunch copy_launch;

  // Allocates buffers for the largest size and their IPC handles (this rank alone: a rank that
  // fails here must not leave the others waiting in the handles' exchange).
  static std::unique_ptr<EngineResources> create(RankContext& rank, const RunOptions& opts,
                                                 std::size_t buffer_bytes, int multiprocessors);
  // Every rank's handles to every rank (collective; after all ranks created theirs).
  void exchange_ipc_handles();
  ~EngineResources();

  // Buffers of `peer` mapped into this process (opened once, closed at teardown).
  BufferSet peer_buffers(int peer);
  // Every rank's report of a phase, on every rank (collective).
  std::vector<RankReport> gather(const RankReport& mine) const;

 private:
  std::map<int, std::vector<IpcMapping>> mapped_;
};

class Engine {
 public:
  using ResultSink = std::function<void(const Result&)>;
  Engine(EngineResources& res, ResultSink sink) : res_(res), sink_(std::move(sink)) {}

  struct CaseVariant {
    DataType dtype;
    ReduceOp op;
  };
  // Runs one plan step on every rank (collective). Returns its results, identical on all ranks.
  // Throws FatalRunError, collectively, when the run cannot go on. `only`: one collective variant
  // (a confirmation repeat) instead of every -d/-o.
  std::vector<Result> run_step(Method& m, const PlanStep& step,
                               const std::optional<CaseVariant>& only = std::nullopt);

 private:
  using Variant = CaseVariant;
  std::vector<Result> not_applicable(const Method& m, const PlanStep& step,
                                     const std::vector<PairState>& pairs,
                                     const StepContext& c) const;
  std::vector<Variant> variants_of(const MethodInfo& m) const;
  std::vector<PairState> pairs_of(const Method& m, const PlanStep& step) const;
  StepContext make_context(const Method& m, const PairState* mine, std::size_t bytes);

  EngineResources& res_;
  ResultSink sink_;
  std::uint64_t sequence_ = 0;
};

}  // namespace peerbench::gpu
