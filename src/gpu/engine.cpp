#include "gpu/engine.h"

#include <signal.h>

#include <cstring>

#include "core/model/sizes.h"
#include "gpu/check.h"
#include "gpu/engine_phase.h"
#include "gpu/size_run.h"

namespace peerbench::gpu {

bool PairState::has(int rank) const {
  return std::find(ranks.begin(), ranks.end(), rank) != ranks.end();
}

bool PairState::has_worker(int rank) const {
  return std::find(workers.begin(), workers.end(), rank) != workers.end();
}

std::unique_ptr<EngineResources> EngineResources::create(RankContext& rank, const RunOptions& opts,
                                                         std::size_t buffer_bytes,
                                                         int multiprocessors) {
  auto r = std::make_unique<EngineResources>();
  r->rank = &rank;
  r->opts = &opts;
  r->stream = Stream::create();
  r->done = Event::create();
  for (int i = 0; i < kGateDepth + 2; ++i) r->marks.push_back(Event::create());
  r->src = DeviceBuffer::allocate(buffer_bytes);
  r->dst = DeviceBuffer::allocate(buffer_bytes);
  r->signal = DeviceBuffer::allocate(4096);
  r->scratch = DeviceBuffer::allocate(256);
  PB_CUDA(cudaMemset(r->signal.get(), 0, 4096));
  PB_CUDA(cudaMemset(r->scratch.get(), 0, 256));
  r->gate = MappedHostBuffer::allocate(64);
  std::memset(r->gate.host(), 0, 64);
  r->copy_launch = kernels::copy_launch_for(multiprocessors);
  r->ipc.resize(3);
  PB_CUDA(cudaIpcGetMemHandle(&r->ipc[0], r->src.get()));
  PB_CUDA(cudaIpcGetMemHandle(&r->ipc[1], r->dst.get()));
  PB_CUDA(cudaIpcGetMemHandle(&r->ipc[2], r->signal.get()));
  return r;
}

void EngineResources::exchange_ipc_handles() {
  const auto all = allgather_bytes(rank->world, ipc.data(), 3 * sizeof(cudaIpcMemHandle_t));
  ipc.resize(3 * static_cast<std::size_t>(rank->size));
  std::memcpy(ipc.data(), all.data(), all.size());
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

std::vector<RankReport> EngineResources::gather(const RankReport& mine) const {
  const auto bytes = allgather_bytes(rank->world, &mine, sizeof(RankReport));
  std::vector<RankReport> all(static_cast<std::size_t>(rank->size));
  std::memcpy(all.data(), bytes.data(), bytes.size());
  return all;
}

StepContext Engine::make_context(const Method& m, const PairState* mine, std::size_t bytes) {
  const RankContext& rk = *res_.rank;
  StepContext c(rk, *res_.opts);
  c.stream = res_.stream.get();
  c.src = mine && !mine->all_ranks ? mine->pair.src : -1;
  c.dst = mine && !mine->all_ranks ? mine->pair.dst : -1;
  c.bytes = bytes;
  c.local = {res_.src.get(), res_.dst.get(), res_.signal.get()};
  if (res_.nccl_buffers && m.info().uses_nccl) {
    c.local.src = res_.nccl_buffers->src();
    c.local.dst = res_.nccl_buffers->dst();
  }
  c.copy_launch = res_.copy_launch;
  c.nccl = res_.nccl.get();
  c.nccl_reason = res_.nccl_reason;
  c.staging = res_.staging.get();
  c.staging_reason = res_.staging_reason;
  c.host = res_.host.get();
  c.host_reason = res_.host_reason;
  c.counters = reinterpret_cast<unsigned int*>(static_cast<char*>(res_.scratch.get()) + 8);
  c.timeout_ns = static_cast<std::uint64_t>(res_.opts->timeout_s * 0.5e9);
  c.sequence = &sequence_;
  if (c.src < 0 || m.info().scope == MethodScope::kPerGpu) return c;  // no peer to reach
  const int other = c.other();
  c.peer_device = rk.local_device_of_rank[other];
  if (!rk.same_physical_host(other) || !rk.same_host(other)) {
    c.peer_reason = "ranks " + std::to_string(c.src) + " and " + std::to_string(c.dst) +
                    " are on different hosts";
    return c;
  }
  if (rk.same_gpu(other)) {
    c.same_gpu = true;
    c.peer_usable = true;
  } else if (auto a = res_.access.find(other); a == res_.access.end()) {
    c.peer_reason = "peer access to rank " + std::to_string(other) + " was not set up";
  } else if (!a->second.usable()) {
    c.peer_reason = "p2p: " + to_string(a->second.state()) + " from GPU " +
                    std::to_string(rk.device) + " to GPU " + std::to_string(c.peer_device) +
                    (a->second.error().empty() ? "" : " (" + a->second.error() + ")");
  } else {
    c.peer_usable = true;
  }
  if (c.peer_usable && m.info().needs_p2p) {
    try {
      c.peer = res_.peer_buffers(other);
    } catch (const CudaError& e) {
      c.peer_usable = false;
      c.peer_reason = std::string("cannot map the peer's buffers: ") + e.what();
    }
  }
  return c;
}

std::vector<PairState> Engine::pairs_of(const Method& m, const PlanStep& step) const {
  std::vector<PairState> pairs;
  if (step.all_ranks) {
    PairState p;
    p.all_ranks = true;
    for (int r = 0; r < res_.rank->size; ++r) p.ranks.push_back(r);
    p.workers = p.ranks;
    pairs.push_back(p);
    return pairs;
  }
  for (const auto& pp : step.pairs) {
    PairState p;
    p.pair = pp;
    const bool one_gpu = m.info().scope == MethodScope::kPerGpu;  // pair (r, r)
    p.ranks = one_gpu ? std::vector<int>{pp.src} : std::vector<int>{pp.src, pp.dst};
    p.workers = m.workers(pp.src, pp.dst);
    p.flows = m.flows(pp.src, pp.dst);
    if (!pp.applicable) p.fail(ResultStatus::kNotApplicable, pp.reason);
    pairs.push_back(p);
  }
  return pairs;
}

std::vector<Engine::Variant> Engine::variants_of(const MethodInfo& m) const {
  // Collectives run once per requested type (and op, for reductions), in nccl-tests' order;
  // every other method once, in its own terms.
  std::vector<Variant> out;
  const std::vector<DataType> types =
      m.typed ? res_.opts->datatypes : std::vector<DataType>{DataType::kFloat};
  const std::vector<ReduceOp> ops =
      m.reduces ? res_.opts->ops : std::vector<ReduceOp>{ReduceOp::kSum};
  for (auto t : types) {
    for (auto o : ops) out.push_back({t, o});
  }
  return out;
}

// A size that holds no whole element of the variant: every pair of the step says so.
std::vector<Result> Engine::not_applicable(const Method& m, const PlanStep& step,
                                           const std::vector<PairState>& pairs,
                                           const StepContext& c) const {
  std::vector<Result> out;
  for (const auto& p : pairs) {
    Result r;
    r.method = m.info().name;
    r.src = p.all_ranks ? -1 : p.pair.src;
    r.dst = p.all_ranks ? -1 : p.pair.dst;
    r.bytes = c.bytes;
    r.status = ResultStatus::kNotApplicable;
    r.reason =
        format_size(c.bytes) + " holds no whole element: the smallest size is " + m.unit_words(c);
    r.round = step.round;
    r.iters = m.iterations_per_sample(*res_.opts);
    r.samples = res_.opts->samples;
    if (m.info().typed) r.datatype = to_string(c.dtype);
    if (m.info().reduces) r.op = to_string(c.op);
    if (m.info().rooted) r.root = c.root;
    out.push_back(r);
  }
  return out;
}

std::vector<Result> Engine::run_step(Method& m, const PlanStep& step,
                                     const std::optional<CaseVariant>& only) {
  const RankContext& rk = *res_.rank;
  const auto& fault = res_.opts->fault;
  if (fault.kind == "die" && fault.method == m.info().name && fault.rank == rk.rank &&
      (fault.cycle == 0 || fault.cycle == res_.cycle)) {
    std::fprintf(stderr, "peerbench: fault injection: rank %d kills itself at %s\n", rk.rank,
                 m.info().name.c_str());
    std::fflush(stderr);
    ::raise(SIGKILL);
  }
  std::vector<PairState> pairs = pairs_of(m, step);
  std::vector<Result> out;
  const PairState* mine = nullptr;
  for (const auto& p : pairs) {
    if (p.has(rk.rank)) mine = &p;
  }
  for (const auto bytes : step.sizes) {
    for (const auto& v : variants_of(m.info())) {
      if (only && (only->dtype != v.dtype || only->op != v.op)) continue;
      // Pairs skipped at the last size or variant are asked again (availability depends on
      // both: whole elements of the type, types this NCCL has); failed and not-applicable pairs
      // stay as they are.
      for (auto& p : pairs) {
        if (p.failed && p.fail_status == ResultStatus::kSkipped) {
          p.failed = false;
          p.reason.clear();
        }
      }
      StepContext ctx = make_context(m, mine, bytes);
      ctx.dtype = v.dtype;
      ctx.op = v.op;
      ctx.root = res_.opts->root;
      const std::size_t unit = std::max<std::size_t>(1, m.size_unit(ctx));
      const std::size_t used = bytes / unit * unit;  // nccl-tests' rounding
      if (used == 0) {
        for (auto& r : not_applicable(m, step, pairs, ctx)) {
          if (sink_) sink_(r);
          out.push_back(std::move(r));
        }
        continue;
      }
      ctx.bytes = used;
      SizeRun run(res_, m, step, used, pairs, std::move(ctx));
      for (auto& r : run.run()) {
        if (used != bytes) r.requested_bytes = bytes;
        if (sink_) sink_(r);
        out.push_back(std::move(r));
      }
      if (!run.fatal_error().empty()) throw FatalRunError(run.fatal_error(), run.fatal_stuck());
    }
  }
  return out;
}

}  // namespace peerbench::gpu
