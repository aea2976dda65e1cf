#pragma once
// The host part of a node's evidence (node_evidence.h), read from sysfs and procfs under a root
// directory: "/" on the node, a fixture tree in the tests (tests/data/sysroot/). GPU-free: the
// GPUs are found by their PCI vendor and class, or named by the caller in CUDA order. The GPU
// part (NVML) is added by src/gpu/node_evidence_gpu.h.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/model/node_evidence.h"
#include "core/platform/sys_root.h"

namespace peerbench {

struct HostEvidenceRequest {
  std::string root = "/";
  // The GPUs in CUDA order, sysfs form ("0000:1b:00.0"); empty: the NVIDIA GPUs sysfs lists, in
  // PCI order.
  std::vector<std::string> gpu_bus_ids;
  std::vector<std::string> environment;  // "NAME=value", as environ holds them
  // Whether CUDA's order differs from PCI order, where the caller knows (run asks CUDA); nullopt:
  // derived from CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER.
  std::optional<bool> cuda_order_differs;
  std::string collected_by = "doctor";
  std::string host;
};

NodeEvidence read_host_evidence(const HostEvidenceRequest& request);

// ---- The parts, each from the files it names (node_evidence_pcie.cpp, node_evidence_host.cpp).
// NVIDIA display and 3D controllers (vendor 0x10de, class 0x0300xx or 0x0302xx) under
// /sys/bus/pci/devices, in PCI order.
std::vector<std::string> nvidia_gpus_in_sysfs(const SysRoot& root);
// The GPU's PCIe path (bridges from the root port down), ACS on each bridge, its link, BAR1,
// IOMMU group and NUMA node.
GpuPcieEvidence read_gpu_pcie(const SysRoot& root, const std::string& bus_id);
// The kernel module's version (/proc/driver/nvidia/version), or "" when the driver is not there.
std::string nvidia_module_version(const SysRoot& root);
IommuEvidence read_iommu(const SysRoot& root, const std::vector<GpuPcieEvidence>& gpus);
VirtualizationEvidence read_virtualization(const SysRoot& root);
ContainerEvidence read_container(const SysRoot& root, const std::vector<std::string>& environment);
// The variables of NodeEvidence::steering_environment that are set.
std::map<std::string, std::string> steering_environment(const std::vector<std::string>& env);
// Whether CUDA numbers the GPUs otherwise than PCI order, from CUDA_VISIBLE_DEVICES and
// CUDA_DEVICE_ORDER alone; nullopt where they do not settle it (UUIDs, FASTEST_FIRST over
// different models). `same_model`: every GPU has one PCI device id.
std::optional<bool> cuda_order_from_environment(const std::map<std::string, std::string>& steering,
                                                bool same_model);

}  // namespace peerbench
