#pragma once
// Keeps each rank on the CPUs next to its GPU (the GPU's PCI device lists them in sysfs), so
// host-side work of a rank (staging copies, NCCL's proxy thread) does not cross sockets. A
// launcher's own binding wins: when the rank is already limited to fewer than all CPUs, or
// PEERBENCH_NO_BIND is set, nothing changes.
#include <string>
#include <vector>

namespace peerbench {

// Returns what was done, for the results: "bound to CPUs 0-15,32-47 (near 0000:1B:00.0)",
// "kept launcher binding (16 CPUs)", "not bound: ...".
std::string bind_near_gpu(const std::string& pci_bus_id);

// Parses a Linux CPU list ("0-15,32-47"); false for anything else.
bool parse_cpulist(const std::string& list, std::vector<int>& cpus);

}  // namespace peerbench
