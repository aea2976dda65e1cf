#pragma once
// What a rank's monitor makes of its GPU's activity, GPU-free so it is tested on the CPU: NVML's
// readings arrive as samples (other processes, utilization, clock event reasons, and whether the
// job itself was using the GPU), and the tracker answers what was in the way of one case, what an
// idle check found, and every sighting with the times it was first and last seen.
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/model/results.h"

namespace peerbench {

// NVML's clock event reasons that hold clocks down (nvmlClocksEventReason*): SW power cap 0x4,
// HW slowdown 0x8, SW thermal 0x20, HW thermal 0x40, HW power brake 0x80. Idle, application
// clocks, sync boost and display clock settings are not throttling.
std::vector<std::string> throttle_reasons(unsigned long long mask);
// Every reason in the mask but idle, in words: the throttling ones above and applications-clocks
// (0x2), sync-boost (0x10), display-clocks (0x100); "0x..." for bits NVML added later.
std::vector<std::string> clock_event_reason_names(unsigned long long mask);
// Of those, the ones the hardware holds (hw-slowdown, hw-thermal, power-brake): a cooling or
// power fault to check, not software's cap and not another job.
bool held_by_hardware(const std::string& throttle_reason);

// NVML's fabric health mask and summary (nvmlGpuFabricInfo_v3_t) in words: "healthy", or the
// unhealthy conditions joined ("degraded bandwidth, route unhealthy"); "" when nothing is known.
std::string fabric_health_text(std::optional<unsigned> mask, std::optional<unsigned> summary);
// NVML's fabric state (0-3) in words: not-supported, not-started, in-progress, completed.
std::string fabric_state_text(unsigned state);

struct ActivitySample {
  double t_s = 0;                       // seconds since the run started
  std::vector<ForeignProcess> foreign;  // processes on the GPU that are not the job's
  std::optional<int> util_gpu_pct, util_mem_pct;
  std::optional<unsigned long long> reasons;  // NVML clock event reasons
  // No rank of the job had used this GPU for a whole utilization period before the sample: its
  // utilization is somebody else's.
  bool job_idle = false;
};

class ActivityTracker {
 public:
  // Utilization at or above `busy_util_pct` while the job is idle counts as another user's.
  explicit ActivityTracker(int busy_util_pct = 10, std::size_t keep_samples = 20000);

  void add(const ActivitySample& s);
  // What was in the way during [t0, t1]: the samples in it, and the last one before it (the state
  // the case started in). Nothing seen: an entry with no process, no reason and not busy.
  GpuInterference window(double t0, double t1) const;
  // An idle check from samples taken while the job did not use the GPU.
  IdleCheck idle_check(const std::vector<ActivitySample>& samples, const std::string& when,
                       double waited_s) const;
  bool busy(const ActivitySample& s) const;
  // The GPU is driven by another rank of this job too (--allow-gpu-sharing): utilization while
  // this rank is idle may be that rank's work, so it is not taken for another user during the
  // cases (a false "contended" on one H200 shared by two ranks). Processes outside the job still
  // are, and idle checks (taken while every rank is idle) are unchanged.
  void share_with_job(bool shared) { shared_with_job_ = shared; }
  const std::vector<ActivitySighting>& sightings() const { return sightings_; }
  int samples() const { return count_; }

 private:
  void sight(const std::string& kind, const ForeignProcess& p, const std::string& reason, double t);
  // A look that says someone NVML cannot name used the GPU while the job did not.
  bool unnamed_user(const ActivitySample& s) const;
  int busy_util_pct_;
  bool shared_with_job_ = false;
  std::size_t keep_;
  std::deque<ActivitySample> recent_;
  std::vector<ActivitySighting> sightings_;
  std::map<std::string, std::size_t> sighting_of_;  // kind + key -> index in sightings_
  int count_ = 0;
};

}  // namespace peerbench
