#pragma once
// Watches the GPU one rank drives, on a light thread (as the PCIe sampler does): other processes
// (named, with their GPU memory and SM utilization), device utilization and clock event reasons,
// every interval. The engine marks when the job itself uses the GPU, so utilization seen while it
// does not is somebody else's: a process NVML cannot name (another container) is still seen.
// The bookkeeping is the core's ActivityTracker (core/model/gpu_activity.h); this class only reads
// NVML.
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/model/gpu_activity.h"
#include "core/model/results.h"
#include "gpu/nvml.h"

namespace peerbench::gpu {

class GpuMonitor {
 public:
  using Clock = std::chrono::steady_clock;
  // `own_pids`: the job's processes as NVML reports their pids (never listed as others).
  GpuMonitor(const Nvml& nvml, std::string host, int rank, GpuInfo gpu,
             std::set<long long> own_pids, Clock::time_point run_start, double interval_s = 0.1);
  GpuMonitor(const GpuMonitor&) = delete;
  GpuMonitor& operator=(const GpuMonitor&) = delete;
  ~GpuMonitor();

  bool watching() const { return device_ != nullptr; }
  void start();
  // The engine: this rank's GPU carries (or no longer carries) the job's own work.
  void set_job_busy(bool busy);
  double now_s() const;
  // One reading now, kept like the thread's; then what was in the way during [t0_s, now].
  GpuInterference case_window(double t0_s);
  // Readings while the job leaves the GPU alone, for `settle_s`: who else is there.
  IdleCheck idle_check(const std::string& when, double settle_s, double waited_s);
  void add_note(const std::string& note);
  // Another rank of the job drives this GPU too: ActivityTracker::share_with_job, with a note.
  void share_with_job(const std::string& ranks);
  GpuActivityLog log() const;

 private:
  void loop();
  ActivitySample read();
  std::string name_of(long long pid);
  bool job_idle_now() const;

  const Nvml& nvml_;
  std::string host_;
  int rank_;
  GpuInfo gpu_;
  std::set<long long> own_;
  Clock::time_point start_;
  double interval_s_;
  Nvml::Device device_ = nullptr;
  std::string why_not_;

  mutable std::mutex mu_;  // guards everything below, shared with the thread
  ActivityTracker tracker_;
  std::vector<IdleCheck> idle_checks_;
  std::map<long long, std::string> names_;
  unsigned long long last_util_us_ = 0;  // NVML's timestamp of the last per-process sample seen
  std::string note_;

  std::atomic<int> busy_{0};
  std::atomic<long long> last_busy_end_ns_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Marks the job's own work on the GPU for as long as it lives (null monitor or `mine` false:
// no-op).
class JobBusy {
 public:
  JobBusy(GpuMonitor* m, bool mine) : m_(mine ? m : nullptr) {
    if (m_) m_->set_job_busy(true);
  }
  JobBusy(const JobBusy&) = delete;
  JobBusy& operator=(const JobBusy&) = delete;
  ~JobBusy() {
    if (m_) m_->set_job_busy(false);
  }

 private:
  GpuMonitor* m_;
};

// The processes of every GPU NVML sees on this host, before this process has a CUDA context:
// what the job finds already there (to tell its own processes apart where NVML's pids are not
// this namespace's: containers).
std::set<long long> processes_on_host(const Nvml& nvml);

}  // namespace peerbench::gpu
