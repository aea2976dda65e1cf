#pragma once
// A transfer method only enqueues one iteration of its transfer on this rank's stream (as
// nccl-tests' runColl or nvbandwidth's MemcpyInitiator do). Filling, poisoning and checking
// buffers, the start gate, events, warm-up, samples, statistics and the watchdog all belong to
// the one measurement engine (engine.h). Adding a method: one file in methods/ (defining
// make_<id>()) plus its entry in core/model/method_catalog.def, which says what it is.
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "collective_kernels.h"
#include "copy_kernels.h"
#include "core/model/datatypes.h"
#include "core/model/method_info.h"
#include "core/plan/run_options.h"
#include "gpu/mpi_context.h"

namespace peerbench::gpu {

class NcclComm;
class HostStaging;

struct BufferSet {
  void* src = nullptr;     // what this rank sends from
  void* dst = nullptr;     // what this rank receives into
  void* signal = nullptr;  // small flag area (sm-latency)
};

// What a method sees on this rank while one (pair, size) runs.
// The slots of StepContext::counters (four, in the engine's scratch buffer). A slot written by
// two parties would read as the other's event: the gate's timeouts are the engine's alone.
enum class DeviceCounter : int {
  kGateTimeouts = 0,  // the engine's start gate gave up waiting for the other ranks
  kWaitTimeouts = 1,  // a method's own waits on its peer timed out (staged, sm-latency)
  kCompleted = 2,     // sm-latency: pings answered
  kHangFault = 3,     // the hang fault's wait that never ends (fault injection)
};

struct StepContext {
  StepContext(const RankContext& r, const RunOptions& o) : rank(r), opts(o) {}
  const RankContext& rank;
  const RunOptions& opts;
  cudaStream_t stream = nullptr;
  int src = -1;  // the pair, in ranks; -1 for methods over all ranks; src = dst = this rank
  int dst = -1;  // for host<->GPU methods
  std::size_t bytes = 0;
  BufferSet local;
  BufferSet peer;  // the other rank's buffers mapped here (same host, P2P usable)
  int peer_device = -1;
  bool peer_usable = false;  // this rank can reach the other rank's memory
  std::string peer_reason;   // why not
  bool same_gpu = false;     // both ranks share one GPU (--allow-gpu-sharing)
  kernels::CopyLaunch copy_launch;
  NcclComm* nccl = nullptr;
  std::string nccl_reason;  // why there is no communicator
  HostStaging* staging = nullptr;
  std::string staging_reason;
  void* host = nullptr;     // pinned host memory on this GPU's NUMA node (host<->GPU methods)
  std::string host_reason;  // why there is none
  // Device u32 counters, zeroed per sample; one writer each (DeviceCounter): use counter(k).
  unsigned int* counters = nullptr;
  std::uint64_t timeout_ns = 0;
  std::uint64_t* sequence = nullptr;  // per-method counter that survives iterations of one step
  // Collectives: the variant this size runs (-d, -o, -r).
  DataType dtype = DataType::kFloat;
  ReduceOp op = ReduceOp::kSum;
  int root = 0;

  unsigned int* counter(DeviceCounter k) const { return counters + static_cast<int>(k); }
  bool is_src() const { return rank.rank == src; }
  bool is_dst() const { return rank.rank == dst; }
  int other() const { return is_src() ? dst : src; }
};

// One direction of data: from's src buffer lands in to's dst buffer; `issuer` enqueues it
// (its time is that direction's time for bidirectional methods).
struct Flow {
  int from = -1;
  int to = -1;
  int issuer = -1;
};

enum class DataMode { kBytes, kCollective, kNone };

// How a collective lays out this rank's buffers for one size (counts in elements, as nccl-tests
// defines them: all-gather's size is its output, reduce-scatter's its input, all-to-all's each).
struct CollectiveLayout {
  kernels::CollKind kind = kernels::CollKind::kAllReduce;
  std::size_t count = 0;       // per-rank block
  std::size_t send_elems = 0;  // this rank's input
  std::size_t recv_elems = 0;  // this rank's output to check (0: receives nothing)
  bool in_place = false;       // the output overwrites the input buffer
};

struct CheckCounts {
  std::uint64_t elements = 0;
  std::uint64_t wrong = 0;
};

class Method {
 public:
  // `name` attaches the method to its catalogue entry (core/model/method_catalog.h); a name with
  // no entry gets a bare MethodInfo, which make_methods() refuses.
  explicit Method(const std::string& name);
  virtual ~Method() = default;
  const MethodInfo& info() const { return info_; }

  // Ranks that enqueue work for the pair (default: the source). Methods over all ranks: all.
  virtual std::vector<int> workers(int src, int dst) const {
    (void)dst;
    return {src};
  }
  // Data movements to fill and check (default: src -> dst issued by the first worker).
  virtual std::vector<Flow> flows(int src, int dst) const;
  virtual DataMode data_mode() const { return DataMode::kBytes; }
  // kCollective methods: the layout of this rank's buffers at c.bytes, c.dtype.
  virtual CollectiveLayout collective_layout(const StepContext& c) const {
    (void)c;
    return {};
  }
  // "" when the method can run for this pair on this rank; else why not. Both ranks of a pair
  // are asked; any reason skips the pair.
  virtual std::string unavailable(const StepContext& c) const;
  // Sizes are rounded down to a multiple of this (collectives: whole elements per rank block);
  // a size that holds none is not applicable, said in unit_words' terms.
  virtual std::size_t size_unit(const StepContext& c) const {
    (void)c;
    return 1;
  }
  virtual std::string unit_words(const StepContext& c) const {
    (void)c;
    return "one byte";
  }
  virtual int iterations_per_sample(const RunOptions& o) const { return o.iters; }
  // One-way transfers per iteration (the time of one transfer = sample time / this / iters).
  virtual double transfers_per_iteration(const RunOptions&) const { return 1; }
  // The start gate holds the stream until every rank has enqueued; methods whose iterations are
  // long chains of small operations opt out (the launch queue would fill behind the gate).
  virtual bool use_start_gate() const { return true; }
  // Launch-queue entries one iteration takes (kernels, copies, NCCL operations): bounds how many
  // iterations may wait behind the start gate.
  virtual int launches_per_iteration() const { return 1; }
  virtual void prepare(StepContext&) {}
  virtual void before_sample(StepContext&) {}
  virtual void enqueue(StepContext& c) = 0;
  // After the timed work, before the engine checks local.dst: methods whose output lands
  // outside the engine's buffers (host memory) bring it into local.dst here, on c.stream.
  virtual void before_check(StepContext&) {}
  virtual CheckCounts after_sample(StepContext&) { return {}; }

 private:
  MethodInfo info_;
};

// The implementation of every catalogue entry, in the catalogue's order (methods/registry.cpp).
// Throws std::logic_error when the registry and the catalogue disagree (catalogue_mismatches).
std::vector<std::unique_ptr<Method>> make_methods();
// What disagrees between `catalog` and `methods`, one line each: an entry no implementation
// names, an implementation naming no entry, another order, or an entry whose workers or start
// gate are not what its implementation does. Empty when they agree.
std::vector<std::string> catalogue_mismatches(const std::vector<MethodInfo>& catalog,
                                              const std::vector<std::unique_ptr<Method>>& methods);
// The ids of the factories the registry calls (make_<id>), in the catalogue's order.
std::vector<std::string> registered_factories();
// A method's info with what follows from its behaviour filled in (MethodInfo::workers from
// workers(), start_gated from use_start_gate()): what its catalogue entry must say.
MethodInfo described(const Method& m);
// The catalogue (core/model/method_catalog.h), once the registry has been checked against it:
// every entry has its implementation. What the command line and the job use.
std::vector<MethodInfo> method_catalog();

// Shared applicability rules, for methods to compose.
std::string require_peer(const StepContext& c);

}  // namespace peerbench::gpu
