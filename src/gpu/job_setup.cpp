// Job's setup phases: the plan, the GPUs and their memory, the system description, the topology
// probe, peer access, and the resources (engine buffers, host staging, NCCL, pinned host memory).
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/base/text.h"
#include "core/build_info.h"
#include "core/model/json_text.h"
#include "core/model/schema.h"
#include "core/model/sizes.h"
#include "core/plan/plan.h"
#include "core/platform/cpu_affinity.h"
#include "core/platform/environment.h"
#include "gpu/check.h"
#include "gpu/device_choice.h"
#include "gpu/engine.h"
#include "gpu/job.h"
#include "gpu/link_health.h"
#include "gpu/method.h"
#include "gpu/topology_probe.h"

namespace peerbench::gpu {

using nlohmann::json;

// ---- Set up.

void Job::plan_run() {
  methods_ = make_methods();
  std::vector<MethodInfo> catalog;
  for (auto& m : methods_) catalog.push_back(described(*m));
  for (const auto& n : opts_.methods) selected_.push_back(*find_method(catalog, n));
  if (rank_.size < minimum_ranks(opts_.methods, catalog)) {
    throw LaunchError("this job has 1 rank; " + too_few_ranks_text() +
                      ". Start it with mpirun -np N (N = number of GPUs, one rank each), or "
                      "without a launcher to use all local GPUs");
  }
  const PlanInput pin = make_plan_input(opts_, rank_.size, rank_.host_of_rank, catalog);
  plan_ = make_plan(pin);  // UsageError on a bad --pairs, identically on every rank
  std::string e;
  if (root() && !opts_.expect_path.empty()) {
    try {
      expectations_ = load_expectations(opts_.expect_path);
    } catch (const InputError& x) {
      e = std::string("--expect: ") + x.what();
    }
  }
  fail_all(e);
  for (const auto& step : plan_.steps) {
    for (auto b : step.sizes) buffer_bytes_ = std::max<std::size_t>(buffer_bytes_, b);
  }
  buffer_bytes_ = (buffer_bytes_ + 4095) / 4096 * 4096;
}

void Job::choose_gpus() {
  fail_all(choose_devices(rank_, opts_.allow_gpu_sharing));
}

void Job::check_memory() {
  std::string e;
  std::size_t free_b = 0, total_b = 0;
  PB_CUDA(cudaMemGetInfo(&free_b, &total_b));
  int sharing = 0;
  for (int q = 0; q < rank_.size; ++q) {
    if (q == rank_.rank || rank_.same_gpu(q)) ++sharing;
  }
  // Two buffers of the largest size per rank, two more for NCCL's own with -R.
  const std::size_t per_rank = (opts_.register_buffers > 0 && want_nccl() ? 4 : 2) * buffer_bytes_;
  const std::size_t need = per_rank * static_cast<std::size_t>(sharing) + (64u << 20);
  if (need > free_b) {
    e = "-e/--maxbytes " + format_size(opts_.sweep.max_bytes) + " needs " + format_size(need) +
        " of free memory on GPU " + std::to_string(rank_.device) + " of host " +
        rank_.physical_host + " (" + (per_rank > 2 * buffer_bytes_ ? "four" : "two") +
        " buffers of the largest size per rank), which has " +
        format_size(free_b / (1 << 20) * (1 << 20)) + " free; use a smaller -e";
  }
  fail_all(e);
}

// ---- Describe.

void Job::describe_system() {
  RunDocument& doc = outcome_.doc;
  my_gpu_ = describe_gpu(rank_.device, nvml_);
  health_ = start_link_health(nvml_, rank_.host, my_gpu_);
  RankInfo mine;
  mine.rank = rank_.rank;
  mine.host = rank_.host;
  mine.local_rank = rank_.local_rank;
  mine.gpu = my_gpu_;
  mine.cpu_binding = bind_near_gpu(my_gpu_.pci_bus_id);
  for (const auto& s : allgather_strings(rank_.world, json_text(to_json(mine)))) {
    doc.system.ranks.push_back(rank_info_from_json(json::parse(s), "rank info", "rank"));
  }
  doc.system.hosts = rank_.hosts();
  doc.system.driver_version = nvml_.driver_version().value_or("");
  PB_CUDA(cudaDriverGetVersion(&doc.system.cuda_driver_version));
  PB_CUDA(cudaRuntimeGetVersion(&doc.system.cuda_runtime_version));
  doc.system.nccl_version = nccl_version_string();
  doc.system.mpi_library_version = mpi_library_version();
  doc.schema_version = kSchemaVersion;
  doc.tool.version = build_info::kVersion;
  doc.tool.git_revision = build_info::kGitRevision;
  doc.tool.command_line = argv_;
  doc.started_at = utc_now_iso8601();
  doc.config = run_options_to_json(opts_);
  // The bars this run judges by, so `report` on its file judges by the same ones.
  if (root()) doc.config["expectations"] = to_json(expectations_);
  doc.environment = recorded_environment();
  if (capture_.mode() == "peerbench") {
    // Set by peerbench for the capture, not by the user.
    for (const char* k : {"NCCL_DEBUG", "NCCL_DEBUG_FILE", "NCCL_DEBUG_SUBSYS"})
      doc.environment.erase(k);
  }
  doc.methods = selected_;
  doc.status = "incomplete";
}

void Job::gather_node_reads(const std::string& failed, const std::function<json()>& read,
                            const std::function<void(const json&)>& take) {
  // One reader per (logical host, physical node).
  std::string mine;
  if (rank_.first_on_node()) {
    try {
      mine = json_text(read());
    } catch (const std::exception& e) {
      mine = json_text(json{{"error", rank_.where() + ": " + failed + ": " + e.what()}});
    }
  }
  for (const auto& s : allgather_strings(rank_.world, mine)) {
    if (s.empty()) continue;
    const auto j = json::parse(s);
    if (j.contains("error")) {
      outcome_.doc.errors.push_back(j["error"].get<std::string>());
      continue;
    }
    take(j);
  }
}

void Job::probe_topology() {
  TopologyReport topo;
  gather_node_reads(
      "topology probe failed",
      [&] {
        TopologyReport t;
        t.hosts.push_back(probe_host_topology(rank_.host, nvml_, gpus_hidden_from_me()));
        return to_json(t);
      },
      [&](const json& j) {
        for (auto& h : topology_from_json(j, "topology probe").hosts)
          topo.hosts.push_back(std::move(h));
      });
  outcome_.doc.topology = topo;
}

std::vector<GpuInfo> Job::gpus_hidden_from_me() const {
  // GPUs of ranks on this node that this process's CUDA does not show (per-task binding).
  std::vector<GpuInfo> out;
  for (const auto& r : outcome_.doc.system.ranks) {
    const int q = r.rank;
    if (q < 0 || q >= rank_.size || !rank_.same_physical_host(q) || !rank_.same_host(q)) continue;
    if (rank_.local_device_of_rank[q] >= 0) continue;
    const bool listed = std::any_of(
        out.begin(), out.end(), [&](const GpuInfo& g) { return g.pci_bus_id == r.gpu.pci_bus_id; });
    if (!listed) out.push_back(r.gpu);
  }
  return out;
}

namespace {

PairFacts pair_facts_from_json(const json& f) {
  PairFacts p;
  p.src = f["src"].get<int>();
  p.dst = f["dst"].get<int>();
  p.same_host = f["same_host"].get<bool>();
  if (f.contains("can_access_peer")) p.can_access_peer = f["can_access_peer"].get<bool>();
  p.peer_access = f["peer_access"].get<std::string>();
  if (f.contains("already_enabled")) p.already_enabled = f["already_enabled"].get<bool>();
  if (f.contains("error")) p.error = f["error"].get<std::string>();
  return p;
}

}  // namespace

void Job::enable_peer_access() {
  // Through the one helper; facts per ordered pair, from the rank that asked.
  json my_facts = json::array();
  for (int q = 0; q < rank_.size; ++q) {
    if (q == rank_.rank) continue;
    json f = {{"src", rank_.rank}, {"dst", q}, {"same_host", rank_.same_host(q)}};
    if (!rank_.same_host(q) || !rank_.same_physical_host(q)) {
      f["peer_access"] = "not-applicable";
    } else if (rank_.same_gpu(q)) {
      f["peer_access"] = "same-gpu";
    } else {
      const int peer_dev = rank_.local_device_of_rank[q];
      auto a = peer_dev >= 0 ? PeerAccess::enable(rank_.device, peer_dev)
                             : PeerAccess::through_ipc(rank_.device);
      if (peer_dev >= 0) f["can_access_peer"] = a.can_access_peer();
      f["peer_access"] = to_string(a.state());
      f["already_enabled"] = a.state() == PeerAccessState::kAlreadyEnabled;
      f["error"] = a.error();
      access_.emplace(q, std::move(a));
    }
    my_facts.push_back(f);
  }
  for (const auto& s : allgather_strings(rank_.world, json_text(my_facts))) {
    for (const auto& f : json::parse(s)) outcome_.doc.pairs.push_back(pair_facts_from_json(f));
  }
}

// ---- Resources.

void Job::create_resources() {
  std::string e;
  try {
    res_ = EngineResources::create(rank_, opts_, buffer_bytes_, my_gpu_.multiprocessors);
  } catch (const std::exception& x) {
    e = rank_.where() + ": " + x.what();
  }
  fail_all(e);
  res_->exchange_ipc_handles();
  res_->access = std::move(access_);
  res_->nvml = &nvml_;
  res_->bus_id_of_rank = rank_.bus_id_of_rank;
  const bool want_staged = std::any_of(selected_.begin(), selected_.end(),
                                       [](const MethodInfo& m) { return m.host_staged; });
  if (want_staged)
    res_->staging =
        HostStaging::create(rank_, opts_.staged_chunk, opts_.staged_slots, &res_->staging_reason);
  if (want_nccl()) create_nccl();
  const bool want_host = std::any_of(selected_.begin(), selected_.end(), [](const MethodInfo& m) {
    return m.scope == MethodScope::kPerGpu;
  });
  if (want_host) create_host_buffer();
}

// Pinned host memory for h2d/d2h on the GPU's NUMA node. A rank that cannot have it skips those
// methods with the reason; where every rank's buffer went is recorded with the rank.
void Job::create_host_buffer() {
  std::string why;
  try {
    res_->host = NumaHostBuffer::allocate(buffer_bytes_, numa_node_of(my_gpu_.pci_bus_id));
  } catch (const std::exception& x) {
    why = rank_.where() + ": no pinned host memory for host<->GPU copies: " + x.what();
  }
  res_->host_reason = why;
  const auto all = allgather_strings(rank_.world, why.empty() ? res_->host.placement() : why);
  auto& ranks = outcome_.doc.system.ranks;
  for (std::size_t r = 0; r < ranks.size() && r < all.size(); ++r) ranks[r].host_memory = all[r];
}

void Job::create_nccl() {
  bool shared = false;
  // NCCL refuses two ranks on one GPU of what it takes for one host (NCCL_HOSTID can make two).
  for (int q = 0; q < rank_.size; ++q)
    shared = shared || (q != rank_.rank && rank_.same_gpu(q) && rank_.same_host(q));
  shared = !all_true(rank_.world, !shared);
  if (shared) {
    res_->nccl_reason = "two ranks share a GPU on one host; NCCL refuses duplicate GPUs";
  } else {
    std::string e;
    try {
      res_->nccl = NcclComm::create(rank_, opts_.timeout_s);
    } catch (const std::exception& x) {
      e = rank_.where() + ": " + x.what();
    }
    for (const auto& s : allgather_strings(rank_.world, e)) {
      if (!s.empty()) {
        res_->nccl_reason = "NCCL communicator could not be created: " + s;
        break;
      }
    }
    if (!res_->nccl_reason.empty() && res_->nccl) res_->nccl->abort();
    if (!res_->nccl_reason.empty()) res_->nccl.reset();
  }
  if (res_->nccl && opts_.register_buffers > 0) register_nccl_buffers();
  capture_.detach();  // NCCL has its log open by now: leave nothing on disk
}

// -R: NCCL's own buffers, registered (collective for symmetric windows). A failure on any rank
// stops the job before measuring: the registration asked for cannot be honoured.
void Job::register_nccl_buffers() {
  std::string e;
  try {
    res_->nccl_buffers =
        std::make_unique<NcclBuffers>(*res_->nccl, buffer_bytes_, opts_.register_buffers);
  } catch (const std::exception& x) {
    e = rank_.where() + ": -R " + std::to_string(opts_.register_buffers) + ": " + x.what();
  }
  fail_all(e);
}

}  // namespace peerbench::gpu
