// Who else uses a GPU, and the state of its links and fabric, through NVML: compute processes,
// per-process SM utilization, device utilization, clock event reasons, NVLink speed, fabric
// registration and health. Every entry point is looked up at run time; a missing one leaves the
// answer unknown (nullopt, or a note), never guessed.
#include <cstring>

#include "core/model/gpu_activity.h"
#include "gpu/nvml.h"
#include "gpu/nvml_layouts.h"

namespace peerbench::gpu {

using namespace nvml_abi;

std::vector<Nvml::Device> Nvml::devices() const {
  std::vector<Device> out;
  auto count = sym<int (*)(unsigned*)>("nvmlDeviceGetCount_v2");
  auto by_index = sym<int (*)(unsigned, Device*)>("nvmlDeviceGetHandleByIndex_v2");
  unsigned n = 0;
  if (!ok_ || !count || !by_index || count(&n) != kSuccess) return out;
  for (unsigned i = 0; i < n; ++i) {
    Device d = nullptr;
    if (by_index(i, &d) == kSuccess) out.push_back(d);
  }
  return out;
}

std::optional<std::vector<Nvml::Process>> Nvml::compute_processes(Device d,
                                                                  std::string* error) const {
  using Fn = int (*)(Device, unsigned*, ProcessInfo*);
  const char* name = "nvmlDeviceGetComputeRunningProcesses_v3";
  auto f = sym<Fn>(name);
  if (!f) f = sym<Fn>(name = "nvmlDeviceGetComputeRunningProcesses_v2");
  if (!ok_ || !f) {
    if (error) *error = ok_ ? "nvmlDeviceGetComputeRunningProcesses missing" : why_;
    return std::nullopt;
  }
  std::vector<ProcessInfo> buf(16);
  for (int attempt = 0; attempt < 4; ++attempt) {
    unsigned n = static_cast<unsigned>(buf.size());
    const int rc = f(d, &n, buf.data());
    if (rc == kErrorInsufficientSize) {  // more processes than room: n says how many
      buf.resize(n + 8);
      continue;
    }
    if (rc != kSuccess) {
      if (error) *error = std::string(name) + ": " + error_string(rc);
      return std::nullopt;
    }
    std::vector<Process> out;
    for (unsigned i = 0; i < n && i < buf.size(); ++i) {
      Process p;
      p.pid = buf[i].pid;
      if (buf[i].usedGpuMemory != ~0ull) p.used_memory = buf[i].usedGpuMemory;
      out.push_back(p);
    }
    return out;
  }
  if (error) *error = std::string(name) + ": the process list kept growing";
  return std::nullopt;
}

std::map<long long, int> Nvml::process_sm_utilization(Device d, unsigned long long since_us) const {
  std::map<long long, int> out;
  auto f = sym<int (*)(Device, ProcessUtilizationSample*, unsigned*, unsigned long long)>(
      "nvmlDeviceGetProcessUtilization");
  if (!ok_ || !f) return out;
  unsigned n = 0;
  int rc = f(d, nullptr, &n, since_us);  // asks how many samples there are
  if ((rc != kSuccess && rc != kErrorInsufficientSize) || n == 0) return out;
  std::vector<ProcessUtilizationSample> buf(n + 8);
  n = static_cast<unsigned>(buf.size());
  rc = f(d, buf.data(), &n, since_us);
  if (rc != kSuccess) return out;
  for (unsigned i = 0; i < n && i < buf.size(); ++i) {
    const int sm = static_cast<int>(std::min(100u, buf[i].smUtil));
    auto& v = out[buf[i].pid];
    v = std::max(v, sm);
  }
  return out;
}

std::optional<Nvml::Utilization> Nvml::utilization(Device d) const {
  auto f = sym<int (*)(Device, UtilizationRates*)>("nvmlDeviceGetUtilizationRates");
  UtilizationRates u{};
  if (!ok_ || !f || f(d, &u) != kSuccess) return std::nullopt;
  return Utilization{static_cast<int>(std::min(100u, u.gpu)),
                     static_cast<int>(std::min(100u, u.memory))};
}

std::optional<unsigned long long> Nvml::clock_event_reasons(Device d) const {
  using Fn = int (*)(Device, unsigned long long*);
  auto f = sym<Fn>("nvmlDeviceGetCurrentClocksEventReasons");
  if (!f) f = sym<Fn>("nvmlDeviceGetCurrentClocksThrottleReasons");
  unsigned long long v = 0;
  if (!ok_ || !f || f(d, &v) != kSuccess) return std::nullopt;
  return v;
}

std::optional<std::string> Nvml::process_name(long long pid) const {
  auto f = sym<int (*)(unsigned, char*, unsigned)>("nvmlSystemGetProcessName");
  char buf[256] = {0};
  if (!ok_ || !f || f(static_cast<unsigned>(pid), buf, sizeof(buf) - 1) != kSuccess || !buf[0])
    return std::nullopt;
  return std::string(buf);
}

std::optional<double> Nvml::link_speed_gbps(Device d, unsigned link) const {
  auto f = sym<int (*)(Device, int, FieldValue*)>("nvmlDeviceGetFieldValues");
  if (!ok_ || !f) return std::nullopt;
  FieldValue v[2]{};
  v[0].fieldId = kFieldNvlinkGetSpeed;  // per link, MBps
  v[0].scopeId = link;
  v[1].fieldId = kFieldNvlinkSpeedCommon;  // every active link, MBps
  if (f(d, 2, v) != kSuccess) return std::nullopt;
  for (const auto& x : v) {
    if (x.nvmlReturn == kSuccess && field_as_double(x) > 0) return field_as_double(x) / 1000.0;
  }
  return std::nullopt;
}

namespace {

std::string uuid_text(const unsigned char* u) {
  static constexpr const char* hex = "0123456789abcdef";
  std::string s;
  bool any = false;
  for (int i = 0; i < 16; ++i) {
    any = any || u[i] != 0;
    s += hex[u[i] >> 4];
    s += hex[u[i] & 15];
    if (i == 3 || i == 5 || i == 7 || i == 9) s += '-';
  }
  return any ? s : "";
}

}  // namespace

FabricInfo Nvml::fabric(Device d) const {
  FabricInfo out;
  auto v = sym<int (*)(Device, GpuFabricInfoV3*)>("nvmlDeviceGetGpuFabricInfoV");
  auto v1 = sym<int (*)(Device, GpuFabricInfoV1*)>("nvmlDeviceGetGpuFabricInfo");
  GpuFabricInfoV3 info{};
  int rc = -1;
  bool has_summary = false;
  if (ok_ && v) {
    for (unsigned version : {kFabricInfoV3, kFabricInfoV2}) {
      std::memset(&info, 0, sizeof(info));
      info.version = version;
      rc = v(d, &info);
      has_summary = version == kFabricInfoV3;
      if (rc != kErrorVersionMismatch) break;
    }
  }
  if (rc != kSuccess && ok_ && v1) {
    GpuFabricInfoV1 one{};
    rc = v1(d, &one);
    std::memcpy(info.clusterUuid, one.clusterUuid, 16);
    info.status = one.status;
    info.cliqueId = one.cliqueId;
    info.state = one.state;
  } else if (rc == kSuccess) {
    out.health_mask = info.healthMask;
  }
  if (rc != kSuccess) {
    out.state = "unknown";
    out.note = !ok_ ? why_ : (!v && !v1) ? "no fabric API in this NVML" : error_string(rc);
    return out;
  }
  out.state = fabric_state_text(info.state);
  if (info.state == 3) {  // status is meaningful only once registration completed
    out.status = info.status == kSuccess ? "Success" : error_string(info.status);
    out.clique_id = info.cliqueId;
    out.cluster_uuid = uuid_text(info.clusterUuid);
    out.health = fabric_health_text(
        out.health_mask, has_summary ? std::optional<unsigned>(info.healthSummary) : std::nullopt);
  }
  return out;
}

}  // namespace peerbench::gpu
