#include "gpu/node_evidence_gpu.h"

#include <cctype>
#include <utility>

#include "core/base/text.h"
#include "core/model/gpu_activity.h"
#include "core/model/known_good.h"

namespace peerbench::gpu {
namespace {

void add_note(std::string& notes, const std::string& error) {
  if (error.empty()) return;
  notes += (notes.empty() ? "" : "; ") + error;
}

void read_links_and_fabric(const Nvml& nvml, Nvml::Device d, GpuNodeEvidence& g) {
  for (const auto& l : nvml.nvlinks(d)) {
    NvLinkState s;
    s.link = l.link;
    s.up = l.active;
    s.remote_pci_bus_id = l.remote_bus_id;
    g.nvlinks.push_back(s);
  }
  const FabricInfo f = nvml.fabric(d);
  // A GPU outside an NVSwitch system answers NOT_SUPPORTED: that is its state, not a failure.
  g.fabric_state = f.state == "unknown" && f.note == "Not Supported" ? "not-supported" : f.state;
  g.fabric_health = f.health;
  if (g.fabric_state == "unknown") add_note(g.note, "fabric: " + f.note);
}

// Whether P2P is off between this consumer card and the others (NVML's P2P read status).
std::optional<bool> consumer_p2p_off(const Nvml& nvml, Nvml::Device d,
                                     const std::vector<Nvml::Device>& all) {
  std::optional<bool> off;
  for (auto other : all) {
    if (other == d) continue;
    const auto status = nvml.p2p_status(d, other);
    const auto read = status.find("read");
    if (read == status.end() || read->second == "U") continue;
    off = off.value_or(false) || read->second != "OK";
  }
  return off;
}

void read_health(const Nvml& nvml, Nvml::Device d, GpuNodeEvidence& g) {
  std::string error;
  g.persistence_mode = nvml.persistence_mode(d, &error);
  add_note(g.note, std::exchange(error, ""));
  if (auto reasons = nvml.clock_event_reasons(d)) {
    g.clock_event_reasons = clock_event_reason_names(*reasons);
  } else {
    add_note(g.note, "clock event reasons unreadable");
  }
  // ECC off (most consumer cards) and no row remapper (before A100) are NOT_SUPPORTED: noted.
  g.ecc_uncorrected_volatile = nvml.ecc_uncorrected_volatile(d, &error);
  add_note(g.note, std::exchange(error, ""));
  if (auto rows = nvml.remapped_rows(d, &error)) {
    g.remapped_rows_failure = rows->failure;
    g.remapped_rows_pending = rows->pending;
  }
  add_note(g.note, std::exchange(error, ""));
}

GpuNodeEvidence read_gpu(const Nvml& nvml, Nvml::Device d, const std::vector<Nvml::Device>& all) {
  GpuNodeEvidence g;
  std::string error;
  g.name = nvml.name(d, &error).value_or("");
  add_note(g.note, std::exchange(error, ""));
  g.nvlinks_expected = builtin_known_good_table().nvlinks_of(g.name);
  read_links_and_fabric(nvml, d, g);
  read_health(nvml, d, g);
  const auto consumer = nvml.consumer_brand(d, &error);
  add_note(g.note, std::exchange(error, ""));
  if (consumer) g.consumer_card_p2p_off = *consumer ? consumer_p2p_off(nvml, d, all) : false;
  return g;
}

}  // namespace

std::vector<std::string> nvml_gpu_bus_ids(const Nvml& nvml, NodeEvidence& e) {
  std::vector<std::string> out;
  for (auto d : nvml.devices()) {
    std::string error;
    if (auto id = nvml.pci_bus_id(d, &error)) {
      std::string lower = *id;
      for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      out.push_back(lower);
    } else {
      e.notes.push_back(error);
    }
  }
  return out;
}

void add_gpu_evidence(const Nvml& nvml, NodeEvidence& e, const std::vector<int>& cuda_indices) {
  if (!nvml.available()) {
    e.notes.push_back("NVML: " + nvml.why());
    return;
  }
  if (auto v = nvml.driver_version()) e.driver = *v;
  std::vector<Nvml::Device> devices;
  std::vector<std::size_t> of_pcie;
  for (std::size_t i = 0; i < e.pcie.size(); ++i) {
    std::string error;
    if (auto d = nvml.device_by_pci(e.pcie[i].pci_bus_id, &error)) {
      devices.push_back(*d);
      of_pcie.push_back(i);
    } else {
      e.notes.push_back(error);
    }
  }
  for (std::size_t k = 0; k < devices.size(); ++k) {
    GpuNodeEvidence g = read_gpu(nvml, devices[k], devices);
    const std::size_t i = of_pcie[k];
    g.gpu_index = i < cuda_indices.size() ? cuda_indices[i] : -1;
    g.pci_bus_id = e.pcie[i].pci_bus_id;
    e.gpus.push_back(std::move(g));
  }
  if (!devices.empty()) {
    std::string error;
    e.virtualization.nvml_mode = nvml.virtualization_mode(devices.front(), &error).value_or("");
    if (!error.empty()) e.notes.push_back(error);
  }
}

}  // namespace peerbench::gpu
