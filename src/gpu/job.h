#pragma once
// One benchmark run over all ranks of an MPI job: checks the launch (ranks per GPU, memory),
// gathers system facts and topology, enables peer access, sets up buffers, staging and NCCL,
// walks the plan through the engine, records NCCL's transports, and writes the JSON results
// (rank 0, through a temporary file, after every step so a cut run leaves a valid file).
#include <chrono>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/base/errors.h"
#include "core/judge/burn_in.h"
#include "core/judge/verdict.h"
#include "core/model/results.h"
#include "core/model/results_file.h"
#include "core/plan/plan.h"
#include "core/plan/run_options.h"
#include "core/platform/utc_time.h"
#include "core/present/report.h"
#include "gpu/mpi_context.h"
#include "gpu/nccl_comm.h"
#include "gpu/nvml.h"
#include "gpu/peer_access.h"

namespace peerbench::gpu {

// A launch or configuration problem found collectively before measuring (exit code 2).
class LaunchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct JobIo {
  std::ostream* out = nullptr;  // live table and summary (rank 0); null: silent
  std::ostream* err = nullptr;  // warnings (rank 0)
  bool terminal = false;        // out is a terminal: redraw progress in place
};

struct JobOutcome {
  RunDocument doc;  // complete on rank 0; results also on the other ranks
  int exit_code = 0;
  bool json_written = false;
  bool gpu_stuck = false;  // GPU work may still run: the caller should exit without teardown
};

class Engine;
class EngineResources;
class GpuMonitor;
class Method;

// The job's stages, in order: set up (plan, devices, memory), describe (system, topology, peer
// access), resources (buffers, staging, NCCL), steps (the plan through the engine), finish
// (NCCL transports, verdicts, the final file and summary).
class Job {
 public:
  Job(RankContext& rank, const RunOptions& opts, std::vector<std::string> argv,
      NcclLogCapture& capture, const Nvml& nvml, JobIo io);
  ~Job();
  // Collective. Throws LaunchError (same on every rank) for launch problems found before
  // measuring; measurement failures are recorded in the document instead.
  JobOutcome run();

 private:
  // Set up.
  void plan_run();
  void choose_gpus();
  void check_memory();
  // Describe.
  void describe_system();
  void probe_topology();
  void record_node_evidence();  // job_evidence.cpp
  // Collective: what the first rank of each node reads (`read`, as JSON), on every rank; a read
  // that threw is one of the run's errors, "WHERE: FAILED: why", the rest go to `take`.
  void gather_node_reads(const std::string& failed, const std::function<nlohmann::json()>& read,
                         const std::function<void(const nlohmann::json&)>& take);
  std::vector<GpuInfo> gpus_hidden_from_me() const;
  void enable_peer_access();
  // Resources.
  void create_resources();
  void create_nccl();
  void register_nccl_buffers();
  void create_host_buffer();
  // Who else is on the GPUs (job_contention.cpp).
  void snapshot_host_processes();
  std::set<long long> own_processes();
  void start_monitor();
  std::vector<IdleCheck> gather_idle_checks(const std::string& when, double waited_s);
  void check_idle_gpus();
  PlanStep confirmation_step(const CaseKey& k, const MethodInfo& m) const;
  void run_confirmations(Engine& engine);
  void record_gpu_activity();
  // Steps.
  void print_header();
  void run_steps();
  bool run_cycle(Engine& engine, LiveReporter& live);
  void record_not_run(std::size_t first_step, const std::string& why);
  // Burn-in cycles (job_burn_in.cpp).
  void begin_cycle();
  void record_cycle_result(const Result& r);
  void end_cycle(bool whole);
  bool next_cycle();
  bool stop_asked();  // collective: any rank asked to stop
  // Finish.
  void record_nccl_transports();
  double time_left(double elapsed, double est_done) const;
  void record_link_health();
  void finish();
  void print_summary(double elapsed);

  void fail_all(const std::string& mine);  // throws LaunchError on every rank if any failed
  bool root() const { return rank_.rank == 0; }
  std::ostream* out() const { return root() ? io_.out : nullptr; }
  std::ostream* err() const { return root() ? io_.err : nullptr; }
  bool want_nccl() const;

  RankContext& rank_;
  const RunOptions& opts_;
  std::vector<std::string> argv_;
  NcclLogCapture& capture_;
  const Nvml& nvml_;
  JobIo io_;

  JobOutcome outcome_;
  std::vector<std::unique_ptr<Method>> methods_;
  std::vector<MethodInfo> selected_;
  Plan plan_;
  Expectations expectations_;
  std::size_t buffer_bytes_ = 4096;
  GpuInfo my_gpu_;
  GpuLinkHealth health_;  // this rank's GPU: NVLink error counters before/after, PCIe under load
  std::map<int, PeerAccess> access_;
  std::unique_ptr<EngineResources> res_;
  std::unique_ptr<ResultsFile> file_;
  std::string fatal_;
  std::chrono::steady_clock::time_point t_start_;
  std::uint64_t log_start_ = 0;
  std::set<long long> host_processes_before_;  // on the host's GPUs before the job's contexts
  bool own_pids_visible_ = true;               // NVML's pids are this namespace's
  std::unique_ptr<GpuMonitor> monitor_;
  int attempt_ = 0;  // > 0 while confirmation repeats run: results go to doc.confirmations
  int cycle_ = 1;    // burn-in cycle running (1-based)
  bool first_cycle_whole_ = false;  // the plan ran to its end once: the results are whole
  bool stopping_ = false;           // a signal asked the job to stop
  std::string stop_signal_;         // which: "SIGINT" or "SIGTERM" (burn_in.stopped_by)
  BurnInCycle this_cycle_;
  BurnInRecorder burn_in_recorder_;
  std::vector<NvLinkErrorCounts> cycle_links_;  // this rank's GPU at the cycle's start
  std::optional<int> cycle_replays_;
};

// Default results path: results/peerbench-HOST-YYYYMMDD-HHMMSS.json
std::string default_json_path(const std::string& host);

}  // namespace peerbench::gpu
