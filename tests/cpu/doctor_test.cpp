// doctor's findings (core/judge/doctor_findings) on fixture trees and on faults the GPU machine
// was given (../shared/REFERENCE.md), each a cause of the cause table with that row's words and
// Next line, and its page (core/present/node_evidence_text) within 40 lines.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "core/base/text.h"
#include "core/judge/cause_table.h"
#include "core/judge/diagnosis.h"
#include "core/judge/doctor_findings.h"
#include "core/model/json_in.h"
#include "core/model/node_evidence_host.h"
#include "core/model/schema_node_evidence.h"
#include "core/present/node_evidence_text.h"
#include "test_sysroot.h"

namespace peerbench {
namespace {

using test::sysroot_evidence;

// The codes of doctor's findings on `e` for a job of `ranks` ranks.
std::vector<std::string> finding_codes(const NodeEvidence& e, int ranks = 2) {
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
    NodeEvidence e = sysroot_evidence(name);
    e.container.shm_bytes = 128ull << 30;  // the GPU machine's 128 GB, not this disk's
    if (std::string(name) == "gpu-vm-h200x2") e.gpus.push_back(h200_gpu0());
    EXPECT_TRUE(finding_codes(e).empty()) << name << ": " << join(finding_codes(e));
  }
}

TEST(DoctorFindings, AcsRedirectOnEachGpuPath) {
  const auto found = doctor_findings(sysroot_evidence("acs-amd-gpp"), DoctorContext{2});
  ASSERT_EQ(found.size(), 1u);  // one cause for both bridges
  EXPECT_EQ(found[0].code, "acs-redirect");
  EXPECT_EQ(found[0].gpus, (std::vector<std::string>{"GPU 0 0000:41:00.0", "GPU 1 0000:61:00.0"}));
  ASSERT_EQ(found[0].evidence.size(), 2u);
  EXPECT_EQ(found[0].evidence[0].source,
            "bridge 0000:40:01.1 (root-port) above GPU 0 0000:41:00.0 ACSCtl");
  EXPECT_EQ(found[0].next,
            "Next: disable ACS on bridge 0000:40:01.1, 0000:60:01.1 (BIOS, or setpci -s "
            "0000:40:01.1 ECAP_ACS+0x6.w=0000 and setpci -s 0000:60:01.1 ECAP_ACS+0x6.w=0000) or "
            "boot with iommu=pt");
}

TEST(DoctorFindings, TheGpuMachinesFaults) {
  // The faults of issue 40 the GPU machine was given: NCCL_P2P_DISABLE=1, with NCCL_SHM_DISABLE=1,
  // NCCL_P2P_LEVEL=LOC, and a 1 MiB tmpfs over /dev/shm (unshare -m).
  const auto p2p = doctor_findings(sysroot_evidence("gpu-vm-h200x2", {"NCCL_P2P_DISABLE=1"}), {2});
  ASSERT_EQ(p2p.size(), 1u);
  EXPECT_EQ(p2p[0].code, "nccl-p2p-disabled-by-env");
  EXPECT_EQ(p2p[0].next, "Next: unset NCCL_P2P_DISABLE and run again");
  EXPECT_EQ(finding_codes(
                sysroot_evidence("gpu-vm-h200x2", {"NCCL_P2P_DISABLE=1", "NCCL_SHM_DISABLE=1"})),
            (std::vector<std::string>{"nccl-p2p-disabled-by-env", "nccl-shm-disabled-by-env"}));
  // NCCL_SHM_DISABLE alone leaves P2P, the road between these GPUs.
  EXPECT_TRUE(finding_codes(sysroot_evidence("gpu-vm-h200x2", {"NCCL_SHM_DISABLE=1"})).empty());
  EXPECT_EQ(finding_codes(sysroot_evidence("gpu-vm-h200x2", {"NCCL_P2P_LEVEL=LOC"})),
            std::vector<std::string>{"nccl-p2p-level-env"});
  EXPECT_TRUE(finding_codes(sysroot_evidence("gpu-vm-h200x2", {"NCCL_P2P_DISABLE=0"})).empty());
  NodeEvidence small = sysroot_evidence("gpu-vm-h200x2");
  small.container.shm_bytes = 1ull << 20;
  const auto shm = doctor_findings(small, {2});
  ASSERT_EQ(finding_codes(small), std::vector<std::string>{"shm-too-small"});
  // The diagnosis's rule: what NCCL 2.28 maps for 2 ranks, not a round 1 GiB.
  const std::string need = shm_mib(nccl_shm_bytes_needed(2));
  EXPECT_EQ(shm[0].next, "Next: run the container with --ipc=host, or --shm-size=" + need +
                             " or more (NCCL needs about " + need + " for 2 ranks)");
  EXPECT_TRUE(finding_codes(small, 1).empty());  // one rank shares no memory
  small.container.shm_bytes = 64ull << 20;       // Docker's default: under the 74 MiB of 2 ranks
  EXPECT_EQ(finding_codes(small), std::vector<std::string>{"shm-too-small"});
  small.container.shm_bytes = nccl_shm_bytes_needed(2);
  EXPECT_TRUE(finding_codes(small).empty());
}

TEST(DoctorFindings, NvlinksDownAgainstTheModel) {
  // Derived: GPU 0 of the H200 pair with links 3 and 7 down (the example).
  NodeEvidence e = sysroot_evidence("gpu-vm-h200x2");
  e.gpus.push_back(h200_gpu0());
  e.gpus[0].nvlinks[3].up = false;
  e.gpus[0].nvlinks[7].up = false;
  const auto found = doctor_findings(e, DoctorContext{2});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].code, "nvlink-links-down");
  EXPECT_EQ(found[0].summary, "links 3 and 7 of GPU 0 0000:00:06.0 are down (16 of 18 up)");
  EXPECT_EQ(found[0].next,
            "Next: links 3 and 7 of GPU 0 0000:00:06.0 are down: nvidia-smi nvlink -s, then "
            "reseat or RMA");
  e.gpus[0].nvlinks_expected.reset();  // a model the tables do not know: nothing to hold it to
  EXPECT_TRUE(finding_codes(e).empty());
}

TEST(DoctorFindings, LinksNvmlDoesNotListAreNotSeenNotDown) {
  // Real: doctor --json on the one-H100 VM, where NVML lists none of the model's 18 NVLinks.
  std::ifstream f(std::string(PEERBENCH_SOURCE_DIR) + "/tests/data/doctor/h100x1-vm.json");
  NodeEvidence e = node_evidence_from(JsonIn(nlohmann::json::parse(f), "h100x1-vm.json"));
  ASSERT_EQ(e.gpus.size(), 1u);
  EXPECT_TRUE(e.gpus[0].nvlinks.empty());
  EXPECT_EQ(e.gpus[0].nvlinks_expected, 18);
  EXPECT_TRUE(finding_codes(e, 1).empty()) << join(finding_codes(e, 1));
  EXPECT_NE(join(node_evidence_lines(e)).find("NVLinks none listed by NVML (model: 18)"),
            std::string::npos)
      << join(node_evidence_lines(e), "\n");
  // A link whose state was not read is not down either.
  e.gpus[0].nvlinks.push_back({0, std::nullopt, ""});
  EXPECT_TRUE(finding_codes(e, 1).empty()) << join(finding_codes(e, 1));
  e.gpus[0].nvlinks.clear();
  // Listed and inactive is down: the same GPU with 18 links listed, link 5 not active.
  for (int l = 0; l < 18; ++l) e.gpus[0].nvlinks.push_back({l, l != 5, ""});
  EXPECT_EQ(finding_codes(e, 1), std::vector<std::string>{"nvlink-links-down"});
}

TEST(DoctorFindings, FabricAndMemoryAreTheirCauses) {
  // Derived from GPU 0 of the H200 pair: its fabric not started, then registered but degraded
  // (NVML's health words, fabric_health_text), then a row remapping failed.
  NodeEvidence e = sysroot_evidence("gpu-vm-h200x2");
  e.gpus.push_back(h200_gpu0());
  e.gpus[0].fabric_state = "not-started";
  EXPECT_EQ(finding_codes(e), std::vector<std::string>{"fabric-manager-not-running"});
  e.gpus[0].fabric_state = "completed";
  e.gpus[0].fabric_health = "degraded bandwidth";
  const auto degraded = doctor_findings(e, {2});
  ASSERT_EQ(finding_codes(e), std::vector<std::string>{"fabric-degraded"});
  EXPECT_EQ(degraded[0].summary,
            "the NVLink fabric of GPU 0 0000:00:06.0 is registered but reports degraded bandwidth");
  e.gpus[0].fabric_health = "healthy";
  e.gpus[0].remapped_rows_failure = true;
  EXPECT_EQ(finding_codes(e), std::vector<std::string>{"ecc-remapped-failure"});
}

TEST(DoctorFindings, EachRuleIsACauseOfTheTableAndFillsItsWords) {
  for (const auto& r : doctor_rules())
    EXPECT_NE(find_cause(r.cause), nullptr) << r.cause << " is no cause of the cause table";
  // Every finding the tests' nodes give has its row's words with no {field} left unfilled.
  NodeEvidence e = sysroot_evidence("acs-plx-switch", {"NCCL_P2P_DISABLE=1", "NCCL_SHM_DISABLE=1"});
  e.gpus.push_back(h200_gpu0());
  e.gpus[0].nvlinks[3].up = false;
  e.gpus[0].fabric_state = "in-progress";
  e.gpus[0].consumer_card_p2p_off = true;
  e.gpus[0].ecc_uncorrected_volatile = 2;
  e.container.shm_bytes = 1ull << 20;
  const auto found = doctor_findings(e, {2});
  EXPECT_EQ(found.size(), 8u) << join(finding_codes(e));
  for (const auto& f : found) {
    EXPECT_EQ(f.summary.find('{'), std::string::npos) << f.code << ": " << f.summary;
    EXPECT_EQ(f.next.find('{'), std::string::npos) << f.code << ": " << f.next;
    EXPECT_EQ(f.next.rfind("Next: ", 0), 0u) << f.code;
    EXPECT_FALSE(f.evidence.empty()) << f.code;
  }
}

TEST(DoctorFindings, DoctorMdListsEachRuleWithItsCausesNextLine) {
  std::ifstream in(std::string(PEERBENCH_SOURCE_DIR) + "/docs/doctor.md");
  std::stringstream doc;
  doc << in.rdbuf();
  for (const auto& r : doctor_rules()) {
    const std::string row =
        "| `" + std::string(r.cause) + "` | " + r.when + " | `" + find_cause(r.cause)->next + "` |";
    EXPECT_NE(doc.str().find(row), std::string::npos) << "docs/doctor.md lacks the row " << row;
  }
}

TEST(DoctorPage, StaysWithinFortyLines) {
  // Eight GPUs, each behind the three bridges of the PLX fixture (made its own and redirecting),
  // with links 3 and 7 down on each, and NCCL_P2P_DISABLE set.
  const NodeEvidence plx = sysroot_evidence("acs-plx-switch", {"NCCL_P2P_DISABLE=1"});
  NodeEvidence e = plx;
  e.pcie.clear();
  for (int i = 0; i < 8; ++i) {
    GpuPcieEvidence g = plx.pcie[0];
    for (auto& b : g.bridges) {
      b.bdf += "-" + std::to_string(i);
      b.acs_redirects = true;
      b.acs_ctl = plx.pcie[0].bridges[2].acs_ctl;
    }
    e.pcie.push_back(g);
    e.gpus.push_back(h200_gpu0());
    e.gpus.back().gpu_index = i;
    e.gpus.back().nvlinks[3].up = false;
    e.gpus.back().nvlinks[7].up = false;
  }
  const auto findings = doctor_findings(e, DoctorContext{8});
  ASSERT_EQ(findings.size(), 10u);  // the variable, ACS once for 24 bridges, 8 GPUs' links
  const std::string page = format_doctor_page(e, findings);
  const auto lines = split(page, '\n');
  EXPECT_LE(lines.size() - 1, kDoctorMaxLines) << page;  // the text ends in '\n'
  EXPECT_NE(page.find("Findings: 10"), std::string::npos) << page;
  EXPECT_NE(page.find("... and 21 more like these"), std::string::npos) << page;
  EXPECT_NE(page.find("Next: disable ACS on bridge"), std::string::npos) << page;
  EXPECT_NE(page.find("Next: unset NCCL_P2P_DISABLE and run again"), std::string::npos) << page;
  EXPECT_NE(page.find("more line"), std::string::npos) << page;  // the rest cut, said so
}

}  // namespace
}  // namespace peerbench
