#pragma once
// Link health of the GPU a rank drives, read through NVML for the verdicts' link-errors and
// pcie-downtrained flags (core/judge/verdict.h). Each rank reads its own GPU; rank 0 gathers the
// to_json(GpuLinkHealth) of every rank into RunDocument::link_health.
//
// Where the job calls them:
//   start_link_health()        once per rank before the first measurement (NVLink error
//                              counters are cumulative since boot: this is the "before")
//   record_pcie_under_load()   during or right after a copy-heavy step (e.g. the largest size of
//                              a ce method): idle GPUs lower their PCIe generation
//   finish_link_health()       once per rank after the last measurement (the "after")
#include <atomic>
#include <string>
#include <thread>

#include "core/model/results.h"
#include "gpu/nvml.h"

namespace peerbench::gpu {

GpuLinkHealth start_link_health(const Nvml& nvml, const std::string& host, const GpuInfo& gpu);
void record_pcie_under_load(const Nvml& nvml, GpuLinkHealth& h, const std::string& during);
void finish_link_health(const Nvml& nvml, GpuLinkHealth& h);

// Reads the PCIe generation and width of h's GPU every 20 ms on a thread while a PCIe-heavy step
// runs (the host-staged copy), and records the highest seen into h when destroyed: a link is
// judged by what it reaches under load, never by an idle reading.
class PcieLoadSampler {
 public:
  PcieLoadSampler(const Nvml& nvml, GpuLinkHealth& h, std::string during);
  PcieLoadSampler(const PcieLoadSampler&) = delete;
  PcieLoadSampler& operator=(const PcieLoadSampler&) = delete;
  ~PcieLoadSampler();

 private:
  const Nvml& nvml_;
  GpuLinkHealth& h_;
  std::string during_;
  std::atomic<bool> stop_{false};
  int best_gen_ = -1, best_width_ = -1;
  std::thread thread_;
};

}  // namespace peerbench::gpu
