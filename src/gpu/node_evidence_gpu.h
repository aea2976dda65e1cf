#pragma once
// The GPU part of a node's evidence (core/model/node_evidence.h), from NVML: each GPU's NVLinks
// against its model's count, the NVSwitch fabric, persistence, clock event reasons, ECC and
// remapped rows, the virtualization mode, consumer cards. Every NVML call is checked: what NVML
// cannot answer is a note on that GPU, never an exit.
#include <string>
#include <vector>

#include "core/model/node_evidence.h"
#include "gpu/nvml.h"

namespace peerbench::gpu {

// Adds e.gpus for the GPUs of e.pcie (their order; `cuda_indices[i]` is the CUDA ordinal of
// e.pcie[i], -1 where unknown), NVML's virtualization mode and its driver version. Without NVML,
// a note says why and e.gpus stays empty.
void add_gpu_evidence(const Nvml& nvml, NodeEvidence& e, const std::vector<int>& cuda_indices);

// The GPUs NVML lists, sysfs form ("0000:1b:00.0"), for a node whose sysfs shows none (a
// container without the host's /sys); a GPU NVML cannot name is a note.
std::vector<std::string> nvml_gpu_bus_ids(const Nvml& nvml, NodeEvidence& e);

}  // namespace peerbench::gpu
