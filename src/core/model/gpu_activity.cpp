#include "core/model/gpu_activity.h"

#include <algorithm>

#include "core/base/text.h"

namespace peerbench {
namespace {

std::string format_hex(unsigned long long v) {
  static constexpr const char* kDigits = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), kDigits[v & 15]);
    v >>= 4;
  } while (v);
  return "0x" + s;
}

}  // namespace

std::vector<std::string> throttle_reasons(unsigned long long mask) {
  static const std::pair<unsigned long long, const char*> bits[] = {{0x4, "sw-power-cap"},
                                                                    {0x8, "hw-slowdown"},
                                                                    {0x20, "sw-thermal"},
                                                                    {0x40, "hw-thermal"},
                                                                    {0x80, "power-brake"}};
  std::vector<std::string> out;
  for (const auto& [bit, name] : bits) {
    if (mask & bit) out.emplace_back(name);
  }
  return out;
}

std::vector<std::string> clock_event_reason_names(unsigned long long mask) {
  static const std::pair<unsigned long long, const char*> bits[] = {
      {0x2, "applications-clocks"}, {0x4, "sw-power-cap"},    {0x8, "hw-slowdown"},
      {0x10, "sync-boost"},         {0x20, "sw-thermal"},     {0x40, "hw-thermal"},
      {0x80, "power-brake"},        {0x100, "display-clocks"}};
  std::vector<std::string> out;
  unsigned long long known = 0x1;  // idle: not a reason the clocks are held
  for (const auto& [bit, name] : bits) {
    known |= bit;
    if (mask & bit) out.emplace_back(name);
  }
  if (mask & ~known) out.push_back(format_hex(mask & ~known));
  return out;
}

bool held_by_hardware(const std::string& throttle_reason) {
  return throttle_reason == "hw-slowdown" || throttle_reason == "hw-thermal" ||
         throttle_reason == "power-brake";
}

std::string fabric_state_text(unsigned state) {
  switch (state) {
    case 0:
      return "not-supported";
    case 1:
      return "not-started";
    case 2:
      return "in-progress";
    case 3:
      return "completed";
    default:
      return "unknown (" + std::to_string(state) + ")";
  }
}

std::string fabric_health_text(std::optional<unsigned> mask, std::optional<unsigned> summary) {
  std::vector<std::string> bad;
  if (mask) {
    // Two-bit fields, value 1 = TRUE (the condition holds): NVML_GPU_FABRIC_HEALTH_MASK_*.
    const std::pair<int, const char*> fields[] = {{0, "degraded bandwidth"},
                                                  {2, "route recovery in progress"},
                                                  {4, "route unhealthy"},
                                                  {6, "access timeout recovery"}};
    for (const auto& [shift, name] : fields) {
      if (((*mask >> shift) & 0x3u) == 1u) bad.emplace_back(name);
    }
    // Bits 8-11: incorrect configuration, 1 = none.
    const unsigned config = (*mask >> 8) & 0xfu;
    static constexpr const char* configs[] = {"",
                                              "",
                                              "incorrect system GUID",
                                              "incorrect chassis serial",
                                              "no partition",
                                              "insufficient NVLinks"};
    if (config >= 2 && config <= 5) bad.emplace_back(configs[config]);
  }
  if (summary && *summary == 3 && bad.empty()) bad.emplace_back("limited capacity");
  if (summary && *summary == 2 && bad.empty()) bad.emplace_back("unhealthy");
  if (!bad.empty()) return join(bad);
  if ((summary && *summary == 1) || (mask && *mask != 0)) return "healthy";
  return "";
}

ActivityTracker::ActivityTracker(int busy_util_pct, std::size_t keep_samples)
    : busy_util_pct_(busy_util_pct), keep_(std::max<std::size_t>(2, keep_samples)) {}

bool ActivityTracker::busy(const ActivitySample& s) const {
  return s.job_idle && s.util_gpu_pct && *s.util_gpu_pct >= busy_util_pct_;
}

bool ActivityTracker::unnamed_user(const ActivitySample& s) const {
  return !shared_with_job_ && busy(s) && s.foreign.empty();
}

void ActivityTracker::sight(const std::string& kind, const ForeignProcess& p,
                            const std::string& reason, double t) {
  const std::string key = kind + "/" + std::to_string(p.pid) + "/" + reason;
  const auto it = sighting_of_.find(key);
  if (it == sighting_of_.end()) {
    ActivitySighting s;
    s.kind = kind;
    s.process = p;
    s.reason = reason;
    s.first_seen_s = s.last_seen_s = t;
    s.samples = 1;
    sighting_of_[key] = sightings_.size();
    sightings_.push_back(s);
    return;
  }
  ActivitySighting& s = sightings_[it->second];
  s.last_seen_s = t;
  ++s.samples;
  if (p.used_memory_bytes)
    s.process.used_memory_bytes =
        std::max(*p.used_memory_bytes, s.process.used_memory_bytes.value_or(0));
  if (p.sm_util_pct)
    s.process.sm_util_pct = std::max(*p.sm_util_pct, s.process.sm_util_pct.value_or(0));
}

void ActivityTracker::add(const ActivitySample& s) {
  ++count_;
  recent_.push_back(s);
  if (recent_.size() > keep_) recent_.pop_front();
  for (const auto& p : s.foreign) sight("process", p, "", s.t_s);
  for (const auto& r : throttle_reasons(s.reasons.value_or(0))) sight("throttle", {}, r, s.t_s);
  if (unnamed_user(s)) sight("busy-while-idle", {}, "", s.t_s);
  // Its reason is the highest utilization seen.
  const auto it = sighting_of_.find("busy-while-idle/0/");
  if (unnamed_user(s) && it != sighting_of_.end()) {
    auto& r = sightings_[it->second].reason;
    const int seen = r.empty() ? 0 : std::stoi(r.substr(12));
    if (*s.util_gpu_pct >= seen) r = "utilization " + std::to_string(*s.util_gpu_pct) + " %";
  }
}

namespace {

void merge_process(std::vector<ForeignProcess>& into, const ForeignProcess& p) {
  for (auto& q : into) {
    if (q.pid != p.pid) continue;
    if (p.used_memory_bytes)
      q.used_memory_bytes = std::max(*p.used_memory_bytes, q.used_memory_bytes.value_or(0));
    if (p.sm_util_pct) q.sm_util_pct = std::max(*p.sm_util_pct, q.sm_util_pct.value_or(0));
    if (q.name.empty()) q.name = p.name;
    return;
  }
  into.push_back(p);
}

void merge_reasons(std::vector<std::string>& into, unsigned long long mask) {
  for (const auto& r : throttle_reasons(mask)) {
    if (std::find(into.begin(), into.end(), r) == into.end()) into.push_back(r);
  }
}

}  // namespace

GpuInterference ActivityTracker::window(double t0, double t1) const {
  GpuInterference g;
  const ActivitySample* before = nullptr;  // the state the case started in
  std::deque<const ActivitySample*> idle;  // the last readings taken while the job was idle
  std::vector<const ActivitySample*> in;
  for (const auto& s : recent_) {
    if (s.t_s > t1) break;
    if (s.job_idle) {
      idle.push_back(&s);
      if (idle.size() > 3) idle.pop_front();
    }
    if (s.t_s < t0) {
      before = &s;
    } else {
      in.push_back(&s);
    }
  }
  if (before) in.insert(in.begin(), before);
  for (const auto* s : in) {
    for (const auto& p : s->foreign) merge_process(g.processes, p);
    if (s->util_gpu_pct) g.util_gpu_pct = std::max(*s->util_gpu_pct, g.util_gpu_pct.value_or(0));
    if (s->util_mem_pct) g.util_mem_pct = std::max(*s->util_mem_pct, g.util_mem_pct.value_or(0));
    merge_reasons(g.throttle_reasons, s->reasons.value_or(0));
  }
  // Someone NVML cannot name used the GPU in most of the last looks taken while the job was idle
  // (one reading alone can be a neighbour's last moments), and no look since has seen it stop.
  const auto busy_looks = std::count_if(idle.begin(), idle.end(),
                                        [&](const ActivitySample* s) { return unnamed_user(*s); });
  if (!idle.empty() && unnamed_user(*idle.back()) &&
      2 * static_cast<std::size_t>(busy_looks) > idle.size()) {
    g.busy_while_idle = true;
    g.util_gpu_pct = std::max(*idle.back()->util_gpu_pct, g.util_gpu_pct.value_or(0));
  }
  return g;
}

IdleCheck ActivityTracker::idle_check(const std::vector<ActivitySample>& samples,
                                      const std::string& when, double waited_s) const {
  IdleCheck c;
  c.when = when;
  c.waited_s = waited_s;
  for (const auto& s : samples) {
    c.at_s = std::max(c.at_s, s.t_s);
    for (const auto& p : s.foreign) merge_process(c.processes, p);
    if (s.util_gpu_pct) c.util_gpu_pct = std::max(*s.util_gpu_pct, c.util_gpu_pct.value_or(0));
    if (s.util_mem_pct) c.util_mem_pct = std::max(*s.util_mem_pct, c.util_mem_pct.value_or(0));
    merge_reasons(c.throttle_reasons, s.reasons.value_or(0));
  }
  // Idle: nobody else on it, and most job-idle readings under the bar (a single reading over it
  // can be the last moments of a job that just ended).
  const auto used = std::count_if(samples.begin(), samples.end(),
                                  [&](const ActivitySample& s) { return busy(s); });
  c.idle = c.processes.empty() && 2 * static_cast<std::size_t>(used) <= samples.size();
  return c;
}

}  // namespace peerbench
