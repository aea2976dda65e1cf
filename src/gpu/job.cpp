#include "gpu/job.h"
#include "core/text.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <iomanip>
#include <map>
#include <ostream>
#include <set>
#include <sstream>

#include "core/atomic_file.h"
#include "core/build_info.h"
#include "core/cpu_affinity.h"
#include "core/environment.h"
#include "core/plan.h"
#include "core/report.h"
#include "core/results_file.h"
#include "core/schema.h"
#include "core/sizes.h"
#include "core/verdict.h"
#include "gpu/check.h"
#include "gpu/engine.h"
#include "gpu/method.h"
#include "gpu/topology_probe.h"

namespace peerbench::gpu {

using nlohmann::json;

std::string utc_now_iso8601() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string default_json_path(const std::string& host) {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y%m%d-%H%M%S", &tm);
  std::string h = host;
  for (auto& c : h) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.') c = '_';
  }
  return "results/peerbench-" + h + "-" + buf + ".json";
}

namespace {}  // namespace

Job::Job(RankContext& rank, const RunOptions& opts, std::vector<std::string> argv,
         NcclLogCapture& capture, const Nvml& nvml, JobIo io)
    : rank_(rank), opts_(opts), argv_(std::move(argv)), capture_(capture), nvml_(nvml), io_(io) {}

JobOutcome Job::run() {
  JobOutcome outcome;
  RunDocument& doc = outcome.doc;
  const auto t_start = std::chrono::steady_clock::now();
  const bool root = rank_.rank == 0;
  const std::uint64_t log_start = capture_.mark();
  std::ostream* out = root ? io_.out : nullptr;
  std::ostream* err = root ? io_.err : nullptr;

  // Every rank fails together, with the first rank's reason.
  auto fail_all = [&](const std::string& mine) {
    for (const auto& s : allgather_strings(rank_.world, mine)) {
      if (!s.empty()) throw LaunchError(s);
    }
  };

  auto methods = make_methods();
  std::vector<MethodInfo> selected;
  std::map<std::string, Method*> by_name;
  for (auto& m : methods) by_name[m->info().name] = m.get();
  for (const auto& n : opts_.methods) selected.push_back(by_name.at(n)->info());

  if (rank_.size < 2) {
    throw LaunchError(
        "peerbench run needs at least 2 ranks (one per GPU) to form a pair; this job has 1. "
        "Start it with mpirun -np N (N = number of GPUs), or without a launcher to use all local "
        "GPUs");
  }
  std::vector<MethodInfo> catalog;
  for (auto& m : methods) catalog.push_back(m->info());
  const PlanInput pin = make_plan_input(opts_, rank_.size, rank_.host_of_rank, catalog);
  const Plan plan = make_plan(pin);  // UsageError on a bad --pairs, identically on every rank

  Expectations expectations;
  {
    std::string e;
    if (root && !opts_.expect_path.empty()) {
      try {
        expectations = load_expectations(opts_.expect_path);
      } catch (const InputError& x) {
        e = std::string("--expect: ") + x.what();
      }
    }
    fail_all(e);
  }

  // ---- Devices: one rank per GPU, the rank's place on its node picks the GPU.
  {
    std::string e;
    int count = 0;
    try {
      count = cuda_device_count();
      if (count == 0) e = "no CUDA GPU on host " + rank_.physical_host;
    } catch (const CudaError& x) {
      e = "no usable CUDA GPU on host " + rank_.physical_host + ": " + x.what();
    }
    if (e.empty() && rank_.local_size > count && !opts_.allow_gpu_sharing) {
      e = "host " + rank_.physical_host + " runs " + std::to_string(rank_.local_size) +
          " ranks but has " + std::to_string(count) + " GPU" + (count == 1 ? "" : "s") +
          ": start at most one rank per GPU (mpirun -np " + std::to_string(count) + ")";
    }
    fail_all(e);
    rank_.device = rank_.local_rank % count;
    PB_CUDA(cudaSetDevice(rank_.device));
    rank_.device_of_rank.assign(static_cast<std::size_t>(rank_.size), -1);
    PB_MPI(MPI_Allgather(&rank_.device, 1, MPI_INT, rank_.device_of_rank.data(), 1, MPI_INT,
                         rank_.world));
  }
  std::size_t buffer_bytes = 4096;
  for (const auto& s : plan.steps) {
    for (auto b : s.sizes) buffer_bytes = std::max<std::size_t>(buffer_bytes, b);
  }
  buffer_bytes = (buffer_bytes + 4095) / 4096 * 4096;
  {
    std::string e;
    std::size_t free_b = 0, total_b = 0;
    PB_CUDA(cudaMemGetInfo(&free_b, &total_b));
    int sharing = 0;
    for (int q = 0; q < rank_.size; ++q) {
      if (rank_.same_physical_host(q) && rank_.device_of_rank[q] == rank_.device) ++sharing;
    }
    const std::size_t need = 2 * buffer_bytes * static_cast<std::size_t>(sharing) + (64u << 20);
    if (need > free_b) {
      e = "-e/--maxbytes " + format_size(opts_.sweep.max_bytes) + " needs " + format_size(need) +
          " of free memory on GPU " + std::to_string(rank_.device) + " of host " +
          rank_.physical_host + " (two buffers of the largest size per rank), which has " +
          format_size(free_b / (1 << 20) * (1 << 20)) + " free; use a smaller -e";
    }
    fail_all(e);
  }

  // ---- System facts.
  const GpuInfo my_gpu = describe_gpu(rank_.device, nvml_);
  const std::string binding = bind_near_gpu(my_gpu.pci_bus_id);
  {
    RankInfo mine;
    mine.rank = rank_.rank;
    mine.host = rank_.host;
    mine.local_rank = rank_.local_rank;
    mine.gpu = my_gpu;
    mine.cpu_binding = binding;
    for (const auto& s : allgather_strings(rank_.world, to_json(mine).dump())) {
      doc.system.ranks.push_back(rank_info_from_json(json::parse(s), "rank info", "rank"));
    }
  }
  std::vector<std::string> bus_ids;
  for (const auto& r : doc.system.ranks) bus_ids.push_back(r.gpu.pci_bus_id);
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
  doc.environment = recorded_environment();
  if (capture_.mode() == "peerbench") {
    // Set by peerbench for the capture, not by the user.
    for (const char* k : {"NCCL_DEBUG", "NCCL_DEBUG_FILE", "NCCL_DEBUG_SUBSYS"})
      doc.environment.erase(k);
  }
  doc.methods = selected;
  doc.status = "incomplete";

  // ---- Topology: one prober per (logical host, physical node).
  {
    bool prober = true;
    for (int q = 0; q < rank_.rank; ++q) {
      if (rank_.host_of_rank[q] == rank_.host &&
          rank_.physical_host_of_rank[q] == rank_.physical_host)
        prober = false;
    }
    std::string mine;
    if (prober) {
      try {
        TopologyReport t;
        t.hosts.push_back(probe_host_topology(rank_.host, nvml_));
        mine = to_json(t).dump();
      } catch (const std::exception& e) {
        mine = json{{"error", rank_.where() + ": topology probe failed: " + e.what()}}.dump();
      }
    }
    TopologyReport topo;
    for (const auto& s : allgather_strings(rank_.world, mine)) {
      if (s.empty()) continue;
      const auto j = json::parse(s);
      if (j.contains("error")) {
        doc.errors.push_back(j["error"].get<std::string>());
        continue;
      }
      for (auto& h : topology_from_json(j, "topology probe").hosts)
        topo.hosts.push_back(std::move(h));
    }
    doc.topology = topo;
  }

  // ---- Peer access, through the one helper; facts per ordered pair.
  std::map<int, PeerAccess> access;
  json my_facts = json::array();
  for (int q = 0; q < rank_.size; ++q) {
    if (q == rank_.rank) continue;
    const bool same_host = rank_.same_host(q);
    const int peer_dev = rank_.device_of_rank[q];
    json f = {{"src", rank_.rank}, {"dst", q}, {"same_host", same_host}};
    if (!same_host || !rank_.same_physical_host(q)) {
      f["peer_access"] = "not-applicable";
    } else if (peer_dev == rank_.device) {
      f["peer_access"] = "same-gpu";
    } else {
      auto a = PeerAccess::enable(rank_.device, peer_dev);
      f["can_access_peer"] = a.can_access_peer();
      f["peer_access"] = to_string(a.state());
      f["already_enabled"] = a.state() == PeerAccessState::kAlreadyEnabled;
      f["error"] = a.error();
      access.emplace(q, std::move(a));
    }
    my_facts.push_back(f);
  }
  for (const auto& s : allgather_strings(rank_.world, my_facts.dump())) {
    for (const auto& f : json::parse(s)) {
      PairFacts p;
      p.src = f["src"].get<int>();
      p.dst = f["dst"].get<int>();
      p.same_host = f["same_host"].get<bool>();
      if (f.contains("can_access_peer")) p.can_access_peer = f["can_access_peer"].get<bool>();
      p.peer_access = f["peer_access"].get<std::string>();
      if (f.contains("already_enabled")) p.already_enabled = f["already_enabled"].get<bool>();
      if (f.contains("error")) p.error = f["error"].get<std::string>();
      doc.pairs.push_back(std::move(p));
    }
  }

  // ---- Buffers, staging, NCCL.
  std::unique_ptr<EngineResources> res;
  {
    std::string e;
    try {
      res = EngineResources::create(rank_, opts_, buffer_bytes, my_gpu.multiprocessors);
    } catch (const std::exception& x) {
      e = rank_.where() + ": " + x.what();
    }
    fail_all(e);
  }
  res->access = std::move(access);
  res->nvml = &nvml_;
  res->bus_id_of_rank = bus_ids;
  const bool want_staged =
      std::find(opts_.methods.begin(), opts_.methods.end(), "staged") != opts_.methods.end();
  if (want_staged)
    res->staging =
        HostStaging::create(rank_, opts_.staged_chunk, opts_.staged_slots, &res->staging_reason);
  const bool want_nccl = std::any_of(selected.begin(), selected.end(),
                                     [](const MethodInfo& m) { return m.uses_nccl; });
  if (want_nccl) {
    bool shared = false;
    for (int q = 0; q < rank_.size; ++q) {
      for (int r = q + 1; r < rank_.size; ++r) {
        if (rank_.host_of_rank[q] == rank_.host_of_rank[r] &&
            rank_.physical_host_of_rank[q] == rank_.physical_host_of_rank[r] &&
            rank_.device_of_rank[q] == rank_.device_of_rank[r]) {
          shared = true;
        }
      }
    }
    if (shared) {
      res->nccl_reason = "two ranks share a GPU on one host; NCCL refuses duplicate GPUs";
    } else {
      std::string e;
      try {
        res->nccl = NcclComm::create(rank_, opts_.timeout_s);
      } catch (const std::exception& x) {
        e = rank_.where() + ": " + x.what();
      }
      const auto errs = allgather_strings(rank_.world, e);
      for (const auto& s : errs) {
        if (!s.empty()) {
          res->nccl_reason = "NCCL communicator could not be created: " + s;
          break;
        }
      }
      if (!res->nccl_reason.empty() && res->nccl) res->nccl->abort();
      if (!res->nccl_reason.empty()) res->nccl.reset();
    }
    capture_.detach();  // NCCL has its log open by now: leave nothing on disk
  }

  // ---- Measure.
  doc.timing.estimated_s = plan.estimate_s;
  std::string json_path = opts_.json_path;
  ResultsFile file(json_path, err);
  if (root) outcome.json_written = file.write(doc);
  LiveReporter live(out ? *out : std::cout, out ? opts_.verbosity : 0);
  if (out && opts_.verbosity > 0) {
    *out << "# peerbench " << build_info::kVersion << ": " << rank_.size << " ranks on "
         << doc.system.hosts.size() << " host(s), " << plan.cases << " cases, estimated "
         << format_fixed(plan.estimate_s, 0) << " s\n";
    for (const auto& r : doc.system.ranks) {
      *out << "#  rank " << r.rank << " " << r.host << " GPU " << r.gpu.index << " " << r.gpu.name
           << " " << r.gpu.pci_bus_id << ", " << r.cpu_binding << "\n";
    }
    if (!res->staging_reason.empty()) *out << "# " << res->staging_reason << "\n";
    if (!res->nccl_reason.empty()) *out << "# " << res->nccl_reason << "\n";
    live.header();
  }
  std::set<std::tuple<std::string, int, int, std::uint64_t>> recorded;
  Engine engine(*res, [&](const Result& r) {
    doc.results.push_back(r);
    recorded.insert({r.method, r.src, r.dst, r.bytes});
    if (out) live.result(doc, find_method(selected, r.method), r);
  });
  std::string fatal;
  double est_done = 0;
  std::size_t step_index = 0;
  for (; step_index < plan.steps.size(); ++step_index) {
    const auto& step = plan.steps[step_index];
    json pairs = json::array();
    for (const auto& p : step.pairs) pairs.push_back({p.src, p.dst});
    doc.in_progress = {{"method", step.method},
                       {"round", step.round},
                       {"pairs", pairs},
                       {"sizes", step.sizes},
                       {"all_ranks", step.all_ranks}};
    if (root) outcome.json_written = file.write(doc);
    try {
      engine.run_step(*by_name.at(step.method), step);
    } catch (const FatalRunError& e) {
      fatal = e.what();
      outcome.gpu_stuck = e.gpu_stuck();
      break;
    }
    est_done += step.estimate_s;
    if (out) {
      const double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
      const double left =
          est_done > 0 ? elapsed / est_done * std::max(0.0, plan.estimate_s - est_done) : 0;
      live.progress(static_cast<int>(doc.results.size()), plan.cases, elapsed, left,
                    step.method + " round " + std::to_string(step.round) + " done", io_.terminal);
    }
  }
  if (!fatal.empty()) {
    doc.errors.push_back(fatal);
    // Everything the plan still held is recorded as not run, with the reason.
    for (std::size_t i = step_index; i < plan.steps.size(); ++i) {
      const auto& step = plan.steps[i];
      auto add = [&](int s, int d, std::uint64_t b) {
        if (recorded.count({step.method, s, d, b})) return;
        Result r;
        r.method = step.method;
        r.src = s;
        r.dst = d;
        r.bytes = b;
        r.status = ResultStatus::kNotRun;
        r.reason = "run stopped: " + fatal;
        r.round = step.round;
        doc.results.push_back(r);
      };
      for (auto b : step.sizes) {
        if (step.all_ranks) {
          add(-1, -1, b);
        } else {
          for (const auto& p : step.pairs) add(p.src, p.dst, b);
        }
      }
    }
    if (err) *err << "peerbench: error: " << fatal << "\n";
  } else {
    doc.in_progress = nullptr;
  }

  // ---- NCCL's transports, from every rank's log.
  doc.nccl.mode = want_nccl ? capture_.mode() : "not-used";
  doc.nccl.note = want_nccl ? capture_.note() : "no NCCL method selected";
  doc.nccl.subsystems = capture_.subsystems();
  if (want_nccl && res->nccl && fatal.empty()) {
    // All NCCL work is done before its log is read.
    PB_CUDA(cudaDeviceSynchronize());
  }
  if (want_nccl) {
    NcclLogParse merged;
    std::set<std::string> graphs_seen;
    for (const auto& s : allgather_strings(rank_.world, to_json(capture_.read(log_start)).dump())) {
      const auto part = nccl_log_parse_from_json(json::parse(s), "NCCL log of a rank");
      merged.transports.insert(merged.transports.end(), part.transports.begin(),
                               part.transports.end());
      for (const auto& g : part.graphs) {
        if (graphs_seen.insert(g.raw).second) merged.graphs.push_back(g);
      }
      doc.nccl.unknown_lines.insert(doc.nccl.unknown_lines.end(), part.unknown.begin(),
                                    part.unknown.end());
    }
    doc.nccl.graphs = merged.graphs;
    doc.nccl.path_type = dominant_intra_path(merged.graphs);
    for (const auto& t : summarize_transports(merged.transports)) {
      for (auto& p : doc.pairs) {
        if (p.src == t.src_rank && p.dst == t.dst_rank) p.nccl = t;
      }
    }
    if (!res->nccl) {
      doc.nccl.note = "no NCCL communicator: " + res->nccl_reason;
    } else if (merged.transports.empty() &&
               (capture_.mode() == "peerbench" || capture_.mode() == "user-file")) {
      doc.nccl.note += doc.nccl.note.empty() ? "" : "; ";
      doc.nccl.note += "no transport lines found in the log";
    }
  }

  // ---- Verdicts and the final file.
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  doc.timing.elapsed_s = elapsed;
  doc.finished_at = utc_now_iso8601();
  doc.status = fatal.empty() ? "complete" : "failed";
  if (root) {
    doc.verdicts = compute_verdicts(doc, expectations);
    outcome.json_written = file.write(doc);
    if (!outcome.json_written && out) {
      *out << "# The results file could not be written; the JSON follows on stdout.\n"
           << to_json(doc).dump(1) << "\n";
    }
    if (out) {
      *out << "#\n# Verdicts (report: peerbench report " << json_path << "):\n";
      for (const auto& v : doc.verdicts) {
        *out << "#  " << std::left << std::setw(7) << pair_name(v.src, v.dst) << std::setw(7)
             << v.link << (v.verdict == "flagged" ? "FLAGGED" : v.verdict) << "  " << v.observed
             << "\n";
        for (const auto& f : v.flags) *out << "#      " << f.code << ": " << f.message << "\n";
      }
      if (doc.nccl.mode != "not-used") {
        *out << "# NCCL transport capture: " << doc.nccl.mode
             << (doc.nccl.path_type.empty() ? "" : ", graph path " + doc.nccl.path_type) << "\n";
      }
      *out << "# Results: " << json_path << (outcome.json_written ? "" : " (NOT written)") << "\n";
      *out << "# Time: " << format_fixed(elapsed, 1) << " s measured, "
           << format_fixed(plan.estimate_s, 1) << " s estimated\n";
      out->flush();
    }
  }
  bool bad = !fatal.empty();
  for (const auto& r : doc.results) {
    if (r.wrong > 0 || r.status == ResultStatus::kError || r.status == ResultStatus::kTimeout)
      bad = true;
  }
  outcome.exit_code = bad ? kExitFlagged : kExitOk;
  // Nobody frees buffers another rank may still be reading through its mapping.
  try {
    barrier(rank_.world);
  } catch (const std::exception&) {
  }
  if (outcome.gpu_stuck) {
    // Freeing memory waits for the stuck work; the process is about to exit and the driver
    // reclaims everything then. Deliberately not torn down.
    (void)res.release();
  }
  return outcome;
}

}  // namespace peerbench::gpu
