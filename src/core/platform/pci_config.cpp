#include "core/platform/pci_config.h"

#include <cstdlib>

namespace peerbench {
namespace {

constexpr std::size_t kConventionalSpace = 256;  // standard header and capabilities
constexpr std::size_t kExtendedSpace = 4096;     // PCIe: extended capabilities from 0x100
constexpr std::uint8_t kPcieCapabilityId = 0x10;
constexpr std::uint16_t kAcsCapabilityId = 0x000D;

unsigned byte_at(const std::string& c, std::size_t at) {
  return at < c.size() ? static_cast<unsigned char>(c[at]) : 0u;
}
unsigned word_at(const std::string& c, std::size_t at) {
  return byte_at(c, at) | (byte_at(c, at + 1) << 8);
}
std::uint32_t dword_at(const std::string& c, std::size_t at) {
  return word_at(c, at) | (static_cast<std::uint32_t>(word_at(c, at + 2)) << 16);
}

// The offset of the standard capability `id`, walking the list from 0x34 (at most 48 steps: a
// looped list ends too).
std::optional<std::size_t> find_capability(const std::string& c, std::uint8_t id) {
  if (c.size() < 64 || !(word_at(c, 0x06) & 0x10)) return std::nullopt;  // Status: Cap+
  std::size_t at = byte_at(c, 0x34) & 0xFC;
  for (int step = 0; step < 48 && at >= 0x40 && at + 2 <= c.size(); ++step) {
    if (byte_at(c, at) == id) return at;
    at = byte_at(c, at + 1) & 0xFC;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> pcie_port_type(const std::string& config) {
  const auto at = find_capability(config, kPcieCapabilityId);
  if (!at || *at + 4 > config.size()) return std::nullopt;
  static const char* const kTypes[] = {"endpoint",
                                       "legacy-endpoint",
                                       "",
                                       "",
                                       "root-port",
                                       "switch-upstream",
                                       "switch-downstream",
                                       "pcie-to-pci-bridge",
                                       "pci-to-pcie-bridge",
                                       "rc-endpoint",
                                       "rc-event-collector"};
  const unsigned type = (word_at(config, *at + 2) >> 4) & 0xF;
  if (type >= sizeof(kTypes) / sizeof(kTypes[0]) || kTypes[type][0] == '\0') return std::nullopt;
  return std::string(kTypes[type]);
}

AcsReading read_acs(const std::string& config, std::uint64_t file_size) {
  AcsReading r;
  // Every device has at least the 256 conventional bytes: fewer is an unprivileged read (the
  // kernel gives such reads the first 64 bytes, whatever size the file shows).
  if (config.size() < kConventionalSpace) return r;  // kUnreadable
  if (file_size <= kConventionalSpace) {
    r.state = AcsReading::State::kNoExtended;
    return r;
  }
  if (config.size() < kExtendedSpace) return r;  // kUnreadable
  std::size_t at = 0x100;
  r.state = AcsReading::State::kAbsent;
  // Each header: ID (15:0), version (19:16), next offset (31:20); at most 960 headers fit.
  for (int step = 0; step < 960 && at >= 0x100 && at + 8 <= config.size(); ++step) {
    const std::uint32_t header = dword_at(config, at);
    if (header == 0 || header == 0xFFFFFFFFu) break;
    if ((header & 0xFFFF) == kAcsCapabilityId) {
      r.state = AcsReading::State::kPresent;
      r.registers.capability = static_cast<std::uint16_t>(word_at(config, at + 4));
      r.registers.control = static_cast<std::uint16_t>(word_at(config, at + 6));
      return r;
    }
    at = (header >> 20) & 0xFFC;
  }
  return r;
}

std::string acs_words(std::uint16_t bits) {
  static const char* const kNames[] = {"SrcValid",    "TransBlk",   "ReqRedir",   "CmpltRedir",
                                       "UpstreamFwd", "EgressCtrl", "DirectTrans"};
  std::string out;
  for (unsigned i = 0; i < 7; ++i) {
    if (!out.empty()) out += ' ';
    out += std::string(kNames[i]) + ((bits >> i) & 1u ? "+" : "-");
  }
  return out;
}

bool acs_redirects(std::uint16_t control) {
  return (control & 0x000C) != 0;
}

std::optional<int> pcie_generation_of_speed(const std::string& speed) {
  char* end = nullptr;
  const double gts = std::strtod(speed.c_str(), &end);
  if (end == speed.c_str()) return std::nullopt;
  // GT/s per lane of each generation: 2.5, 5, 8, 16, 32, 64.
  static const double kRates[] = {2.5, 5, 8, 16, 32, 64};
  for (int g = 0; g < 6; ++g) {
    if (gts > kRates[g] * 0.95 && gts < kRates[g] * 1.05) return g + 1;
  }
  return std::nullopt;
}

}  // namespace peerbench
