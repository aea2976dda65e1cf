#include "gpu/topology_probe.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cctype>
#include <fstream>

#include "gpu/check.h"

namespace peerbench::gpu {
namespace {

std::string pci_bus_id(int device) {
  char buf[32] = {0};
  PB_CUDA(cudaDeviceGetPCIBusId(buf, sizeof(buf), device));
  return canonical_bus_id(buf);
}

}  // namespace

std::optional<int> numa_node_of(const std::string& bus_id) {
  std::string lower = bus_id;
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::ifstream in("/sys/bus/pci/devices/" + lower + "/numa_node");
  int node = -1;
  if (in >> node && node >= 0) return node;
  return std::nullopt;
}

int cuda_device_count() {
  int n = 0;
  PB_CUDA(cudaGetDeviceCount(&n));
  return n;
}

GpuInfo describe_gpu(int device, const Nvml& nvml) {
  cudaDeviceProp p{};
  PB_CUDA(cudaGetDeviceProperties(&p, device));
  GpuInfo g;
  g.index = device;
  g.name = p.name;
  g.cc_major = p.major;
  g.cc_minor = p.minor;
  g.multiprocessors = p.multiProcessorCount;
  g.memory_bytes = p.totalGlobalMem;
  g.pci_bus_id = pci_bus_id(device);
  // CUDA's UUID as NVML prints it ("GPU-xxxxxxxx-..."), NVML's when available.
  char hex[33] = {0};
  static constexpr const char* digits = "0123456789abcdef";
  for (int i = 0; i < 16; ++i) {
    const auto b = static_cast<unsigned char>(p.uuid.bytes[i]);
    hex[2 * i] = digits[b >> 4];
    hex[2 * i + 1] = digits[b & 15];
  }
  const std::string h(hex);
  g.uuid = "GPU-" + h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" +
           h.substr(16, 4) + "-" + h.substr(20);
  if (auto d = nvml.device_by_pci(g.pci_bus_id)) {
    if (auto u = nvml.uuid(*d)) g.uuid = *u;
    if (auto s = nvml.serial(*d)) g.serial = *s;
  }
  return g;
}

namespace {

// GPU `i` of this host: CUDA's device i, or past CUDA's count another rank's GPU (per-task
// binding hides it from CUDA here; NVML still sees it), whose facts come from that rank.
GpuTopology describe_host_gpu(int i, int n, const std::vector<GpuInfo>& unseen, const Nvml& nvml,
                              std::optional<Nvml::Device>& handle, std::string& nvml_state) {
  GpuTopology g;
  if (i < n) {
    static_cast<GpuInfo&>(g) = describe_gpu(i, nvml);
  } else {
    static_cast<GpuInfo&>(g) = unseen[static_cast<std::size_t>(i - n)];
    g.index = i;  // its place in this topology
  }
  g.numa_node = numa_node_of(g.pci_bus_id);
  std::string err;
  handle = nvml.device_by_pci(g.pci_bus_id, &err);
  if (handle) {
    g.pcie_gen_current = nvml.pcie_gen(*handle, false);
    g.pcie_gen_max = nvml.pcie_gen(*handle, true);
    g.pcie_gen_gpu_max = nvml.pcie_gen_gpu_max(*handle);
    g.pcie_width_current = nvml.pcie_width(*handle, false);
    g.pcie_width_max = nvml.pcie_width(*handle, true);
    for (const auto& l : nvml.nvlinks(*handle)) {
      g.nvlinks.push_back({l.link, l.active, l.version, l.remote_bus_id, l.speed_gbps});
      if (l.active) ++g.nvlinks_up;
    }
    g.fabric = nvml.fabric(*handle);
  } else if (nvml.available() && nvml_state == "ok") {
    nvml_state = "ok, but " + err;
  }
  return g;
}

// NVLinks between a and b: links whose far end is b, plus, for links to a non-GPU (an NVSwitch,
// or a far end NVML cannot name, as in VMs that hide the switches), the smaller of the two GPUs'
// switch links.
int nvlinks_between(const HostTopology& t, int a, int b) {
  auto switch_links = [&](int g) {
    int n = 0;
    for (const auto& l : t.gpus[g].nvlinks) {
      if (!l.active) continue;
      const bool to_gpu = !l.remote_pci_bus_id.empty() &&
                          std::any_of(t.gpus.begin(), t.gpus.end(), [&](const GpuTopology& o) {
                            return o.pci_bus_id == l.remote_pci_bus_id;
                          });
      if (!to_gpu) ++n;
    }
    return n;
  };
  int direct = 0;
  for (const auto& l : t.gpus[a].nvlinks) {
    if (l.active && l.remote_pci_bus_id == t.gpus[b].pci_bus_id) ++direct;
  }
  return direct + std::min(switch_links(a), switch_links(b));
}

// CUDA's peer facts for devices a and b (both visible to this process).
void cuda_peer_facts(GpuPairTopology& p, int a, int b) {
  int can = 0;
  PB_CUDA(cudaDeviceCanAccessPeer(&can, a, b));
  p.cuda_can_access_peer = can != 0;
  int v = 0;
  if (cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrPerformanceRank, a, b) == cudaSuccess)
    p.cuda_perf_rank = v;
  if (cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, a, b) == cudaSuccess) {
    p.cuda_access_supported = v != 0;
  }
  if (cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrNativeAtomicSupported, a, b) == cudaSuccess) {
    p.cuda_native_atomics = v != 0;
  }
  (void)cudaGetLastError();  // an unsupported attribute query must not linger
}

}  // namespace

HostTopology probe_host_topology(const std::string& host, const Nvml& nvml,
                                 const std::vector<GpuInfo>& unseen) {
  HostTopology t;
  t.host = host;
  t.nvml = nvml.why();
  if (auto v = nvml.driver_version()) t.driver_version = *v;
  const int n = cuda_device_count();  // GPUs CUDA shows this process; `unseen` follow them
  const int total = n + static_cast<int>(unseen.size());
  std::vector<std::optional<Nvml::Device>> handles(total);
  for (int i = 0; i < total; ++i) {
    t.gpus.push_back(describe_host_gpu(i, n, unseen, nvml, handles[i], t.nvml));
  }
  for (int a = 0; a < total; ++a) {
    for (int b = 0; b < total; ++b) {
      if (a == b) continue;
      GpuPairTopology p;
      p.gpu_a = a;
      p.gpu_b = b;
      p.nvlink_count = nvlinks_between(t, a, b);
      if (handles[a] && handles[b]) {
        if (auto anc = nvml.common_ancestor(*handles[a], *handles[b])) p.pcie_path = *anc;
        p.nvml_p2p = nvml.p2p_status(*handles[a], *handles[b]);
      }
      // CUDA cannot be asked about a GPU it does not show this process.
      if (a < n && b < n) cuda_peer_facts(p, a, b);
      t.pairs.push_back(std::move(p));
    }
  }
  return t;
}

}  // namespace peerbench::gpu
