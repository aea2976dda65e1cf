#include "gpu/device_choice.h"

#include <cuda_runtime.h>

#include <algorithm>

#include "core/platform/gpu_assignment.h"
#include "gpu/check.h"
#include "gpu/nvml.h"
#include "gpu/topology_probe.h"

namespace peerbench::gpu {

std::string cuda_pci_bus_id(int device) {
  char buf[32] = {0};
  PB_CUDA(cudaDeviceGetPCIBusId(buf, sizeof(buf), device));
  return canonical_bus_id(buf);
}

std::string choose_devices(RankContext& rank, bool allow_sharing) {
  std::string why;
  int count = 0;
  try {
    count = cuda_device_count();
    if (count == 0) why = "no CUDA GPU on host " + rank.physical_host;
  } catch (const CudaError& e) {
    why = "no usable CUDA GPU on host " + rank.physical_host + ": " + e.what();
  }
  for (const auto& s : allgather_strings(rank.world, why)) {
    if (!s.empty()) return s;
  }
  rank.device = rank.local_rank % count;
  PB_CUDA(cudaSetDevice(rank.device));
  std::vector<std::string> visible;
  for (int d = 0; d < count; ++d) visible.push_back(cuda_pci_bus_id(d));
  rank.bus_id_of_rank = allgather_strings(rank.world, visible[rank.device]);
  rank.device_of_rank.assign(static_cast<std::size_t>(rank.size), -1);
  PB_MPI(
      MPI_Allgather(&rank.device, 1, MPI_INT, rank.device_of_rank.data(), 1, MPI_INT, rank.world));
  rank.local_device_of_rank.assign(static_cast<std::size_t>(rank.size), -1);
  for (int q = 0; q < rank.size; ++q) {
    if (!rank.same_physical_host(q)) continue;
    const auto it = std::find(visible.begin(), visible.end(), rank.bus_id_of_rank[q]);
    if (it != visible.end()) rank.local_device_of_rank[q] = static_cast<int>(it - visible.begin());
  }
  if (allow_sharing) return "";
  // Every rank computes this from the same gathered facts: the answer is the same everywhere.
  return shared_gpu_problem(rank.physical_host_of_rank, rank.bus_id_of_rank);
}

}  // namespace peerbench::gpu
