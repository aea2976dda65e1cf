// diagnose() with node evidence read from the fixture trees (tests/data/sysroot/, README.md there
// cites each) through the readers `run` uses (read_host_evidence), on a real 2 x H200 run
// (tests/fixtures/runs/h200x2/) with its change named: the causes come from files, as on a node,
// not from evidence built in code. (fleet's grouping of such nodes from their results files:
// tests/cpu/fleet/fleet_causes_test.cpp.)
#include <gtest/gtest.h>

#include "core/model/node_evidence_host.h"
#include "diagnosis_fixtures.h"
#include "test_sysroot.h"

namespace peerbench {
namespace {

using test::cause_in;
using test::codes_of;
using test::diagnosis_of;
using test::h200x2_run;

RunDocument with_tree(RunDocument d, const std::string& name) {
  d.node_evidence = {test::sysroot_evidence_for_run(name, d)};
  return d;
}

// default.json (every pair passing) with CUDA refusing peer access on every pair (change): its
// copies staged through the host, on the cards at `buses`.
RunDocument default_host_staged_on(const std::vector<std::string>& buses) {
  return test::host_staged_on(h200x2_run("default.json"), buses);
}

TEST(DiagnosisSysroot, AcsOnTheAmdRootPortsNamesBothBridges) {
  // NVIDIA/nccl#2079's two GPUs behind AMD GPP root ports with ACS redirecting.
  const RunDocument d =
      with_tree(default_host_staged_on({"0000:41:00.0", "0000:61:00.0"}), "acs-amd-gpp");
  ASSERT_EQ(d.node_evidence.front().pcie.size(), 2u);
  const auto cs = diagnosis_of(d);
  ASSERT_FALSE(cs.empty());
  EXPECT_EQ(cs.front().code, "acs-redirect") << testing::PrintToString(codes_of(cs));
  EXPECT_EQ(cs.front().next,
            "Next: disable ACS on bridge 0000:40:01.1, 0000:60:01.1 (BIOS, or setpci -s "
            "0000:40:01.1 ECAP_ACS+0x6.w=0000 and setpci -s 0000:60:01.1 ECAP_ACS+0x6.w=0000) or "
            "boot with iommu=pt");
  EXPECT_NE(cs.front().summary.find("ReqRedir+ CmpltRedir+"), std::string::npos)
      << cs.front().summary;
  EXPECT_NE(std::find(cs.front().flags.begin(), cs.front().flags.end(), "host-staged"),
            cs.front().flags.end());
  EXPECT_EQ(cause_in(cs, "peer-access-unsupported"), nullptr);  // the bridges explain it
  EXPECT_EQ(cause_in(cs, "unknown"), nullptr);
}

TEST(DiagnosisSysroot, AcsOnThePlxDownstreamPortAboveOneGpu) {
  // HeyMeco/Rockchip-pcie-devices#6's PEX 8725 port above rank 0's card; rank 1's card is not in
  // the tree (the GPU machine's second GPU), so only pairs with rank 0 cross the bridge.
  const RunDocument d =
      with_tree(default_host_staged_on({"0000:82:00.0", "0000:00:07.0"}), "acs-plx-switch");
  const auto cs = diagnosis_of(d);
  const DiagnosedCause* acs = cause_in(cs, "acs-redirect");
  ASSERT_NE(acs, nullptr) << testing::PrintToString(codes_of(cs));
  EXPECT_EQ(acs->next.rfind("Next: disable ACS on bridge 0000:02:08.0 (BIOS, or setpci -s "
                            "0000:02:08.0 ECAP_ACS+0x6.w=0000)",
                            0),
            0u)
      << acs->next;
  ASSERT_FALSE(acs->evidence.empty());
  EXPECT_EQ(acs->evidence.front().fact,
            "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-");
}

TEST(DiagnosisSysroot, NoRedirectReadBlamesNoBridge) {
  // NVIDIA/nccl#1405's switch with every ACSCtl bit off, and the PLX tree as a reader who is not
  // root sees it (config cut to 64 bytes): no bridge is blamed, CUDA's answer stands with its
  // Next line naming the doctor.
  for (const char* tree : {"acs-off-switch", "acs-plx-unprivileged"}) {
    const std::vector<std::string> buses =
        std::string(tree) == "acs-off-switch"
            ? std::vector<std::string>{"0000:03:00.0", "0000:04:00.0"}
            : std::vector<std::string>{"0000:82:00.0", "0000:00:07.0"};
    const auto cs = diagnosis_of(with_tree(default_host_staged_on(buses), tree));
    EXPECT_EQ(cause_in(cs, "acs-redirect"), nullptr) << tree;
    ASSERT_FALSE(cs.empty()) << tree;
    EXPECT_TRUE(cs.front().code == "peer-access-unsupported" ||
                cs.front().code == "virtualized-no-p2p")
        << tree << ": " << testing::PrintToString(codes_of(cs));
  }
}

TEST(DiagnosisSysroot, TheGpuMachinesTree) {
  // The GPU machine's tree (a Firecracker microVM, its GPUs on the root bus): on its own runs it
  // adds no cause, and where CUDA refuses peer access (change) it names the VM.
  RunDocument p2p = with_tree(h200x2_run("p2p-disabled.json"), "gpu-vm-h200x2");
  p2p.node_evidence.front().container.shm_bytes = 137438953472ull;  // its df, not this disk's
  EXPECT_EQ(codes_of(diagnosis_of(p2p)), std::vector<std::string>{"nccl-p2p-disabled-by-env"});
  EXPECT_TRUE(diagnosis_of(with_tree(h200x2_run("default.json"), "gpu-vm-h200x2")).empty());
  const auto cs = diagnosis_of(with_tree(default_host_staged_on({}), "gpu-vm-h200x2"));
  ASSERT_FALSE(cs.empty());
  EXPECT_EQ(cs.front().code, "virtualized-no-p2p") << testing::PrintToString(codes_of(cs));
  EXPECT_NE(cs.front().summary.find("firecracker"), std::string::npos) << cs.front().summary;
}

}  // namespace
}  // namespace peerbench
