#include "gpu/gpu_monitor.h"

#include <fstream>

namespace peerbench::gpu {

namespace {

// A full utilization period (NVML averages over 1/6 s to 1 s, by product) plus margin: readings
// taken sooner after the job's own work still contain it.
constexpr double kUtilizationPeriodS = 1.2;

long long ns_since(GpuMonitor::Clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(GpuMonitor::Clock::now() - t0)
      .count();
}

}  // namespace

GpuMonitor::GpuMonitor(const Nvml& nvml, std::string host, int rank, GpuInfo gpu,
                       std::set<long long> own_pids, Clock::time_point run_start, double interval_s)
    : nvml_(nvml),
      host_(std::move(host)),
      rank_(rank),
      gpu_(std::move(gpu)),
      own_(std::move(own_pids)),
      start_(run_start),
      interval_s_(interval_s) {
  std::string err;
  if (auto d = nvml_.device_by_pci(gpu_.pci_bus_id, &err)) {
    device_ = *d;
  } else {
    why_not_ = nvml_.available() ? err : "NVML: " + nvml_.why();
  }
  // The job's own setup (buffers, NCCL's init) counts as its work: utilization is somebody
  // else's only a full period after the monitor starts.
  last_busy_end_ns_ = ns_since(start_);
}

GpuMonitor::~GpuMonitor() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void GpuMonitor::start() {
  if (!watching() || thread_.joinable()) return;
  thread_ = std::thread([this] { loop(); });
}

void GpuMonitor::loop() {
  const auto step = std::chrono::duration<double>(interval_s_);
  while (!stop_.load()) {
    const ActivitySample s = read();
    {
      std::lock_guard<std::mutex> lock(mu_);
      tracker_.add(s);
    }
    const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(step);
    while (!stop_.load() && Clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void GpuMonitor::set_job_busy(bool busy) {
  if (busy) {
    ++busy_;
  } else if (--busy_ <= 0) {
    busy_ = 0;
    last_busy_end_ns_ = ns_since(start_);
  }
}

double GpuMonitor::now_s() const {
  return static_cast<double>(ns_since(start_)) * 1e-9;
}

bool GpuMonitor::job_idle_now() const {
  return busy_.load() == 0 &&
         static_cast<double>(ns_since(start_) - last_busy_end_ns_.load()) * 1e-9 >
             kUtilizationPeriodS;
}

std::string GpuMonitor::name_of(long long pid) {
  const auto it = names_.find(pid);
  if (it != names_.end()) return it->second;
  std::string name;
  std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
  if (!std::getline(comm, name) || name.empty()) name = nvml_.process_name(pid).value_or("");
  names_[pid] = name;  // "" when the pid is not visible here (another container)
  return name;
}

// One reading. Called by the thread and by case_window(); NVML's calls are thread-safe.
ActivitySample GpuMonitor::read() {
  ActivitySample s;
  s.t_s = now_s();
  s.job_idle = job_idle_now();
  if (!device_) return s;
  std::string err;
  const auto procs = nvml_.compute_processes(device_, &err);
  std::lock_guard<std::mutex> lock(mu_);
  if (!procs && note_.find(err) == std::string::npos) note_ += (note_.empty() ? "" : "; ") + err;
  std::map<long long, int> sm;
  if (procs && procs->size() > 0) {
    sm = nvml_.process_sm_utilization(device_, last_util_us_);
    last_util_us_ = static_cast<unsigned long long>(
        std::chrono::duration_cast<std::chrono::microseconds>(
            std::chrono::system_clock::now().time_since_epoch())
            .count() -
        2'000'000);  // NVML keeps samples a few seconds: look back two
  }
  for (const auto& p : procs.value_or(std::vector<Nvml::Process>{})) {
    if (own_.count(p.pid)) continue;
    ForeignProcess f;
    f.pid = p.pid;
    f.name = name_of(p.pid);
    f.used_memory_bytes = p.used_memory;
    const auto it = sm.find(p.pid);
    if (it != sm.end()) f.sm_util_pct = it->second;
    s.foreign.push_back(f);
  }
  if (auto u = nvml_.utilization(device_)) {
    s.util_gpu_pct = u->gpu;
    s.util_mem_pct = u->memory;
  }
  s.reasons = nvml_.clock_event_reasons(device_);
  return s;
}

GpuInterference GpuMonitor::case_window(double t0_s) {
  GpuInterference g;
  if (watching()) {
    const ActivitySample s = read();
    std::lock_guard<std::mutex> lock(mu_);
    tracker_.add(s);
    g = tracker_.window(t0_s, s.t_s);
  }
  g.rank = rank_;
  g.host = host_;
  g.gpu_index = gpu_.index;
  g.pci_bus_id = gpu_.pci_bus_id;
  return g;
}

IdleCheck GpuMonitor::idle_check(const std::string& when, double settle_s, double waited_s) {
  std::vector<ActivitySample> samples;
  const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(settle_s));
  // The job's own last work must have left NVML's utilization window first.
  while (watching() && (!job_idle_now() || Clock::now() < until || samples.empty())) {
    ActivitySample s = read();
    if (s.job_idle) samples.push_back(s);
    {
      std::lock_guard<std::mutex> lock(mu_);
      tracker_.add(s);
    }
    if (Clock::now() >= until && !samples.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::lock_guard<std::mutex> lock(mu_);
  IdleCheck c = tracker_.idle_check(samples, when, waited_s);
  c.at_s = now_s();
  idle_checks_.push_back(c);
  return c;
}

void GpuMonitor::share_with_job(const std::string& ranks) {
  tracker_.share_with_job(true);
  add_note("this GPU is shared with " + ranks +
           " of the job (--allow-gpu-sharing): utilization while this rank was idle may be "
           "theirs, so it is not taken for another job; processes outside the job still are");
}

void GpuMonitor::add_note(const std::string& note) {
  std::lock_guard<std::mutex> lock(mu_);
  note_ += (note_.empty() ? "" : "; ") + note;
}

GpuActivityLog GpuMonitor::log() const {
  std::lock_guard<std::mutex> lock(mu_);
  GpuActivityLog l;
  l.host = host_;
  l.gpu_index = gpu_.index;
  l.pci_bus_id = gpu_.pci_bus_id;
  l.monitor = watching() ? "nvml" : why_not_;
  l.interval_s = interval_s_;
  l.samples = tracker_.samples();
  l.idle_checks = idle_checks_;
  l.seen = tracker_.sightings();
  l.note = note_;
  return l;
}

std::set<long long> processes_on_host(const Nvml& nvml) {
  std::set<long long> out;
  for (auto d : nvml.devices()) {
    for (const auto& p : nvml.compute_processes(d).value_or(std::vector<Nvml::Process>{}))
      out.insert(p.pid);
  }
  return out;
}

}  // namespace peerbench::gpu
