#pragma once
// What a PCI device's configuration space says about the road peer traffic takes: the PCIe
// port type (root port, switch port, bridge) from the PCI Express capability, and the Access
// Control Services (ACS) extended capability, whose ReqRedir/CmpltRedir bits send peer requests
// up to the root complex. Decoded from the bytes of sysfs `config`; lspci's words for the bits.
#include <cstdint>
#include <optional>
#include <string>

namespace peerbench {

// The PCIe Capabilities register's Device/Port Type (bits 7:4) in words: "endpoint",
// "legacy-endpoint", "root-port", "switch-upstream", "switch-downstream", "pcie-to-pci-bridge",
// "pci-to-pcie-bridge", "rc-endpoint", "rc-event-collector"; nullopt when the device has no
// PCI Express capability (or the bytes are too few to tell).
std::optional<std::string> pcie_port_type(const std::string& config);

struct AcsRegisters {
  std::uint16_t capability = 0;  // ACS Capability register (offset +4)
  std::uint16_t control = 0;     // ACS Control register (offset +6)
};

// What the extended capabilities (past 0x100) say of ACS.
struct AcsReading {
  enum class State {
    kUnreadable,  // fewer bytes than the extended space: unprivileged reads stop at 64
    kNoExtended,  // the device has a 256-byte space: no extended capabilities at all
    kAbsent,      // the extended list holds no ACS capability (ID 0x000D)
    kPresent,
  };
  State state = State::kUnreadable;
  AcsRegisters registers;
};
// `config`: the bytes read; `file_size`: the size sysfs gives the file (4096 for PCIe devices,
// 256 for conventional PCI).
AcsReading read_acs(const std::string& config, std::uint64_t file_size);

// "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-", as lspci
// prints ACSCap/ACSCtl.
std::string acs_words(std::uint16_t bits);
// Control bits that redirect peer requests or completions upstream (ReqRedir, CmpltRedir).
bool acs_redirects(std::uint16_t control);

// sysfs' link speed ("16.0 GT/s PCIe", "8 GT/s", "2.5 GT/s") as a PCIe generation; nullopt when
// unknown ("Unknown", "").
std::optional<int> pcie_generation_of_speed(const std::string& speed);

}  // namespace peerbench
