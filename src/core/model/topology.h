#pragma once
// Node topology as data (filled by the GPU layer from NVML and CUDA), and what each link class
// should deliver. GPU-free so verdicts and reports can reason about it anywhere.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace peerbench {

struct NvLinkInfo {
  int link = 0;
  bool active = false;
  std::optional<unsigned> version;   // NVML's nvmlNvlinkVersion_t value, raw
  std::string remote_pci_bus_id;     // "" when unknown
  std::optional<double> speed_gbps;  // per direction, NVML's link speed (26.562 on H200)
};

// The GPU's place in a multi-node NVLink fabric (nvmlDeviceGetGpuFabricInfoV): on NVSwitch
// systems its health says whether the fabric gives the GPU its full bandwidth.
struct FabricInfo {
  std::string state;   // not-supported, not-started, in-progress, completed
  std::string status;  // NVML's return text for the registration ("Success")
  std::optional<unsigned> clique_id;
  std::string cluster_uuid;
  std::optional<unsigned> health_mask;  // raw NVML bits
  std::string health;                   // "healthy", or the unhealthy bits in words; "" unknown
  std::string note;                     // why nothing could be read
};

// What CUDA says of one GPU.
struct GpuInfo {
  int index = -1;  // CUDA device index on its host
  std::string name;
  std::string uuid;
  std::string pci_bus_id;  // canonical "0000:1B:00.0"
  std::string serial;      // the board's serial number (nvmlDeviceGetSerial); "" when unknown
  int cc_major = 0;
  int cc_minor = 0;
  int multiprocessors = 0;
  std::uint64_t memory_bytes = 0;
};

// A GPU with its links, as NVML reports them.
struct GpuTopology : GpuInfo {
  std::optional<int> pcie_gen_current, pcie_gen_max, pcie_width_current, pcie_width_max;
  std::optional<int> pcie_gen_gpu_max;  // what the GPU alone supports (pcie_gen_max: GPU and slot)
  std::vector<NvLinkInfo> nvlinks;      // active links only are counted in nvlinks_up
  int nvlinks_up = 0;
  std::optional<int> numa_node;
  std::optional<FabricInfo> fabric;  // nullopt: not read (older files)
};

struct GpuPairTopology {
  int gpu_a = -1;  // CUDA device indices on one host
  int gpu_b = -1;
  int nvlink_count = 0;   // links of a whose remote end is b
  std::string pcie_path;  // PIX, PXB, PHB, NODE, SYS, SELF, or "" when unknown
  std::map<std::string, std::string> nvml_p2p;  // read/write/nvlink/atomics -> OK, CNS, GNS, ...
  std::optional<bool> cuda_can_access_peer;
  std::optional<int> cuda_perf_rank;
  std::optional<bool> cuda_native_atomics;
  std::optional<bool> cuda_access_supported;
};

struct HostTopology {
  std::string host;
  std::string nvml;  // "ok", or why NVML facts are missing
  std::string driver_version;
  std::vector<GpuTopology> gpus;
  std::vector<GpuPairTopology> pairs;  // each ordered pair a != b
};

struct TopologyReport {
  std::vector<HostTopology> hosts;
};

enum class LinkKind {
  kNvLink,
  kPcieSwitch,
  kPcieHostBridge,
  kPcieNode,
  kPcieSystem,
  kCrossHost,
  kSameGpu,
  kUnknown
};

struct LinkClass {
  LinkKind kind = LinkKind::kUnknown;
  int nvlinks = 0;
  std::string label;  // "NV18", "PIX", "PXB", "PHB", "NODE", "SYS", "NET", "X", "?"
  std::string describe() const;
};

// The link between two GPUs of one host, from NVLink count first, then the PCIe path.
LinkClass classify_link(const GpuPairTopology& p);
LinkClass cross_host_link();

// Raw per-direction bandwidth of one link in GB/s, and its source.
//   NVLink by generation (compute capability): sm_70/sm_80/sm_90 25 GB/s nominal per link per
//   direction (Hopper's NVLink 4: 26.5625 GB/s measured raw on the device machine, REFERENCE.md),
//   sm_100+ 50 GB/s (NVLink 5).
//   PCIe per lane per direction after encoding: Gen3 0.985, Gen4 1.969, Gen5 3.938, Gen6 7.563.
double nvlink_gbps_per_link(int cc_major);
double pcie_lane_gbps(int gen);

// A GPU's PCIe bar: the highest generation GPU and slot both support and the widest width (what
// the link trained to only when those are unknown; 0 when nothing is known).
int pcie_gen_bar(const GpuTopology& g);
int pcie_width_bar(const GpuTopology& g);

struct LinkExpectation {
  double raw_gbps = 0;  // per direction
  std::string basis;    // how it was derived, for the evidence
};

// What the link between a and b carries per direction at most, or nullopt when unknown.
std::optional<LinkExpectation> expected_link_bandwidth(const LinkClass& link, const GpuTopology& a,
                                                       const GpuTopology& b);

std::string to_string(LinkKind k);

}  // namespace peerbench
