// The host part of the node evidence read from fixture trees (tests/data/sysroot/README.md says
// where each comes from), and its JSON written and read back.
#include "core/model/node_evidence_host.h"

#include <gtest/gtest.h>

#include <string>

#include "core/base/errors.h"
#include "core/model/gpu_activity.h"
#include "core/model/json_in.h"
#include "core/model/known_good.h"
#include "core/model/schema.h"
#include "core/model/schema_node_evidence.h"
#include "test_docs.h"
#include "test_sysroot.h"

namespace peerbench {
namespace {

using nlohmann::json;
using test::sysroot_evidence;

TEST(NodeEvidence, ThisBuilderVm) {
  // Captured from the build machine: a Firecracker microVM in a container, no GPU, no driver.
  const NodeEvidence e = sysroot_evidence("builder-vm");
  EXPECT_TRUE(e.pcie.empty());
  EXPECT_EQ(e.driver, "no NVIDIA driver");
  EXPECT_EQ(e.virtualization.hypervisor_flag, true);
  EXPECT_EQ(e.virtualization.hypervisor_hint, "firecracker");
  EXPECT_EQ(e.virtualization.dmi_vendor, "");
  EXPECT_EQ(e.container.runtime, "docker");
  ASSERT_FALSE(e.container.signs.empty());
  EXPECT_EQ(e.container.signs[0], "/.dockerenv present");
  EXPECT_EQ(e.iommu.groups, 0);
  EXPECT_EQ(e.iommu.mode, "off");
  EXPECT_NE(e.iommu.kernel_cmdline.find("--firecracker-init"), std::string::npos);
  // PID 1's namespace link could not be read there (the capture left it out).
  EXPECT_FALSE(e.container.ipc_namespace_is_init.has_value());
  EXPECT_TRUE(e.container.shm_bytes.has_value());
  EXPECT_FALSE(e.cuda_order_differs_from_pci.has_value());  // no GPU, no order
}

TEST(NodeEvidence, AGpuOnTheRootBus) {
  const NodeEvidence e = sysroot_evidence("builder-vm-gpu");
  ASSERT_EQ(e.pcie.size(), 1u);
  EXPECT_EQ(e.pcie[0].pci_bus_id, "0000:00:05.0");
  EXPECT_TRUE(e.pcie[0].bridges.empty());
  EXPECT_FALSE(e.pcie[0].bar1_bytes.has_value());  // its BAR1 line is empty
  EXPECT_FALSE(e.pcie[0].numa_node.has_value());   // numa_node -1
}

TEST(NodeEvidence, TheTwoH200Vm) {
  const NodeEvidence e = sysroot_evidence("gpu-vm-h200x2");
  ASSERT_EQ(e.pcie.size(), 2u);
  EXPECT_EQ(e.pcie[1].pci_bus_id, "0000:00:07.0");
  EXPECT_EQ(e.pcie[0].link_gen, 5);
  EXPECT_EQ(e.pcie[0].link_width_max, 16);
  EXPECT_EQ(e.driver, "580.159.04");
  EXPECT_EQ(e.container.ipc_namespace_is_init, true);
  EXPECT_EQ(e.cuda_order_differs_from_pci, false);
  EXPECT_EQ(e.iommu.mode, "off");
}

TEST(NodeEvidence, AcsRedirectingOnAmdRootPorts) {
  // NVIDIA/nccl#2079: both GPUs behind GPP bridges with ACSCtl 0x001d.
  const NodeEvidence e = sysroot_evidence("acs-amd-gpp");
  ASSERT_EQ(e.pcie.size(), 2u);
  for (const auto& g : e.pcie) {
    ASSERT_EQ(g.bridges.size(), 1u);
    EXPECT_EQ(g.bridges[0].kind, "root-port");
    EXPECT_EQ(g.bridges[0].acs_capable, true);
    EXPECT_EQ(g.bridges[0].acs_redirects, true);
  }
  EXPECT_EQ(e.pcie[0].bridges[0].bdf, "0000:40:01.1");
  EXPECT_EQ(e.pcie[0].bridges[0].acs_ctl,
            "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-");
}

TEST(NodeEvidence, ASwitchPathFromTheRootPortDown) {
  const NodeEvidence e = sysroot_evidence("acs-plx-switch");
  ASSERT_EQ(e.pcie.size(), 1u);
  const auto& b = e.pcie[0].bridges;
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].kind, "root-port");
  EXPECT_EQ(b[1].kind, "switch-upstream");
  EXPECT_EQ(b[2].kind, "switch-downstream");
  EXPECT_EQ(b[0].acs_capable, false);
  EXPECT_EQ(b[2].acs_redirects, true);
  EXPECT_EQ(e.pcie[0].bar1_bytes, 256ull << 20);
  EXPECT_EQ(e.pcie[0].link_gen, 3);
}

TEST(NodeEvidence, AcsUnreadableWithoutRootIsSaidNotGuessed) {
  const NodeEvidence e = sysroot_evidence("acs-plx-unprivileged");
  for (const auto& b : e.pcie.at(0).bridges) {
    EXPECT_EQ(b.note, "unreadable without root");
    EXPECT_FALSE(b.acs_capable.has_value());
    EXPECT_FALSE(b.acs_redirects.has_value());
  }
  ASSERT_FALSE(e.notes.empty());
  EXPECT_NE(e.notes.back().find("3 bridges unreadable without root"), std::string::npos);
}

TEST(NodeEvidence, AcsPresentButOff) {
  // NVIDIA/nccl#1405: every ACSCtl bit off.
  const NodeEvidence e = sysroot_evidence("acs-off-switch");
  ASSERT_EQ(e.pcie.size(), 2u);
  for (const auto& g : e.pcie) {
    for (const auto& b : g.bridges) {
      EXPECT_EQ(b.acs_capable, true);
      EXPECT_EQ(b.acs_redirects, false);
    }
  }
}

TEST(NodeEvidence, SteeringVariablesAndCudaOrder) {
  const NodeEvidence e = sysroot_evidence(
      "gpu-vm-h200x2", {"NCCL_P2P_DISABLE=1", "CUDA_VISIBLE_DEVICES=1,0", "HOME=/root",
                        "NCCL_DEBUG=INFO", "KUBERNETES_SERVICE_HOST=10.0.0.1"});
  EXPECT_EQ(e.steering_environment.size(), 2u);
  EXPECT_EQ(e.steering_environment.at("NCCL_P2P_DISABLE"), "1");
  EXPECT_EQ(e.cuda_order_differs_from_pci, true);
  EXPECT_EQ(e.container.runtime, "kubernetes");  // before docker's /.dockerenv
  std::map<std::string, std::string> s{{"CUDA_VISIBLE_DEVICES", "GPU-086026b1"}};
  EXPECT_FALSE(cuda_order_from_environment(s, true).has_value());
  s = {{"CUDA_VISIBLE_DEVICES", "0,1"}};
  EXPECT_EQ(cuda_order_from_environment(s, true), false);
  EXPECT_FALSE(cuda_order_from_environment(s, false).has_value());  // FASTEST_FIRST, two models
  s["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID";
  EXPECT_EQ(cuda_order_from_environment(s, false), false);
}

TEST(NodeEvidence, ExpectedNvlinksComeFromTheKnownGoodModels) {
  const auto& t = builtin_known_good_table();
  EXPECT_EQ(t.nvlinks_of("NVIDIA H200"), 18);
  EXPECT_EQ(t.nvlinks_of("NVIDIA H100 80GB HBM3"), 18);
  EXPECT_EQ(t.nvlinks_of("NVIDIA A100-SXM4-80GB"), 12);
  EXPECT_FALSE(t.nvlinks_of("NVIDIA A100-PCIE-40GB").has_value());  // bridges optional
  EXPECT_FALSE(t.nvlinks_of("NVIDIA H200 NVL").has_value());        // not a model of the tables
}

TEST(NodeEvidence, ClockEventReasonsButIdle) {
  EXPECT_TRUE(clock_event_reason_names(0x1).empty());
  EXPECT_EQ(clock_event_reason_names(0x5), std::vector<std::string>{"sw-power-cap"});
  EXPECT_EQ(clock_event_reason_names(0x102),
            (std::vector<std::string>{"applications-clocks", "display-clocks"}));
  EXPECT_EQ(clock_event_reason_names(0x1000), std::vector<std::string>{"0x1000"});
}

NodeEvidence with_gpu_part(NodeEvidence e) {
  GpuNodeEvidence g;
  g.gpu_index = 0;
  g.pci_bus_id = "0000:00:06.0";
  g.name = "NVIDIA H200";
  g.nvlinks_expected = 18;
  g.nvlinks = {{0, true, "0000:00:07.0"}, {1, false, ""}};
  g.fabric_state = "not-supported";
  g.persistence_mode = true;
  g.clock_event_reasons = {"sw-power-cap"};
  g.ecc_uncorrected_volatile = 0;
  g.remapped_rows_failure = false;
  g.remapped_rows_pending = false;
  g.consumer_card_p2p_off = false;
  e.gpus.push_back(g);
  e.virtualization.nvml_mode = "pass-through";
  return e;
}

TEST(NodeEvidence, JsonRoundTripKeepsEveryField) {
  const NodeEvidence e = with_gpu_part(sysroot_evidence("acs-plx-switch", {"NCCL_SHM_DISABLE=1"}));
  const json j = to_json(e);
  const NodeEvidence back = node_evidence_from(JsonIn(j, "e.json"));
  EXPECT_EQ(to_json(back), j);
  EXPECT_EQ(back.pcie.at(0).bridges.at(2).acs_redirects, true);
  EXPECT_EQ(back.gpus.at(0).nvlinks.at(1).up, false);
  EXPECT_EQ(back.container.shm_bytes, e.container.shm_bytes);
}

TEST(NodeEvidence, RunDocumentCarriesItAndRefusesABadField) {
  auto d = test::clean_h200_pair();
  d.node_evidence.push_back(with_gpu_part(sysroot_evidence("gpu-vm-h200x2")));
  json j = to_json(d);
  EXPECT_EQ(j["schema_version"], kSchemaVersion);
  const RunDocument back = run_document_from_json(j, "run.json");
  ASSERT_EQ(back.node_evidence.size(), 1u);
  EXPECT_EQ(to_json(back.node_evidence[0]), j["node_evidence"][0]);
  j["node_evidence"][0]["pcie"][0]["link_gen"] = "five";
  try {
    run_document_from_json(j, "run.json");
    FAIL() << "a string link_gen was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("node_evidence[0].pcie[0].link_gen"), std::string::npos)
        << e.what();
  }
  // Files without the key (every earlier run) read as before.
  j.erase("node_evidence");
  EXPECT_TRUE(run_document_from_json(j, "run.json").node_evidence.empty());
}

}  // namespace
}  // namespace peerbench
