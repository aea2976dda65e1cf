// Job: the order of its phases, and the plan's steps run cycle by cycle (set-up phases in
// job_setup.cpp, closing ones in job_finish.cpp).
#include "gpu/job.h"
#include "core/base/text.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <iostream>
#include <optional>
#include <ostream>
#include <set>
#include <tuple>

#include "core/build_info.h"
#include "core/model/results_file.h"
#include "core/model/sizes.h"
#include "core/plan/plan.h"
#include "core/present/report.h"
#include "gpu/engine.h"
#include "gpu/gpu_monitor.h"
#include "gpu/link_health.h"
#include "gpu/method.h"

namespace peerbench::gpu {

using nlohmann::json;

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
  record_node_evidence();
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
// ---- Steps.

void Job::print_header() {
  std::ostream* o = out();
  if (!o || opts_.verbosity <= 0) return;
  const RunDocument& doc = outcome_.doc;
  *o << "# peerbench " << build_info::kVersion << ": " << rank_.size << " ranks on "
     << doc.system.hosts.size() << " host(s), " << plan_.cases << " cases, estimated "
     << estimate_text(plan_.estimate_s, opts_.cycles, opts_.duration_s, 0) << "\n";
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
    if (cycle_ == 1) first_cycle_whole_ = whole;
    end_cycle(whole);
    if (!whole || !next_cycle()) break;
  }
  if (doc.burn_in && doc.burn_in->stopped_by.empty())
    doc.burn_in->stopped_by = stopping_ ? stop_signal_ : fatal_.empty() ? "cycles" : "error";
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
      if (cycle_ == 1) record_not_run(i, "stopped by a signal (" + stop_signal_ + ")");
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

// Seconds left, from the pace so far: of the plan; of a burn-in, what --duration leaves or the
// cycles still to run; -1 where a burn-in runs until stopped.
double Job::time_left(double elapsed, double est_done) const {
  const double frac = plan_.estimate_s > 0 ? std::min(1.0, est_done / plan_.estimate_s) : 1.0;
  if (!opts_.burn_in())
    return est_done > 0 ? elapsed / est_done * std::max(0.0, plan_.estimate_s - est_done) : 0;
  const double by_duration = std::max(0.0, opts_.duration_s - elapsed);
  if (opts_.cycles <= 0) return opts_.duration_s > 0 ? by_duration : -1;
  const double cycles_done = (cycle_ - 1) + frac;
  const double by_cycles =
      cycles_done > 0 ? elapsed / cycles_done * std::max(0.0, opts_.cycles - cycles_done) : 0;
  return opts_.duration_s > 0 ? std::min(by_cycles, by_duration) : by_cycles;
}

}  // namespace peerbench::gpu
