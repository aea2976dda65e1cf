#include "core/model/schema_node_evidence.h"
#include "core/model/json_out.h"

#include <limits>

namespace peerbench {

using json = nlohmann::json;

namespace {

constexpr std::size_t kMaxEvidenceText = 4096;  // a kernel command line, a note
constexpr std::size_t kMaxList = 4096;  // GPUs, bridges, links, signs, notes
constexpr long long kAnyByteCount = std::numeric_limits<long long>::max();

std::string text(const JsonIn& in, const std::string& key) {
  if (auto v = in.opt(key)) return v->str(kMaxEvidenceText);
  return "";
}

std::optional<int> opt_int(const JsonIn& in, const std::string& key, long long lo, long long hi) {
  if (auto v = in.opt_integer(key, lo, hi)) return static_cast<int>(*v);
  return std::nullopt;
}

std::optional<std::uint64_t> opt_bytes(const JsonIn& in, const std::string& key) {
  if (auto v = in.opt_integer(key, 0, kAnyByteCount)) return static_cast<std::uint64_t>(*v);
  return std::nullopt;
}

json bridge_json(const PcieBridgeEvidence& b) {
  return {{"bdf", b.bdf},
          {"kind", b.kind},
          {"acs_capable", opt_json(b.acs_capable)},
          {"acs_redirects", opt_json(b.acs_redirects)},
          {"acs_ctl", b.acs_ctl},
          {"note", b.note}};
}

PcieBridgeEvidence bridge_from(const JsonIn& in) {
  in.require_object();
  PcieBridgeEvidence b;
  b.bdf = in.at("bdf").str(64);
  b.kind = text(in, "kind");
  b.acs_capable = in.opt_bool("acs_capable");
  b.acs_redirects = in.opt_bool("acs_redirects");
  b.acs_ctl = text(in, "acs_ctl");
  b.note = text(in, "note");
  return b;
}

json pcie_json(const GpuPcieEvidence& g) {
  json bridges = json::array();
  for (const auto& b : g.bridges) bridges.push_back(bridge_json(b));
  return {{"pci_bus_id", g.pci_bus_id},           {"bridges", bridges},
          {"link_gen", opt_json(g.link_gen)},     {"link_gen_max", opt_json(g.link_gen_max)},
          {"link_width", opt_json(g.link_width)}, {"link_width_max", opt_json(g.link_width_max)},
          {"bar1_bytes", opt_json(g.bar1_bytes)}, {"iommu_group", opt_json(g.iommu_group)},
          {"numa_node", opt_json(g.numa_node)},   {"note", g.note}};
}

GpuPcieEvidence pcie_from(const JsonIn& in) {
  in.require_object();
  GpuPcieEvidence g;
  g.pci_bus_id = in.at("pci_bus_id").str(64);
  if (auto bs = in.opt("bridges")) {
    for (const auto& b : bs->array(kMaxList)) g.bridges.push_back(bridge_from(b));
  }
  g.link_gen = opt_int(in, "link_gen", 1, 16);
  g.link_gen_max = opt_int(in, "link_gen_max", 1, 16);
  g.link_width = opt_int(in, "link_width", 0, 64);
  g.link_width_max = opt_int(in, "link_width_max", 0, 64);
  g.bar1_bytes = opt_bytes(in, "bar1_bytes");
  g.iommu_group = opt_int(in, "iommu_group", 0, 1 << 20);
  g.numa_node = opt_int(in, "numa_node", 0, 1 << 16);
  g.note = text(in, "note");
  return g;
}

json gpu_json(const GpuNodeEvidence& g) {
  json links = json::array();
  for (const auto& l : g.nvlinks)
    links.push_back(
        {{"link", l.link}, {"up", opt_json(l.up)}, {"remote_pci_bus_id", l.remote_pci_bus_id}});
  return {{"gpu_index", g.gpu_index},
          {"pci_bus_id", g.pci_bus_id},
          {"name", g.name},
          {"nvlinks_expected", opt_json(g.nvlinks_expected)},
          {"nvlinks", links},
          {"fabric_state", g.fabric_state},
          {"fabric_health", g.fabric_health},
          {"persistence_mode", opt_json(g.persistence_mode)},
          {"clock_event_reasons", g.clock_event_reasons},
          {"ecc_uncorrected_volatile", opt_json(g.ecc_uncorrected_volatile)},
          {"remapped_rows_failure", opt_json(g.remapped_rows_failure)},
          {"remapped_rows_pending", opt_json(g.remapped_rows_pending)},
          {"consumer_card_p2p_off", opt_json(g.consumer_card_p2p_off)},
          {"note", g.note}};
}

GpuNodeEvidence gpu_from(const JsonIn& in) {
  in.require_object();
  GpuNodeEvidence g;
  g.gpu_index = static_cast<int>(in.at("gpu_index").integer(-1, 1 << 20));
  g.pci_bus_id = text(in, "pci_bus_id");
  g.name = text(in, "name");
  g.nvlinks_expected = opt_int(in, "nvlinks_expected", 0, 1024);
  if (auto ls = in.opt("nvlinks")) {
    for (const auto& l : ls->array(kMaxList)) {
      l.require_object();
      NvLinkState s;
      s.link = static_cast<int>(l.at("link").integer(0, 1023));
      s.up = l.opt_bool("up");
      s.remote_pci_bus_id = text(l, "remote_pci_bus_id");
      g.nvlinks.push_back(s);
    }
  }
  g.fabric_state = text(in, "fabric_state");
  g.fabric_health = text(in, "fabric_health");
  g.persistence_mode = in.opt_bool("persistence_mode");
  if (auto r = in.opt("clock_event_reasons")) g.clock_event_reasons = r->string_array(64);
  g.ecc_uncorrected_volatile = opt_bytes(in, "ecc_uncorrected_volatile");
  g.remapped_rows_failure = in.opt_bool("remapped_rows_failure");
  g.remapped_rows_pending = in.opt_bool("remapped_rows_pending");
  g.consumer_card_p2p_off = in.opt_bool("consumer_card_p2p_off");
  g.note = text(in, "note");
  return g;
}

json host_parts_json(const NodeEvidence& e) {
  const auto& i = e.iommu;
  const auto& v = e.virtualization;
  const auto& c = e.container;
  return {{"iommu",
           {{"mode", i.mode},
            {"groups", opt_json(i.groups)},
            {"default_domain_type", i.default_domain_type},
            {"kernel_cmdline", i.kernel_cmdline},
            {"note", i.note}}},
          {"virtualization",
           {{"hypervisor_flag", opt_json(v.hypervisor_flag)},
            {"dmi_vendor", v.dmi_vendor},
            {"dmi_product", v.dmi_product},
            {"hypervisor_hint", v.hypervisor_hint},
            {"nvml_mode", v.nvml_mode},
            {"note", v.note}}},
          {"container",
           {{"runtime", c.runtime},
            {"signs", c.signs},
            {"ipc_namespace_is_init", opt_json(c.ipc_namespace_is_init)},
            {"shm_bytes", opt_json(c.shm_bytes)},
            {"shm_free_bytes", opt_json(c.shm_free_bytes)},
            {"note", c.note}}}};
}

void host_parts_from(const JsonIn& in, NodeEvidence& e) {
  const JsonIn i = in.at("iommu");
  i.require_object();
  e.iommu.mode = text(i, "mode");
  e.iommu.groups = opt_int(i, "groups", 0, 1 << 24);
  e.iommu.default_domain_type = text(i, "default_domain_type");
  e.iommu.kernel_cmdline = text(i, "kernel_cmdline");
  e.iommu.note = text(i, "note");
  const JsonIn v = in.at("virtualization");
  v.require_object();
  e.virtualization.hypervisor_flag = v.opt_bool("hypervisor_flag");
  e.virtualization.dmi_vendor = text(v, "dmi_vendor");
  e.virtualization.dmi_product = text(v, "dmi_product");
  e.virtualization.hypervisor_hint = text(v, "hypervisor_hint");
  e.virtualization.nvml_mode = text(v, "nvml_mode");
  e.virtualization.note = text(v, "note");
  const JsonIn c = in.at("container");
  c.require_object();
  e.container.runtime = text(c, "runtime");
  if (auto s = c.opt("signs")) e.container.signs = s->string_array(kMaxList);
  e.container.ipc_namespace_is_init = c.opt_bool("ipc_namespace_is_init");
  e.container.shm_bytes = opt_bytes(c, "shm_bytes");
  e.container.shm_free_bytes = opt_bytes(c, "shm_free_bytes");
  e.container.note = text(c, "note");
}

}  // namespace

json to_json(const NodeEvidence& e) {
  json j = {{"host", e.host}, {"collected_by", e.collected_by}, {"driver", e.driver}};
  j.update(host_parts_json(e));
  j["steering_environment"] = e.steering_environment;
  j["cuda_order_differs_from_pci"] = opt_json(e.cuda_order_differs_from_pci);
  j["pcie"] = json::array();
  for (const auto& g : e.pcie) j["pcie"].push_back(pcie_json(g));
  j["gpus"] = json::array();
  for (const auto& g : e.gpus) j["gpus"].push_back(gpu_json(g));
  j["notes"] = e.notes;
  return j;
}

NodeEvidence node_evidence_from(const JsonIn& in) {
  in.require_object();
  NodeEvidence e;
  e.host = in.at("host").str(256);
  e.collected_by = text(in, "collected_by");
  e.driver = text(in, "driver");
  host_parts_from(in, e);
  if (auto s = in.opt("steering_environment")) {
    s->require_object();
    for (const auto& [k, v] : s->raw().items()) {
      if (e.steering_environment.size() >= 64) s->fail("more than 64 variables");
      e.steering_environment[k] = s->at(k).str(kMaxEvidenceText);
    }
  }
  e.cuda_order_differs_from_pci = in.opt_bool("cuda_order_differs_from_pci");
  if (auto ps = in.opt("pcie")) {
    for (const auto& p : ps->array(kMaxList)) e.pcie.push_back(pcie_from(p));
  }
  if (auto gs = in.opt("gpus")) {
    for (const auto& g : gs->array(kMaxList)) e.gpus.push_back(gpu_from(g));
  }
  if (auto ns = in.opt("notes")) e.notes = ns->string_array(kMaxList);
  return e;
}

}  // namespace peerbench
