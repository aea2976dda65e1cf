#pragma once
// Link health of the GPU a rank drives, read through NVML for the verdicts' link-errors and
// pcie-downtrained flags (core/verdict.h). Each rank reads its own GPU; rank 0 gathers the
// to_json(GpuLinkHealth) of every rank into RunDocument::link_health.
//
// Where the job calls them:
//   start_link_health()        once per rank before the first measurement (NVLink error
//                              counters are cumulative since boot: this is the "before")
//   record_pcie_under_load()   during or right after a copy-heavy step (e.g. the largest size of
//                              a ce method): idle GPUs lower their PCIe generation
//   finish_link_health()       once per rank after the last measurement (the "after")
#include <string>

#include "core/results.h"
#include "gpu/nvml.h"

namespace peerbench::gpu {

GpuLinkHealth start_link_health(const Nvml& nvml, const std::string& host, const GpuInfo& gpu);
void record_pcie_under_load(const Nvml& nvml, GpuLinkHealth& h, const std::string& during);
void finish_link_health(const Nvml& nvml, GpuLinkHealth& h);

}  // namespace peerbench::gpu
