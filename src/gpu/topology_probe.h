#pragma once
// Reads this host's GPUs, links and P2P status from CUDA and NVML into the core's topology structs.
#include <optional>
#include <string>
#include <vector>

#include "core/model/results.h"
#include "core/model/topology.h"
#include "gpu/nvml.h"

namespace peerbench::gpu {

// The NUMA node of a PCI device (sysfs), or nullopt when the platform does not say.
std::optional<int> numa_node_of(const std::string& bus_id);

// Number of CUDA devices; throws CudaError (with the runtime's reason, e.g. no driver).
int cuda_device_count();

GpuInfo describe_gpu(int device, const Nvml& nvml);

// All GPUs of this host (CUDA's numbering) and every ordered pair between them. `unseen`: GPUs
// of other ranks on this host that CUDA does not show this process (per-task binding); they are
// added after CUDA's with links from NVML, and their pairs lack CUDA's peer facts.
HostTopology probe_host_topology(const std::string& host, const Nvml& nvml,
                                 const std::vector<GpuInfo>& unseen = {});

}  // namespace peerbench::gpu
