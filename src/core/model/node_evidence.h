#pragma once
// What peerbench read on a node that can explain why traffic between GPUs takes a slow road
// (issue 40): the PCIe path and its ACS settings, the IOMMU, virtualization, the container, the
// environment variables that steer NCCL and CUDA, and each GPU's NVLinks, fabric, clocks and
// memory health. `run` records one per host in the results; `peerbench doctor` prints one.
//
// Plain structs. Nothing here is guessed: a fact that could not be read is empty or nullopt, and
// `note` says why ("unreadable without root", "no NVIDIA driver", "not on this kernel").
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace peerbench {

// One PCIe bridge or switch port on the path between a GPU and its root complex.
struct PcieBridgeEvidence {
  std::string bdf;   // "0000:00:01.0"
  std::string kind;  // "root-port", "switch-upstream", "switch-downstream", "pci-bridge", ""
  // The ACS extended capability, read from config space (sysfs `config`, past offset 0x100,
  // which only root may read): whether the port has it, and whether it redirects peer requests
  // up to the root complex (ACSCtl ReqRedir or CmpltRedir on), which turns P2P off or slows it.
  std::optional<bool> acs_capable;
  std::optional<bool> acs_redirects;
  std::string acs_ctl;  // the control bits as lspci words ("SrcValid+ ReqRedir+ CmpltRedir+ ...")
  std::string note;     // why ACS was not read ("unreadable without root")
};

// One GPU's PCIe side.
struct GpuPcieEvidence {
  std::string pci_bus_id;                   // "0000:1b:00.0", sysfs form
  std::vector<PcieBridgeEvidence> bridges;  // from the root port down to the GPU's parent
  std::optional<int> link_gen, link_gen_max, link_width, link_width_max;
  std::optional<std::uint64_t> bar1_bytes;
  std::optional<int> iommu_group;
  std::optional<int> numa_node;
  std::string note;
};

struct IommuEvidence {
  // "off" (no IOMMU groups), "translated" (DMA domain), "passthrough" (identity domain,
  // iommu=pt), "" unknown.
  std::string mode;
  std::optional<int> groups;        // IOMMU groups under /sys/kernel/iommu_groups
  std::string default_domain_type;  // a GPU's group `type`: "DMA", "DMA-FQ", "identity", ...
  std::string kernel_cmdline;       // /proc/cmdline
  std::string note;
};

struct VirtualizationEvidence {
  std::optional<bool> hypervisor_flag;  // the CPU's `hypervisor` flag (/proc/cpuinfo)
  std::string dmi_vendor;               // /sys/class/dmi/id/sys_vendor, "" when absent
  std::string dmi_product;              // /sys/class/dmi/id/product_name
  std::string hypervisor_hint;          // "firecracker", "kvm", "vmware", ... from cmdline/DMI
  std::string nvml_mode;  // NVML virtualization mode: "none", "pass-through", "vgpu", "host-vgpu"
  std::string note;
};

struct ContainerEvidence {
  std::string runtime;             // "none", "docker", "podman", "kubernetes", "containerd", ""
  std::vector<std::string> signs;  // what said so: "/.dockerenv present", "cgroup 0::/kubepods/..."
  std::optional<bool> ipc_namespace_is_init;  // this process's IPC namespace is PID 1's
  std::optional<std::uint64_t> shm_bytes;     // /dev/shm size (statvfs)
  std::optional<std::uint64_t> shm_free_bytes;
  std::string note;
};

// One NVLink of a GPU.
struct NvLinkState {
  int link = -1;
  std::optional<bool> up;
  std::string remote_pci_bus_id;  // the GPU or switch at the other end, when NVML says
};

// One GPU's own health and settings.
struct GpuNodeEvidence {
  int gpu_index = -1;  // CUDA ordinal in this process's view
  std::string pci_bus_id;
  std::string name;                     // "NVIDIA H200"
  std::optional<int> nvlinks_expected;  // the model's count (known-good tables), when known
  std::vector<NvLinkState> nvlinks;     // every link NVML lists
  std::string fabric_state;   // NVSwitch systems: "not-supported", "not-started", "in-progress",
                              // "completed"; "" unread
  std::string fabric_health;  // "ok", "degraded", ... when NVML has it
  std::optional<bool> persistence_mode;
  std::vector<std::string> clock_event_reasons;  // "sw-power-cap", "hw-slowdown", ... (not idle)
  std::optional<std::uint64_t> ecc_uncorrected_volatile;
  std::optional<bool> remapped_rows_failure;
  std::optional<bool> remapped_rows_pending;
  std::optional<bool> consumer_card_p2p_off;  // a GeForce/RTX card whose driver disables P2P
  std::string note;
};

// A GPU's NVLinks by what NVML said of each: up, or listed and inactive (down). A link whose
// state was not read is neither, and a link NVML does not list is not seen: neither is down.
inline int nvlinks_up(const GpuNodeEvidence& g) {
  int n = 0;
  for (const auto& l : g.nvlinks) n += l.up.value_or(false) ? 1 : 0;
  return n;
}
inline std::vector<int> nvlinks_down(const GpuNodeEvidence& g) {
  std::vector<int> down;
  for (const auto& l : g.nvlinks)
    if (l.up && !*l.up) down.push_back(l.link);
  return down;
}

struct NodeEvidence {
  std::string host;
  std::string collected_by;  // "run", "doctor"
  std::string driver;        // "no NVIDIA driver", or the NVML driver version
  IommuEvidence iommu;
  VirtualizationEvidence virtualization;
  ContainerEvidence container;
  // The NCCL_* and CUDA_* variables that steer transports or devices, as set (absent: unset):
  // NCCL_P2P_DISABLE, NCCL_P2P_LEVEL, NCCL_SHM_DISABLE, NCCL_IB_DISABLE, NCCL_NET,
  // NCCL_SOCKET_IFNAME, NCCL_CUMEM_ENABLE, CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER.
  std::map<std::string, std::string> steering_environment;
  // Whether CUDA's device order (as CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER give it) differs
  // from PCI bus order; nullopt when not known.
  std::optional<bool> cuda_order_differs_from_pci;
  std::vector<GpuPcieEvidence> pcie;  // per GPU, in CUDA order
  std::vector<GpuNodeEvidence> gpus;  // per GPU, in CUDA order
  std::vector<std::string> notes;     // what could not be read at all, and why
};

}  // namespace peerbench
