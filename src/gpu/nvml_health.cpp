// Nvml's reads of a GPU's settings and health for the node evidence: its name, persistence and
// virtualization modes, uncorrected ECC errors, remapped rows and brand.
#include "gpu/nvml.h"
#include "gpu/nvml_layouts.h"
namespace peerbench::gpu {

std::optional<std::string> Nvml::name(Device d, std::string* error) const {
  char buf[96] = {0};
  if (!call("nvmlDeviceGetName", error, d, static_cast<char*>(buf), 95u)) return std::nullopt;
  return std::string(buf);
}

std::optional<bool> Nvml::persistence_mode(Device d, std::string* error) const {
  int mode = 0;  // nvmlEnableState_t
  if (!call("nvmlDeviceGetPersistenceMode", error, d, &mode)) return std::nullopt;
  return mode == 1;
}

std::optional<std::string> Nvml::virtualization_mode(Device d, std::string* error) const {
  int mode = 0;  // nvmlGpuVirtualizationMode_t
  if (!call("nvmlDeviceGetVirtualizationMode", error, d, &mode)) return std::nullopt;
  static const char* const kModes[] = {"none", "pass-through", "vgpu", "host-vgpu", "host-vsga"};
  if (mode < 0 || mode > 4) return "mode " + std::to_string(mode);
  return std::string(kModes[mode]);
}

std::optional<unsigned long long> Nvml::ecc_uncorrected_volatile(Device d,
                                                                 std::string* error) const {
  unsigned long long count = 0;
  // NVML_MEMORY_ERROR_TYPE_UNCORRECTED 1, NVML_VOLATILE_ECC 0.
  if (!call("nvmlDeviceGetTotalEccErrors", error, d, 1, 0, &count)) return std::nullopt;
  return count;
}

std::optional<Nvml::RemappedRows> Nvml::remapped_rows(Device d, std::string* error) const {
  unsigned corrected = 0, uncorrected = 0, pending = 0, failure = 0;
  if (!call("nvmlDeviceGetRemappedRows", error, d, &corrected, &uncorrected, &pending, &failure))
    return std::nullopt;
  return RemappedRows{failure != 0, pending != 0};
}

std::optional<std::string> Nvml::pci_bus_id(Device d, std::string* error) const {
  nvml_abi::PciInfo pci{};
  if (!call("nvmlDeviceGetPciInfo_v3", error, d, &pci)) return std::nullopt;
  return canonical_bus_id(pci.busId);
}

std::optional<bool> Nvml::consumer_brand(Device d, std::string* error) const {
  int brand = 0;  // nvmlBrandType_t
  if (!call("nvmlDeviceGetBrand", error, d, &brand)) return std::nullopt;
  // NVML_BRAND_GEFORCE 5, TITAN 6, GEFORCE_RTX 15, TITAN_RTX 16.
  return brand == 5 || brand == 6 || brand == 15 || brand == 16;
}

}  // namespace peerbench::gpu
