// doctor's findings (core/judge/doctor_findings) on fixture trees and on faults the GPU machine
// was given (../shared/REFERENCE.md), and its page (core/present/node_evidence_text) within 40
// lines.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "core/base/text.h"
#include "core/judge/doctor_findings.h"
#include "core/model/node_evidence_host.h"
#include "core/present/node_evidence_text.h"

namespace peerbench {
namespace {

NodeEvidence read_fixture(const std::string& name, std::vector<std::string> env = {}) {
  HostEvidenceRequest r;
  r.root = std::string(PEERBENCH_SOURCE_DIR) + "/tests/data/sysroot/" + name;
  r.environment = std::move(env);
  r.host = name;
  return read_host_evidence(r);
}

std::vector<std::string> codes(const NodeEvidence& e, int ranks = 2) {
  std::vector<std::string> out;
  for (const auto& f : doctor_findings(e, DoctorContext{ranks})) out.push_back(f.code);
  return out;
}

// GPU 0 of the 2 x H200 machine as its topology read it (runs/h200x2/topo.txt: 18 NVLinks up,
// each to 0000:00:07.0).
GpuNodeEvidence h200_gpu0() {
  GpuNodeEvidence g;
  g.gpu_index = 0;
  g.pci_bus_id = "0000:00:06.0";
  g.name = "NVIDIA H200";
  g.nvlinks_expected = 18;
  for (int l = 0; l < 18; ++l) g.nvlinks.push_back({l, true, "0000:00:07.0"});
  g.fabric_state = "not-supported";
  g.remapped_rows_failure = false;
  return g;
}

TEST(DoctorFindings, HealthyFixturesFindNothing) {
  for (const char* name : {"gpu-vm-h200x2", "acs-off-switch", "builder-vm"}) {
    NodeEvidence e = read_fixture(name);
    e.container.shm_bytes = 128ull << 30;  // the GPU machine's 128 GB, not this disk's
    if (std::string(name) == "gpu-vm-h200x2") e.gpus.push_back(h200_gpu0());
    EXPECT_TRUE(codes(e).empty()) << name << ": " << join(codes(e));
  }
}

TEST(DoctorFindings, AcsRedirectOnEachGpuPath) {
  const auto found = doctor_findings(read_fixture("acs-amd-gpp"), DoctorContext{2});
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].code, "acs-redirect");
  EXPECT_NE(found[0].evidence.find("0000:40:01.1 (root-port) above GPU 0 (0000:41:00.0)"),
            std::string::npos);
  EXPECT_NE(found[0].next.find("setpci"), std::string::npos);
}

TEST(DoctorFindings, TheGpuMachinesFaults) {
  // The faults of issue 40 the GPU machine was given: NCCL_P2P_DISABLE=1, with NCCL_SHM_DISABLE=1,
  // NCCL_P2P_LEVEL=LOC, and a 1 MiB tmpfs over /dev/shm (unshare -m).
  EXPECT_EQ(codes(read_fixture("gpu-vm-h200x2", {"NCCL_P2P_DISABLE=1"})),
            std::vector<std::string>{"steering-off"});
  EXPECT_EQ(codes(read_fixture("gpu-vm-h200x2", {"NCCL_P2P_DISABLE=1", "NCCL_SHM_DISABLE=1"})),
            (std::vector<std::string>{"steering-off", "steering-off"}));
  EXPECT_EQ(codes(read_fixture("gpu-vm-h200x2", {"NCCL_P2P_LEVEL=LOC"})),
            std::vector<std::string>{"steering-off"});
  EXPECT_TRUE(codes(read_fixture("gpu-vm-h200x2", {"NCCL_P2P_DISABLE=0"})).empty());
  NodeEvidence small = read_fixture("gpu-vm-h200x2");
  small.container.shm_bytes = 1ull << 20;
  EXPECT_EQ(codes(small), std::vector<std::string>{"shm-too-small"});
  EXPECT_TRUE(codes(small, 1).empty());  // one rank shares no memory
}

TEST(DoctorFindings, NvlinksDownAgainstTheModel) {
  // Derived: GPU 0 of the H200 pair with links 3 and 7 down (the example).
  NodeEvidence e = read_fixture("gpu-vm-h200x2");
  e.gpus.push_back(h200_gpu0());
  e.gpus[0].nvlinks[3].up = false;
  e.gpus[0].nvlinks[7].up = false;
  const auto found = doctor_findings(e, DoctorContext{2});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].code, "nvlink-down");
  EXPECT_NE(found[0].evidence.find("16 of 18 NVLinks up; down: 3, 7"), std::string::npos);
  e.gpus[0].nvlinks_expected.reset();  // a model the tables do not know: nothing to hold it to
  EXPECT_TRUE(codes(e).empty());
}

TEST(DoctorFindings, EveryRuleHasItsCodeSummaryAndNextInTheDocs) {
  std::ifstream in(std::string(PEERBENCH_SOURCE_DIR) + "/docs/doctor.md");
  std::stringstream doc;
  doc << in.rdbuf();
  for (const auto& r : doctor_rules()) {
    EXPECT_NE(doc.str().find(std::string("`") + r.code + "`"), std::string::npos) << r.code;
    EXPECT_NE(doc.str().find(r.next), std::string::npos) << r.code << ": " << r.next;
  }
}

TEST(DoctorPage, StaysWithinFortyLines) {
  // Eight GPUs, each behind three redirecting bridges of the PLX fixture, with every finding.
  const NodeEvidence plx = read_fixture("acs-plx-switch", {"NCCL_P2P_DISABLE=1"});
  NodeEvidence e = plx;
  for (int i = 1; i < 8; ++i) e.pcie.push_back(plx.pcie[0]);
  for (auto& g : e.pcie) {
    for (auto& b : g.bridges) {
      b.acs_redirects = true;
      b.acs_ctl = plx.pcie[0].bridges[2].acs_ctl;
    }
  }
  for (int i = 0; i < 8; ++i) e.gpus.push_back(h200_gpu0());
  const auto findings = doctor_findings(e, DoctorContext{8});
  ASSERT_GT(findings.size(), 24u);
  const std::string page = format_doctor_page(e, findings);
  const auto lines = split(page, '\n');
  EXPECT_LE(lines.size() - 1, kDoctorMaxLines) << page;  // the text ends in '\n'
  EXPECT_NE(page.find("Findings: 25"), std::string::npos) << page;
  EXPECT_NE(page.find("and 21 more like these"), std::string::npos) << page;
  EXPECT_NE(page.find("Next: disable ACS"), std::string::npos) << page;
  EXPECT_NE(page.find("Next: unset it"), std::string::npos) << page;
  EXPECT_NE(page.find("Next: "), std::string::npos) << page;
}

}  // namespace
}  // namespace peerbench
