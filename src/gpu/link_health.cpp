#include "gpu/link_health.h"

#include <algorithm>
#include <chrono>

namespace peerbench::gpu {
namespace {

std::vector<NvLinkErrorCounts> read_errors(const Nvml& nvml, Nvml::Device d) {
  std::vector<NvLinkErrorCounts> out;
  for (const auto& l : nvml.nvlink_errors(d)) {
    out.push_back({l.link, l.replay, l.recovery, l.crc_flit, l.crc_data});
  }
  return out;
}

void add_note(GpuLinkHealth& h, const std::string& note) {
  h.note += (h.note.empty() ? "" : "; ") + note;
}

}  // namespace

GpuLinkHealth start_link_health(const Nvml& nvml, const std::string& host, const GpuInfo& gpu) {
  GpuLinkHealth h;
  h.host = host;
  h.gpu_index = gpu.index;
  h.pci_bus_id = gpu.pci_bus_id;
  std::string err;
  const auto d = nvml.device_by_pci(gpu.pci_bus_id, &err);
  if (!d) {
    add_note(h, nvml.available() ? err : "NVML: " + nvml.why());
    return h;
  }
  h.pcie_gen_max = nvml.pcie_gen(*d, true);
  h.pcie_gen_gpu_max = nvml.pcie_gen_gpu_max(*d);
  h.pcie_width_max = nvml.pcie_width(*d, true);
  h.nvlink_errors_before = read_errors(nvml, *d);
  return h;
}

void record_pcie_under_load(const Nvml& nvml, GpuLinkHealth& h, const std::string& during) {
  const auto d = nvml.device_by_pci(h.pci_bus_id);
  if (!d) return;
  h.pcie_gen_under_load = nvml.pcie_gen(*d, false);
  h.pcie_width_under_load = nvml.pcie_width(*d, false);
  h.under_load_during = during;
}

void finish_link_health(const Nvml& nvml, GpuLinkHealth& h) {
  const auto d = nvml.device_by_pci(h.pci_bus_id);
  if (!d) return;
  h.nvlink_errors_after = read_errors(nvml, *d);
  if (h.nvlink_errors_before.empty() && h.nvlink_errors_after.empty()) {
    add_note(h, "no NVLink error counters (no NVLink, or NVML does not report them)");
  }
}

PcieLoadSampler::PcieLoadSampler(const Nvml& nvml, GpuLinkHealth& h, std::string during)
    : nvml_(nvml), h_(h), during_(std::move(during)) {
  const auto d = nvml_.device_by_pci(h_.pci_bus_id);
  if (!d) return;
  const Nvml::Device dev = *d;
  thread_ = std::thread([this, dev] {
    while (!stop_.load()) {
      if (auto g = nvml_.pcie_gen(dev, false)) best_gen_ = std::max(best_gen_, *g);
      if (auto w = nvml_.pcie_width(dev, false)) best_width_ = std::max(best_width_, *w);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
}

PcieLoadSampler::~PcieLoadSampler() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  if (best_gen_ < 0) return;
  // Across several steps, the best reading counts: a link that reached Gen5 x16 once is not
  // downtrained.
  if (!h_.pcie_gen_under_load || best_gen_ > *h_.pcie_gen_under_load ||
      (best_gen_ == *h_.pcie_gen_under_load &&
       best_width_ > h_.pcie_width_under_load.value_or(-1))) {
    h_.pcie_gen_under_load = best_gen_;
    h_.pcie_width_under_load = best_width_;
    h_.under_load_during = during_;
  }
}

}  // namespace peerbench::gpu
