#include "gpu/job.h"
#include "core/base/text.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <tuple>

#include "core/build_info.h"
#include "core/judge/verdict.h"
#include "core/model/results_file.h"
#include "core/model/schema.h"
#include "core/model/sizes.h"
#include "core/plan/plan.h"
#include "core/platform/atomic_file.h"
#include "core/platform/cpu_affinity.h"
#include "core/platform/environment.h"
#include "core/present/report.h"
#include "gpu/check.h"
#include "gpu/device_choice.h"
#include "gpu/engine.h"
#include "gpu/gpu_monitor.h"
#include "gpu/link_health.h"
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

Job::Job(RankContext& rank, const RunOptions& opts, std::vector<std::string> argv,
         NcclLogCapture& capture, const Nvml& nvml, JobIo io)
    : rank_(rank), opts_(opts), argv_(std::move(argv)), capture_(capture), nvml_(nvml), io_(io) {}

Job::~Job() {
  if (outcome_.gpu_stuck) {
    // Freeing memory would wait for the stuck work; the process is about to exit and the driver
    // reclaims everything then. Deliberately not torn down.
    (void)res_.release();
  }
}

JobOutcome Job::run() {
  t_start_ = std::chrono::steady_clock::now();
  log_start_ = capture_.mark();
  plan_run();
  snapshot_host_processes();
  choose_gpus();
  check_memory();
  describe_system();
  probe_topology();
  enable_peer_access();
  create_resources();
  start_monitor();
  check_idle_gpus();
  run_steps();
  record_nccl_transports();
  record_link_health();
  record_gpu_activity();
  finish();
  return outcome_;
}

void Job::fail_all(const std::string& mine) {
  // Every rank fails together, with the first rank's reason.
  for (const auto& s : allgather_strings(rank_.world, mine)) {
    if (!s.empty()) throw LaunchError(s);
  }
}

bool Job::want_nccl() const {
  return std::any_of(selected_.begin(), selected_.end(),
                     [](const MethodInfo& m) { return m.uses_nccl; });
}

// ---- Set up.

void Job::plan_run() {
  methods_ = make_methods();
  std::vector<MethodInfo> catalog;
  for (auto& m : methods_) catalog.push_back(m->info());
  for (const auto& n : opts_.methods) selected_.push_back(*find_method(catalog, n));
  if (rank_.size < minimum_ranks(opts_.methods, catalog)) {
    throw LaunchError(
        "peerbench run needs at least 2 ranks (one per GPU) to form a pair; this job has 1. "
        "Start it with mpirun -np N (N = number of GPUs), or without a launcher to use all local "
        "GPUs (one rank is enough for -m host alone)");
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
  for (const auto& s : allgather_strings(rank_.world, to_json(mine).dump())) {
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

void Job::probe_topology() {
  // One prober per (logical host, physical node).
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
      t.hosts.push_back(probe_host_topology(rank_.host, nvml_, gpus_hidden_from_me()));
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
      outcome_.doc.errors.push_back(j["error"].get<std::string>());
      continue;
    }
    for (auto& h : topology_from_json(j, "topology probe").hosts)
      topo.hosts.push_back(std::move(h));
  }
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
  for (const auto& s : allgather_strings(rank_.world, my_facts.dump())) {
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
  res_->access = std::move(access_);
  res_->nvml = &nvml_;
  res_->bus_id_of_rank = rank_.bus_id_of_rank;
  const bool want_staged =
      std::find(opts_.methods.begin(), opts_.methods.end(), "staged") != opts_.methods.end();
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

// ---- Steps.

void Job::print_header() {
  std::ostream* o = out();
  if (!o || opts_.verbosity <= 0) return;
  const RunDocument& doc = outcome_.doc;
  *o << "# peerbench " << build_info::kVersion << ": " << rank_.size << " ranks on "
     << doc.system.hosts.size() << " host(s), " << plan_.cases << " cases, estimated "
     << format_fixed(plan_.estimate_s, 0) << " s\n";
  for (const auto& r : doc.system.ranks) {
    *o << "#  rank " << r.rank << " " << r.host << " GPU " << r.gpu.index << " " << r.gpu.name
       << " " << r.gpu.pci_bus_id << ", " << r.cpu_binding
       << (r.host_memory.empty() ? "" : "; host buffer " + r.host_memory) << "\n";
  }
  if (!res_->staging_reason.empty()) *o << "# " << res_->staging_reason << "\n";
  if (!res_->nccl_reason.empty()) *o << "# " << res_->nccl_reason << "\n";
  if (res_->nccl_buffers) *o << "# NCCL methods use " << res_->nccl_buffers->describe() << "\n";
}

void Job::run_steps() {
  RunDocument& doc = outcome_.doc;
  doc.timing.estimated_s = plan_.estimate_s;
  file_ = std::make_unique<ResultsFile>(opts_.json_path, err());
  if (root()) outcome_.json_written = file_->write(doc);
  LiveReporter live(out() ? *out() : std::cout, out() ? opts_.verbosity : 0);
  print_header();
  live.show_cpu_time(opts_.report_cputime);
  if (out() && opts_.verbosity > 0) live.header(LiveReporter::rank_time_words(opts_.average));
  Engine engine(*res_, [&](const Result& r) {
    if (attempt_ > 0) {
      doc.confirmations.push_back(r);
      doc.confirmations.back().attempt = attempt_;
    } else {
      if (cycle_ == 1) doc.results.push_back(r);
      record_cycle_result(r);
    }
    if (out()) live.result(doc, find_method(selected_, r.method), r);
  });
  if (opts_.burn_in()) doc.burn_in = BurnIn{opts_.cycles, opts_.duration_s, 0, "", {}, {}};
  for (cycle_ = 1;; ++cycle_) {
    res_->cycle = cycle_;
    begin_cycle();
    const bool whole = run_cycle(engine, live);
    end_cycle(whole);
    if (!whole || !next_cycle()) break;
  }
  if (doc.burn_in && doc.burn_in->stopped_by.empty())
    doc.burn_in->stopped_by = stopping_ ? "SIGINT" : fatal_.empty() ? "cycles" : "error";
  if (fatal_.empty() && !stopping_) {
    doc.in_progress = {{"method", "confirmation repeats"}};
    if (root()) outcome_.json_written = file_->write(doc);
    run_confirmations(engine);
  }
  doc.in_progress = nullptr;
  if (out() && opts_.verbosity > 0) live.footer(doc);
}

// One pass over the plan. False when the run stops in it: a fatal error, or a stop request.
bool Job::run_cycle(Engine& engine, LiveReporter& live) {
  RunDocument& doc = outcome_.doc;
  double est_done = 0;
  for (std::size_t i = 0; i < plan_.steps.size(); ++i) {
    if (stop_asked()) {
      if (cycle_ == 1) record_not_run(i, "stopped by a signal (SIGINT or SIGTERM)");
      return false;
    }
    const auto& step = plan_.steps[i];
    json pairs = json::array();
    for (const auto& p : step.pairs) pairs.push_back({p.src, p.dst});
    doc.in_progress = {{"method", step.method}, {"round", step.round},         {"pairs", pairs},
                       {"sizes", step.sizes},   {"all_ranks", step.all_ranks}, {"cycle", cycle_}};
    if (root()) outcome_.json_written = file_->write(doc);
    try {
      auto& method = **std::find_if(methods_.begin(), methods_.end(),
                                    [&](const auto& m) { return m->info().name == step.method; });
      // The host-staged copy is the step that loads every GPU's PCIe link.
      std::optional<PcieLoadSampler> pcie;
      if (method.info().family == "staged" || method.info().family == "host")
        pcie.emplace(nvml_, health_, step.method + " at " + format_size(step.sizes.back()));
      engine.run_step(method, step);
    } catch (const FatalRunError& e) {
      fatal_ = e.what();
      outcome_.gpu_stuck = e.gpu_stuck();
      if (cycle_ == 1) record_not_run(i, "run stopped: " + fatal_);
      if (err()) *err() << "peerbench: error: " << fatal_ << "\n";
      doc.errors.push_back(fatal_);
      return false;
    }
    est_done += step.estimate_s;
    if (out()) {
      const double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start_).count();
      const double left = time_left(elapsed, est_done);
      live.progress(static_cast<int>(doc.results.size()), plan_.cases, elapsed, left,
                    step.method + " round " + std::to_string(step.round) + " done" +
                        (opts_.burn_in() ? ", cycle " + std::to_string(cycle_) : ""),
                    io_.terminal);
    }
  }
  return true;
}

void Job::record_not_run(std::size_t first_step, const std::string& why) {
  // Everything the plan still held is recorded as not run, with the reason.
  RunDocument& doc = outcome_.doc;
  std::set<std::tuple<std::string, int, int, std::uint64_t>> recorded;
  for (const auto& r : doc.results) recorded.insert({r.method, r.src, r.dst, r.bytes});
  for (std::size_t i = first_step; i < plan_.steps.size(); ++i) {
    const auto& step = plan_.steps[i];
    auto add = [&](int s, int d, std::uint64_t b) {
      if (recorded.count({step.method, s, d, b})) return;
      Result r;
      r.method = step.method;
      r.src = s;
      r.dst = d;
      r.bytes = b;
      r.status = ResultStatus::kNotRun;
      r.reason = why;
      r.round = step.round;
      doc.results.push_back(r);
    };
    for (auto b : step.sizes) {
      if (step.all_ranks) add(-1, -1, b);
      for (const auto& p : step.pairs) add(p.src, p.dst, b);
    }
  }
}

// ---- Finish.

// Seconds left, from the pace so far: of the plan; of a burn-in, what --duration leaves or the
// cycles still to run; -1 where a burn-in runs until stopped.
double Job::time_left(double elapsed, double est_done) const {
  const double frac = plan_.estimate_s > 0 ? std::min(1.0, est_done / plan_.estimate_s) : 1.0;
  if (!opts_.burn_in())
    return est_done > 0 ? elapsed / est_done * std::max(0.0, plan_.estimate_s - est_done) : 0;
  if (opts_.duration_s > 0) return std::max(0.0, opts_.duration_s - elapsed);
  if (opts_.cycles <= 0) return -1;
  const double cycles_done = (cycle_ - 1) + frac;
  return cycles_done > 0 ? elapsed / cycles_done * std::max(0.0, opts_.cycles - cycles_done) : 0;
}

void Job::record_link_health() {
  finish_link_health(nvml_, health_);
  if (!health_.pcie_gen_under_load) {
    health_.note += std::string(health_.note.empty() ? "" : "; ") +
                    "PCIe not read under load (no staged, h2d or d2h step ran)";
  }
  for (const auto& s : allgather_strings(rank_.world, to_json(health_).dump())) {
    outcome_.doc.link_health.push_back(
        gpu_link_health_from_json(json::parse(s), "link health of a rank", "link_health"));
  }
}

void Job::record_nccl_transports() {
  RunDocument& doc = outcome_.doc;
  const bool nccl = want_nccl();
  doc.nccl.mode = nccl ? capture_.mode() : "not-used";
  doc.nccl.note = nccl ? capture_.note() : "no NCCL method selected";
  doc.nccl.subsystems = capture_.subsystems();
  doc.nccl.unknown_lines.clear();  // read again at the end of a burn-in's first cycle
  if (!nccl) return;
  // All NCCL work is done before its log is read.
  if (res_->nccl && fatal_.empty()) PB_CUDA(cudaDeviceSynchronize());
  NcclLogParse merged;
  std::set<std::string> graphs_seen;
  for (const auto& s : allgather_strings(rank_.world, to_json(capture_.read(log_start_)).dump())) {
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
  if (!res_->nccl) {
    doc.nccl.note = "no NCCL communicator: " + res_->nccl_reason;
  } else if (merged.transports.empty() &&
             (capture_.mode() == "peerbench" || capture_.mode() == "user-file")) {
    doc.nccl.note += doc.nccl.note.empty() ? "" : "; ";
    doc.nccl.note += "no transport lines found in the log";
  }
}

void Job::finish() {
  RunDocument& doc = outcome_.doc;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start_).count();
  doc.timing.elapsed_s = elapsed;
  doc.finished_at = utc_now_iso8601();
  // A stop request in the first pass leaves the plan unfinished; a burn-in stopped later has its
  // first cycle whole and says why it stopped.
  doc.status = !fatal_.empty() ? "failed" : stopping_ && cycle_ == 1 ? "incomplete" : "complete";
  if (root()) {
    doc.verdicts = compute_verdicts(doc, expectations_);
    outcome_.json_written = file_->write(doc);
    if (!outcome_.json_written && out()) {
      *out() << "# The results file could not be written; the JSON follows on stdout.\n"
             << to_json(doc).dump(1) << "\n";
    }
    print_summary(elapsed);
  }
  // The exit code of `report` on the file just written: 0 only when everything requested was
  // measured and passed (--fail-on selects what counts).
  const std::string code =
      root() ? std::to_string(verdict_exit_code(doc.verdicts, opts_.fail_on)) : std::string();
  outcome_.exit_code = std::stoi(bcast_string(rank_.world, code, 0));
  // Nobody frees buffers another rank may still be reading through its mapping.
  try {
    barrier(rank_.world);
  } catch (const std::exception&) {
  }
}

void Job::print_summary(double elapsed) {
  std::ostream* o = out();
  if (!o) return;
  const RunDocument& doc = outcome_.doc;
  *o << "#\n# Verdicts (report: peerbench report " << opts_.json_path << "):\n";
  const int link_w = verdict_link_width(doc.verdicts);
  for (const auto& v : doc.verdicts) {
    *o << "#  " << std::left << std::setw(7) << pair_name(v.src, v.dst) << std::setw(link_w)
       << v.link << (v.verdict == "flagged" ? "FLAGGED" : v.verdict) << "  " << v.observed << "\n";
    for (const auto& f : v.flags) *o << "#      " << f.code << ": " << f.message << "\n";
  }
  *o << "# " << verdict_headline(count_verdicts(doc.verdicts)) << "\n";
  if (doc.nccl.mode != "not-used") {
    *o << "# NCCL transport capture: " << doc.nccl.mode
       << (doc.nccl.path_type.empty() ? "" : ", graph path " + doc.nccl.path_type) << "\n";
  }
  *o << "# Results: " << opts_.json_path << (outcome_.json_written ? "" : " (NOT written)") << "\n";
  *o << "# Time: " << format_fixed(elapsed, 1) << " s measured, "
     << format_fixed(plan_.estimate_s, 1) << " s estimated\n";
  o->flush();
}

}  // namespace peerbench::gpu
