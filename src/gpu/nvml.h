#pragma once
// NVML loaded at run time (dlopen of libnvidia-ml.so.1): the binary builds without nvml.h and runs
// without NVML, recording what it could not learn. Only the handful of entry points peerbench
// uses are declared here, with the layouts of NVML's public header.
#include <dlfcn.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/model/topology.h"

namespace peerbench::gpu {

class Nvml {
 public:
  // Loads and initialises NVML; on failure available() is false and why() says why.
  Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;
  ~Nvml();

  bool available() const { return ok_; }
  const std::string& why() const { return why_; }

  using Device = void*;
  // Each accessor checks NVML's return code; a failure gives nullopt and, when `error` is set,
  // "nvmlCall: message".
  std::optional<Device> device_by_pci(const std::string& bus_id,
                                      std::string* error = nullptr) const;
  std::optional<std::string> driver_version() const;
  std::optional<std::string> uuid(Device d) const;
  std::optional<int> pcie_gen(Device d, bool max) const;
  std::optional<int> pcie_width(Device d, bool max) const;
  struct Link {
    int link = 0;
    bool active = false;
    std::optional<unsigned> version;
    std::string remote_bus_id;         // canonical form, "" if unknown
    std::optional<double> speed_gbps;  // per direction (NVML field 164, MBps / 1000)
  };
  std::vector<Link> nvlinks(Device d) const;
  // PIX, PXB, PHB, NODE, SYS (nvidia-smi's names) or nullopt.
  std::optional<std::string> common_ancestor(Device a, Device b) const;
  // read, write, nvlink, atomics -> OK, CNS, GNS, TNS, DRK, NS, U
  std::map<std::string, std::string> p2p_status(Device a, Device b) const;
  // NVLink data bytes sent and received so far, over all links (field values 138/139, KiB).
  struct Traffic {
    std::optional<double> tx_bytes;
    std::optional<double> rx_bytes;
    std::string note;
  };
  Traffic nvlink_traffic(Device d) const;
  // The board's serial number (nvmlDeviceGetSerial); nullopt where NVML has none.
  std::optional<std::string> serial(Device d) const;
  // The highest PCIe generation the GPU itself supports (nvmlDeviceGetGpuMaxPcieLinkGeneration);
  // pcie_gen(d, true) is what GPU and system together support.
  std::optional<int> pcie_gen_gpu_max(Device d) const;
  // NVLink error counters (replay, recovery, CRC flit, CRC data) of every link NVML reports
  // (nvmlDeviceGetNvLinkErrorCounter); a counter NVML cannot read stays nullopt.
  struct LinkErrors {
    int link = 0;
    std::optional<unsigned long long> replay, recovery, crc_flit, crc_data;
  };
  std::vector<LinkErrors> nvlink_errors(Device d) const;
  // PCIe replays since boot (nvmlDeviceGetPcieReplayCounter).
  std::optional<int> pcie_replays(Device d) const {
    return unsigned_query("nvmlDeviceGetPcieReplayCounter", d);
  }

  // ---- Who else uses the GPU (nvml_activity.cpp).
  // Every GPU NVML sees on this host (nvmlDeviceGetCount_v2, nvmlDeviceGetHandleByIndex_v2).
  std::vector<Device> devices() const;
  struct Process {
    long long pid = 0;
    std::optional<std::uint64_t> used_memory;  // NVML reports "not available" in some setups
  };
  // Processes with a compute context on the GPU (nvmlDeviceGetComputeRunningProcesses_v3, else
  // _v2); nullopt with `error` when NVML cannot list them.
  std::optional<std::vector<Process>> compute_processes(Device d,
                                                        std::string* error = nullptr) const;
  // SM utilization per process over the samples NVML kept since `since_us` (its timestamps).
  std::map<long long, int> process_sm_utilization(Device d, unsigned long long since_us) const;
  struct Utilization {
    int gpu = 0;     // % of the last sample period a kernel ran
    int memory = 0;  // % of it device memory was read or written
  };
  std::optional<Utilization> utilization(Device d) const;
  // nvmlDeviceGetCurrentClocksEventReasons (the older ...ThrottleReasons where that is all).
  std::optional<unsigned long long> clock_event_reasons(Device d) const;
  // The name NVML gives a pid (nvmlSystemGetProcessName), for pids not visible in /proc here.
  std::optional<std::string> process_name(long long pid) const;
  // nvmlDeviceGetGpuFabricInfoV (v3, else v2), else nvmlDeviceGetGpuFabricInfo; a note says why
  // when NVML has none of them.
  FabricInfo fabric(Device d) const;

  // ---- A GPU's settings and health for the node evidence (nvml_health.cpp). Each sets `error`
  // to "nvmlCall: message" when NVML cannot answer.
  std::optional<std::string> name(Device d, std::string* error = nullptr) const;
  std::optional<bool> persistence_mode(Device d, std::string* error = nullptr) const;
  // nvmlDeviceGetVirtualizationMode: "none", "pass-through", "vgpu", "host-vgpu", "host-vsga".
  std::optional<std::string> virtualization_mode(Device d, std::string* error = nullptr) const;
  // Uncorrected ECC errors since the driver loaded (volatile), nvmlDeviceGetTotalEccErrors.
  std::optional<unsigned long long> ecc_uncorrected_volatile(Device d,
                                                             std::string* error = nullptr) const;
  struct RemappedRows {
    bool failure = false;
    bool pending = false;
  };
  std::optional<RemappedRows> remapped_rows(Device d, std::string* error = nullptr) const;
  // The GPU's PCI bus id, canonical form (nvmlDeviceGetPciInfo_v3).
  std::optional<std::string> pci_bus_id(Device d, std::string* error = nullptr) const;
  // nvmlDeviceGetBrand: GeForce, TITAN and their RTX kinds are consumer cards.
  std::optional<bool> consumer_brand(Device d, std::string* error = nullptr) const;

 private:
  template <typename F>
  F sym(const char* name) const {
    return lib_ ? reinterpret_cast<F>(dlsym(lib_, name)) : nullptr;
  }
  std::optional<double> link_speed_gbps(Device d, unsigned link) const;
  // Calls the entry point `name` of type int(A...); false, with `error` set to why, when NVML is
  // not loaded, lacks it, or returns an error.
  template <typename... A>
  bool call(const char* name, std::string* error, A... args) const {
    auto f = sym<int (*)(A...)>(name);
    const int rc = ok_ && f ? f(args...) : -1;
    if (rc != 0 && error)
      *error = !ok_ ? why_ : std::string(name) + ": " + (f ? error_string(rc) : "missing");
    return rc == 0;
  }
  std::string error_string(int rc) const;
  // An NVML query of the form f(device, unsigned*), or nullopt.
  std::optional<int> unsigned_query(const char* name, Device d) const;
  void* lib_ = nullptr;
  bool ok_ = false;
  std::string why_;
};

// "0000:1B:00.0" from any of CUDA's or NVML's forms ("00000000:1b:00.0").
std::string canonical_bus_id(const std::string& id);

}  // namespace peerbench::gpu
