// Config-space decoding (PCIe port type, ACS) and the bounded reader of a node's files.
#include "core/platform/pci_config.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "core/platform/input_limits.h"
#include "core/platform/sys_root.h"

namespace peerbench {
namespace {

const std::string kFixtures = std::string(PEERBENCH_SOURCE_DIR) + "/tests/data/sysroot/";

// The config space of the PLX downstream port of HeyMeco/Rockchip-pcie-devices#6, as the fixture
// holds it (tests/data/sysroot/README.md).
std::string plx_config() {
  const SysRoot root(kFixtures + "acs-plx-switch");
  return root.read("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0/config", 4096)
      .value_or("");
}

TEST(PciConfig, ReadsThePortTypeAndAcsOfASwitchPort) {
  const std::string c = plx_config();
  ASSERT_EQ(c.size(), 4096u);
  EXPECT_EQ(pcie_port_type(c).value_or(""), "switch-downstream");
  const AcsReading acs = read_acs(c, c.size());
  ASSERT_EQ(acs.state, AcsReading::State::kPresent);
  // The lspci lines of the source, word for word.
  EXPECT_EQ(acs_words(acs.registers.capability),
            "SrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl+ DirectTrans+");
  EXPECT_EQ(acs_words(acs.registers.control),
            "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-");
  EXPECT_TRUE(acs_redirects(acs.registers.control));
}

TEST(PciConfig, SaysWhenTheBytesAreTooFewToTell) {
  const std::string c = plx_config();
  // An unprivileged read returns 64 bytes whatever size the sysfs file shows.
  EXPECT_EQ(read_acs(c.substr(0, 64), 4096).state, AcsReading::State::kUnreadable);
  EXPECT_EQ(read_acs(c.substr(0, 64), 64).state, AcsReading::State::kUnreadable);
  // A conventional device: 256 bytes, no extended capabilities.
  EXPECT_EQ(read_acs(c.substr(0, 256), 256).state, AcsReading::State::kNoExtended);
  // 4096 bytes whose extended list holds no ACS.
  std::string no_acs = c;
  no_acs[0x100] = 0x01;  // AER's ID in place of ACS's
  EXPECT_EQ(read_acs(no_acs, 4096).state, AcsReading::State::kAbsent);
  EXPECT_FALSE(pcie_port_type(std::string(64, '\0')).has_value());
}

TEST(PciConfig, ALoopedCapabilityListEnds) {
  std::string c(4096, '\0');
  c[0x06] = 0x10;  // Status: capabilities list
  c[0x34] = 0x40;
  c[0x40] = 0x05;  // MSI, pointing at itself
  c[0x41] = 0x40;
  c[0x100] = 0x01;  // AER, pointing at itself
  c[0x103] = 0x10;
  EXPECT_FALSE(pcie_port_type(c).has_value());
  EXPECT_EQ(read_acs(c, 4096).state, AcsReading::State::kAbsent);
}

TEST(PciConfig, LinkSpeedsAreGenerations) {
  EXPECT_EQ(pcie_generation_of_speed("2.5 GT/s PCIe"), 1);
  EXPECT_EQ(pcie_generation_of_speed("8.0 GT/s PCIe"), 3);
  EXPECT_EQ(pcie_generation_of_speed("16 GT/s"), 4);
  EXPECT_EQ(pcie_generation_of_speed("32.0 GT/s PCIe"), 5);
  EXPECT_FALSE(pcie_generation_of_speed("Unknown").has_value());
  EXPECT_FALSE(pcie_generation_of_speed("3.0 GT/s").has_value());
}

TEST(SysRoot, LinksResolveInsideTheRoot) {
  const SysRoot root(kFixtures + "acs-plx-switch");
  EXPECT_EQ(root.resolve("/sys/bus/pci/devices/0000:82:00.0").value_or(""),
            "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0/0000:82:00.0");
  EXPECT_FALSE(root.resolve("/sys/bus/pci/devices/0000:99:00.0").has_value());
  EXPECT_EQ(normalize_node_path("/a/../../b/./c"), "/b/c");
  EXPECT_EQ(root.path("/../../etc/passwd"), kFixtures + "acs-plx-switch/etc/passwd");
}

TEST(SysRoot, AbsoluteLinksAreReadAgainstTheRootAndLoopsEnd) {
  char dir[] = "/tmp/sysroot_test_XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string root = dir;
  ASSERT_EQ(::mkdir((root + "/real").c_str(), 0700), 0);
  ASSERT_EQ(::symlink("/real", (root + "/abs").c_str()), 0);  // "/real" of the tree, not of "/"
  ASSERT_EQ(::symlink("b", (root + "/a").c_str()), 0);
  ASSERT_EQ(::symlink("a", (root + "/b").c_str()), 0);
  const SysRoot r(root);
  EXPECT_EQ(r.resolve("/abs").value_or(""), "/real");
  EXPECT_FALSE(r.resolve("/a").has_value());
  for (const char* name : {"/abs", "/a", "/b", "/real"}) ::remove((root + name).c_str());
  ::rmdir(dir);
}

TEST(SysRoot, ReadsAreBounded) {
  const SysRoot root(kFixtures + "builder-vm");
  const auto cpuinfo = root.read("/proc/cpuinfo", 100);
  ASSERT_TRUE(cpuinfo.has_value());
  EXPECT_EQ(cpuinfo->size(), 100u);
  EXPECT_FALSE(root.read("/proc").has_value());  // a folder is not read
  EXPECT_FALSE(root.read("/missing").has_value());
  EXPECT_LE(root.list("/sys/bus/pci/devices").size(), kMaxSysDirEntries);
  EXPECT_EQ(root.list("/sys/bus/pci/devices").size(), 6u);
}

}  // namespace
}  // namespace peerbench
