// The job's stages that keep a busy node from accusing healthy links (issue 17): who else was on
// the GPUs before the job started, a monitor per rank's GPU, the idle check before the first case
// (--require-idle, --wait-idle, acceptance mode), the confirmation repeats at the end, and the
// activity every monitor saw, into the results.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ostream>
#include <thread>

#include "core/base/text.h"
#include "core/model/json_text.h"
#include "core/model/schema.h"
#include "core/model/schema_activity.h"
#include "core/model/sizes.h"
#include "gpu/engine.h"
#include "gpu/gpu_monitor.h"
#include "gpu/job.h"
#include "gpu/method.h"

namespace peerbench::gpu {

using nlohmann::json;

namespace {

// "pid 4242 (copyloop, 2.5 GiB) on GPU 1 (0000:00:07.0) of vm", or the utilization seen.
std::string busy_text(const IdleCheck& c, const GpuInfo& g, const std::string& host) {
  std::vector<std::string> what;
  for (const auto& p : c.processes) {
    what.push_back("pid " + std::to_string(p.pid) + " (" +
                   (p.name.empty() ? "name not visible here" : p.name) +
                   (p.used_memory_bytes ? ", " + format_size(*p.used_memory_bytes) : "") + ")");
  }
  if (what.empty() && c.util_gpu_pct) {
    what.push_back("a process NVML cannot name (utilization " + std::to_string(*c.util_gpu_pct) +
                   " %)");
  }
  return join(what) + " on GPU " + std::to_string(g.index) + " (" + g.pci_bus_id + ") of " + host;
}

}  // namespace

// Before any rank has a CUDA context: what was already on this host's GPUs.
void Job::snapshot_host_processes() {
  host_processes_before_ = processes_on_host(nvml_);
  barrier(rank_.world);  // no rank creates a context before every rank has looked
}

// The job's own processes as NVML names them. Where NVML's pids are this namespace's (every rank
// finds its own pid on its GPU), those; else (containers) the pids that appeared on the host's
// GPUs between the snapshot before the job's contexts and now.
std::set<long long> Job::own_processes() {
  const long long me = static_cast<long long>(::getpid());
  Nvml::Device mine = nullptr;
  if (auto d = nvml_.device_by_pci(my_gpu_.pci_bus_id)) mine = *d;
  bool sees_self = false;
  if (mine) {
    for (const auto& p : nvml_.compute_processes(mine).value_or(std::vector<Nvml::Process>{}))
      sees_self = sees_self || p.pid == me;
  }
  own_pids_visible_ = all_true(rank_.world, sees_self);
  std::set<long long> own;
  std::string learned;
  if (!own_pids_visible_) {
    for (long long pid : processes_on_host(nvml_)) {
      if (!host_processes_before_.count(pid)) learned += std::to_string(pid) + " ";
    }
  }
  // Pids only mean something on their own host.
  const auto all = allgather_strings(rank_.world, std::to_string(me) + " " + learned);
  for (int q = 0; q < rank_.size; ++q) {
    if (!rank_.same_physical_host(q)) continue;
    for (const auto& word : split(all[static_cast<std::size_t>(q)], ' ')) {
      if (!word.empty()) own.insert(std::stoll(word));
    }
  }
  return own;
}

void Job::start_monitor() {
  const std::set<long long> own = own_processes();
  monitor_ = std::make_unique<GpuMonitor>(nvml_, rank_.host, rank_.rank, my_gpu_, own, t_start_);
  if (!own_pids_visible_) {
    monitor_->add_note(
        "NVML's pids are not this namespace's (a container): the job's own processes were "
        "taken to be those that appeared on the GPUs as it started, so a process started at "
        "the same moment would be taken for one of them");
  }
  std::string sharers;
  for (int q = 0; q < rank_.size; ++q) {
    if (q != rank_.rank && rank_.same_gpu(q))
      sharers += (sharers.empty() ? "rank " : ", rank ") + std::to_string(q);
  }
  if (!sharers.empty()) monitor_->share_with_job(sharers);
  res_->monitor = monitor_.get();
  monitor_->start();
}

// Every rank's idle check, gathered: the same list on every rank.
std::vector<IdleCheck> Job::gather_idle_checks(const std::string& when, double waited_s) {
  const IdleCheck mine = monitor_->idle_check(when, 1.1, waited_s);
  std::vector<IdleCheck> all;
  for (const auto& s : allgather_strings(rank_.world, json_text(to_json(mine))))
    all.push_back(idle_check_from(JsonIn(json::parse(s), "idle check of a rank")));
  return all;
}

// Before the first case: are the job's GPUs idle? --wait-idle waits for them; --require-idle
// (and acceptance mode, unless --allow-busy) refuses to start on busy ones, naming what is there.
void Job::check_idle_gpus() {
  const auto begin = std::chrono::steady_clock::now();
  for (;;) {
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    const auto checks = gather_idle_checks("start", waited);
    std::vector<std::string> busy;
    for (std::size_t r = 0; r < checks.size(); ++r) {
      if (checks[r].idle) continue;
      const auto& info = outcome_.doc.system.ranks[r];
      const std::string text = busy_text(checks[r], info.gpu, info.host);
      if (std::find(busy.begin(), busy.end(), text) == busy.end()) busy.push_back(text);
    }
    if (busy.empty()) return;
    // Rank 0's clock decides for all (the checks are the same list everywhere): each rank's own
    // clock near the limit sent one back to gather_idle_checks and another on to the cases.
    if (checks.front().waited_s < opts_.wait_idle_s) {
      std::this_thread::sleep_for(std::chrono::seconds(1));
      continue;
    }
    const std::string what = join(busy, "; ");
    if (opts_.idle_required()) {
      throw LaunchError(
          std::string(opts_.require_idle ? "--require-idle" : "--expect (acceptance mode)") +
          ": another process uses a GPU of the job: " + what +
          (opts_.wait_idle_s > 0
               ? " (still there after --wait-idle " + format_fixed(opts_.wait_idle_s, 0) + " s)"
               : "") +
          "; wait for it, give --wait-idle SECONDS" +
          (opts_.require_idle ? "" : ", or --allow-busy to measure anyway"));
    }
    if (err()) {
      *err() << "peerbench: warning: another process uses a GPU of the job: " << what
             << "; cases that run beside it are reported as contended, not judged\n";
    }
    return;
  }
}

// The confirmation steps of one case: its pair (or all ranks, or, for the every-GPU-at-once
// methods, every GPU again, as the plan ran them) at its one size.
PlanStep Job::confirmation_step(const CaseKey& k, const MethodInfo& m) const {
  PlanStep step;
  step.method = k.method;
  step.sizes = {k.bytes};
  if (k.src < 0) {
    step.all_ranks = true;
  } else if (m.all_gpus_at_once) {
    for (int r = 0; r < rank_.size; ++r) step.pairs.push_back({r, r, true, ""});
  } else {
    step.pairs.push_back({k.src, k.dst, true, ""});
  }
  return step;
}

// Cases that a bar or the asymmetry check would flag, or that ran beside another process, under
// held clocks or with spread samples, measured again after an idle check; up to --confirm times,
// each round only what the last left undecided.
void Job::run_confirmations(Engine& engine) {
  for (int k = 1; k <= opts_.confirm && fatal_.empty(); ++k) {
    json mine = json::array();
    if (root()) {
      for (const auto& c : cases_to_confirm(outcome_.doc, expectations_))
        mine.push_back(to_json(c));
    }
    const json cases = json::parse(bcast_string(rank_.world, json_text(mine), 0));
    if (cases.empty()) return;
    const auto checks = gather_idle_checks("before confirmation " + std::to_string(k), 0);
    if (out() && opts_.verbosity > 0) {
      const bool idle =
          std::all_of(checks.begin(), checks.end(), [](const IdleCheck& c) { return c.idle; });
      *out() << "# Confirmation " << k << ": " << cases.size() << " case(s) measured again"
             << (idle ? " on idle GPUs" : " (another process is still on a GPU)") << "\n";
    }
    attempt_ = k;
    for (const auto& cj : cases) {
      const CaseKey c = case_key_from_json(cj);
      auto it = std::find_if(methods_.begin(), methods_.end(),
                             [&](const auto& m) { return m->info().name == c.method; });
      if (it == methods_.end()) continue;
      std::optional<Engine::CaseVariant> variant;
      if (!c.datatype.empty()) {
        variant = Engine::CaseVariant{data_type_from_name(c.datatype),
                                      c.op.empty() ? ReduceOp::kSum : reduce_op_from_name(c.op)};
      }
      try {
        engine.run_step(**it, confirmation_step(c, (*it)->info()), variant);
      } catch (const FatalRunError& e) {
        fatal_ = e.what();
        outcome_.gpu_stuck = e.gpu_stuck();
        outcome_.doc.errors.push_back("confirmation: " + fatal_);
        break;
      }
    }
    attempt_ = 0;
  }
}

// What every rank's monitor saw, one entry per GPU, into the results.
void Job::record_gpu_activity() {
  if (!monitor_) return;
  const GpuActivityLog mine = monitor_->log();
  monitor_.reset();  // stops the thread
  if (res_) res_->monitor = nullptr;
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& s : allgather_strings(rank_.world, json_text(to_json(mine)))) {
    GpuActivityLog g = gpu_activity_from(JsonIn(json::parse(s), "GPU activity of a rank"));
    if (seen.insert({g.host, g.pci_bus_id}).second)
      outcome_.doc.gpu_activity.push_back(std::move(g));
  }
}

}  // namespace peerbench::gpu
