#include "gpu/nvml.h"

#include "gpu/nvml_layouts.h"

#include <dlfcn.h>

#include <cctype>
#include <climits>
#include <cstring>

namespace peerbench::gpu {

using namespace nvml_abi;

std::string canonical_bus_id(const std::string& id) {
  // domain:bus:device.function; NVML pads the domain to 8 digits, CUDA to 4.
  const auto c1 = id.find(':');
  if (c1 == std::string::npos) return id;
  std::string domain = id.substr(0, c1);
  while (domain.size() > 4 && domain[0] == '0') domain.erase(0, 1);
  while (domain.size() < 4) domain = "0" + domain;
  std::string out = domain + id.substr(c1);
  for (auto& ch : out) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return out;
}

Nvml::Nvml() {
  lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib_) {
    const char* e = dlerror();
    why_ = std::string("libnvidia-ml.so.1 not loadable: ") + (e ? e : "unknown");
    return;
  }
  auto init = sym<int (*)()>("nvmlInit_v2");
  if (!init) {
    why_ = "nvmlInit_v2 missing from libnvidia-ml.so.1";
    return;
  }
  const int rc = init();
  if (rc != kSuccess) {
    why_ = "nvmlInit_v2 failed: " + error_string(rc);
    return;
  }
  ok_ = true;
  why_ = "ok";
}

Nvml::~Nvml() {
  if (ok_) {
    // At teardown nothing is left to measure: a failed nvmlShutdown changes no result.
    if (auto shutdown = sym<int (*)()>("nvmlShutdown")) (void)shutdown();
  }
  if (lib_) dlclose(lib_);
}

std::string Nvml::error_string(int rc) const {
  auto f = sym<const char* (*)(int)>("nvmlErrorString");
  const char* s = f ? f(rc) : nullptr;
  return s ? s : ("NVML error " + std::to_string(rc));
}

std::optional<Nvml::Device> Nvml::device_by_pci(const std::string& bus_id,
                                                std::string* error) const {
  if (!ok_) return std::nullopt;
  auto f = sym<int (*)(const char*, Device*)>("nvmlDeviceGetHandleByPciBusId_v2");
  Device d = nullptr;
  const int rc = f ? f(bus_id.c_str(), &d) : -1;
  if (rc != kSuccess) {
    if (error)
      *error =
          "nvmlDeviceGetHandleByPciBusId_v2(" + bus_id + "): " + (f ? error_string(rc) : "missing");
    return std::nullopt;
  }
  return d;
}

std::optional<std::string> Nvml::driver_version() const {
  auto f = sym<int (*)(char*, unsigned)>("nvmlSystemGetDriverVersion");
  char buf[96] = {0};
  if (!ok_ || !f || f(buf, sizeof(buf)) != kSuccess) return std::nullopt;
  return std::string(buf);
}

std::optional<std::string> Nvml::uuid(Device d) const {
  auto f = sym<int (*)(Device, char*, unsigned)>("nvmlDeviceGetUUID");
  char buf[96] = {0};
  if (!ok_ || !f || f(d, buf, sizeof(buf)) != kSuccess) return std::nullopt;
  return std::string(buf);
}

std::optional<int> Nvml::unsigned_query(const char* name, Device d) const {
  auto f = sym<int (*)(Device, unsigned*)>(name);
  unsigned v = 0;
  if (!ok_ || !f || f(d, &v) != kSuccess) return std::nullopt;
  return static_cast<int>(v);
}

std::optional<int> Nvml::pcie_gen(Device d, bool max) const {
  return unsigned_query(
      max ? "nvmlDeviceGetMaxPcieLinkGeneration" : "nvmlDeviceGetCurrPcieLinkGeneration", d);
}

std::optional<int> Nvml::pcie_width(Device d, bool max) const {
  return unsigned_query(max ? "nvmlDeviceGetMaxPcieLinkWidth" : "nvmlDeviceGetCurrPcieLinkWidth",
                        d);
}

std::vector<Nvml::Link> Nvml::nvlinks(Device d) const {
  std::vector<Link> out;
  auto state = sym<int (*)(Device, unsigned, int*)>("nvmlDeviceGetNvLinkState");
  auto version = sym<int (*)(Device, unsigned, unsigned*)>("nvmlDeviceGetNvLinkVersion");
  auto remote = sym<int (*)(Device, unsigned, PciInfo*)>("nvmlDeviceGetNvLinkRemotePciInfo_v2");
  if (!ok_ || !state) return out;
  for (unsigned l = 0; l < kMaxLinks; ++l) {
    int active = 0;
    const int rc = state(d, l, &active);
    if (rc != kSuccess) break;  // NOT_SUPPORTED / INVALID_ARGUMENT: no such link
    Link link;
    link.link = static_cast<int>(l);
    link.active = active == 1;  // NVML_FEATURE_ENABLED
    unsigned v = 0;
    if (version && version(d, l, &v) == kSuccess) link.version = v;
    PciInfo pci{};
    if (link.active && remote && remote(d, l, &pci) == kSuccess) {
      link.remote_bus_id = canonical_bus_id(pci.busId);
    }
    if (link.active) link.speed_gbps = link_speed_gbps(d, l);
    out.push_back(link);
  }
  return out;
}

std::optional<std::string> Nvml::common_ancestor(Device a, Device b) const {
  auto f = sym<int (*)(Device, Device, int*)>("nvmlDeviceGetTopologyCommonAncestor");
  int level = -1;
  if (!ok_ || !f || f(a, b, &level) != kSuccess) return std::nullopt;
  switch (level) {
    case 0:  // NVML_TOPOLOGY_INTERNAL: same board
    case 10:
      return std::string("PIX");  // NVML_TOPOLOGY_SINGLE
    case 20:
      return std::string("PXB");  // NVML_TOPOLOGY_MULTIPLE
    case 30:
      return std::string("PHB");  // NVML_TOPOLOGY_HOSTBRIDGE
    case 40:
      return std::string("NODE");  // NVML_TOPOLOGY_NODE
    case 50:
      return std::string("SYS");  // NVML_TOPOLOGY_SYSTEM
    default:
      return std::nullopt;
  }
}

std::map<std::string, std::string> Nvml::p2p_status(Device a, Device b) const {
  std::map<std::string, std::string> out;
  auto f = sym<int (*)(Device, Device, int, int*)>("nvmlDeviceGetP2PStatus");
  if (!ok_ || !f) return out;
  const std::pair<const char*, int> caps[] = {
      {"read", 0}, {"write", 1}, {"nvlink", 2}, {"atomics", 3}};
  static constexpr const char* names[] = {"OK", "CNS", "GNS", "TNS", "DRK", "NS", "U"};
  for (const auto& [name, index] : caps) {
    int status = -1;
    if (f(a, b, index, &status) != kSuccess) {
      out[name] = "U";
    } else {
      out[name] = (status >= 0 && status <= 6) ? names[status] : "U";
    }
  }
  return out;
}

Nvml::Traffic Nvml::nvlink_traffic(Device d) const {
  Traffic t;
  auto f = sym<int (*)(Device, int, FieldValue*)>("nvmlDeviceGetFieldValues");
  if (!ok_ || !f) {
    t.note = ok_ ? "nvmlDeviceGetFieldValues missing" : why_;
    return t;
  }
  FieldValue v[2]{};
  v[0].fieldId = kFieldNvlinkDataTx;
  v[0].scopeId = UINT_MAX;  // all links
  v[1].fieldId = kFieldNvlinkDataRx;
  v[1].scopeId = UINT_MAX;
  const int rc = f(d, 2, v);
  if (rc != kSuccess) {
    t.note = "nvmlDeviceGetFieldValues: " + error_string(rc);
    return t;
  }
  if (v[0].nvmlReturn == kSuccess) t.tx_bytes = field_as_double(v[0]) * 1024.0;
  if (v[1].nvmlReturn == kSuccess) t.rx_bytes = field_as_double(v[1]) * 1024.0;
  if (!t.tx_bytes || !t.rx_bytes) {
    t.note = "NVLink throughput fields: " +
             error_string(v[0].nvmlReturn != kSuccess ? v[0].nvmlReturn : v[1].nvmlReturn);
  }
  return t;
}

std::optional<std::string> Nvml::serial(Device d) const {
  auto f = sym<int (*)(Device, char*, unsigned)>("nvmlDeviceGetSerial");
  char buf[64] = {0};  // NVML_DEVICE_SERIAL_BUFFER_SIZE is 30
  if (!ok_ || !f || f(d, buf, sizeof(buf)) != kSuccess || buf[0] == 0) return std::nullopt;
  return std::string(buf);
}

std::optional<int> Nvml::pcie_gen_gpu_max(Device d) const {
  return unsigned_query("nvmlDeviceGetGpuMaxPcieLinkGeneration", d);
}

std::vector<Nvml::LinkErrors> Nvml::nvlink_errors(Device d) const {
  std::vector<LinkErrors> out;
  auto state = sym<int (*)(Device, unsigned, int*)>("nvmlDeviceGetNvLinkState");
  auto counter =
      sym<int (*)(Device, unsigned, int, unsigned long long*)>("nvmlDeviceGetNvLinkErrorCounter");
  if (!ok_ || !state || !counter) return out;
  // nvmlNvLinkErrorCounter_t: DL_REPLAY 0, DL_RECOVERY 1, DL_CRC_FLIT 2, DL_CRC_DATA 3.
  auto read = [&](unsigned l, int k) -> std::optional<unsigned long long> {
    unsigned long long v = 0;
    if (counter(d, l, k, &v) != kSuccess) return std::nullopt;
    return v;
  };
  for (unsigned l = 0; l < kMaxLinks; ++l) {
    int active = 0;
    if (state(d, l, &active) != kSuccess) break;  // no such link
    out.push_back({static_cast<int>(l), read(l, 0), read(l, 1), read(l, 2), read(l, 3)});
  }
  return out;
}

}  // namespace peerbench::gpu
