// diagnose() with node evidence and the GPUs' own state: each cause of the platform, container and
// hardware from a real 2 x H200 run with one named change and the node facts it would show
// (diagnosis_fixtures.h: the GPU machine's measured facts; ACS words from a public lspci -vvv,
// cited below). The GPU machine's own evidence must add no cause to a run it does not explain.
#include <gtest/gtest.h>

#include "core/model/nccl_log.h"
#include "diagnosis_fixtures.h"

namespace peerbench {
namespace {

using test::cause_in;
using test::codes_of;
using test::diagnosis_of;
using test::gpu_machine_evidence;
using test::h200x2_run;

RunDocument with_evidence(RunDocument d, NodeEvidence n) {
  d.node_evidence = {std::move(n)};
  return d;
}

TEST(DiagnosisNode, TheGpuMachinesOwnEvidenceBlamesNothingMore) {
  RunDocument d = h200x2_run("p2p-disabled.json");
  const auto cs = diagnosis_of(with_evidence(d, gpu_machine_evidence(d)));
  EXPECT_EQ(codes_of(cs), std::vector<std::string>{"nccl-p2p-disabled-by-env"});
  RunDocument ok = h200x2_run("default.json");
  EXPECT_TRUE(diagnosis_of(with_evidence(ok, gpu_machine_evidence(ok))).empty());
}

TEST(DiagnosisNode, ContainerWithoutHostIpc) {
  // Change: the container's IPC namespace is its own and /dev/shm is Docker's default 64 MiB.
  RunDocument d = test::shm_without_variable();
  NodeEvidence n = gpu_machine_evidence(d);
  n.container.ipc_namespace_is_init = false;
  n.container.shm_bytes = 64ull << 20;
  const auto cs = diagnosis_of(with_evidence(d, n));
  const DiagnosedCause* c = cause_in(cs, "container-no-ipc-host");
  ASSERT_NE(c, nullptr) << testing::PrintToString(codes_of(cs));
  EXPECT_EQ(c->next.rfind("Next: run the container with --ipc=host and --shm-size=", 0), 0u)
      << c->next;
  EXPECT_NE(c->next.find("for 2 ranks"), std::string::npos) << c->next;
  EXPECT_EQ(cause_in(cs, "unknown"), nullptr);
}

TEST(DiagnosisNode, PrivateIpcNamespaceOutsideAContainer) {
  // Change: as under `unshare -i` (REFERENCE.md), no container runtime.
  RunDocument d = test::shm_without_variable();
  NodeEvidence n = gpu_machine_evidence(d);
  n.container.runtime = "none";
  n.container.signs.clear();
  n.container.ipc_namespace_is_init = false;
  const auto cs = diagnosis_of(with_evidence(d, n));
  ASSERT_NE(cause_in(cs, "ipc-namespace-private"), nullptr) << testing::PrintToString(codes_of(cs));
  EXPECT_EQ(cause_in(cs, "ipc-namespace-private")
                ->next.rfind("Next: run every rank in the host's IPC", 0),
            0u);
}

TEST(DiagnosisNode, ShmTooSmallWhereNcclFailed) {
  // Change: the fault, a 1 MiB tmpfs over /dev/shm with P2P off (REFERENCE.md's unshare
  // -m), NCCL's methods failing, and NCCL's shmutils.cc WARN for it in the log.
  RunDocument d = h200x2_run("p2p-disabled.json");
  for (auto& r : d.results) {
    if (r.method.rfind("nccl-", 0) != 0) continue;
    r.status = ResultStatus::kError;
    r.reason = "NCCL communicator could not be created: unhandled system error";
    r.time_us.reset(), r.algbw_gbps.reset(), r.busbw_gbps.reset();
  }
  NcclLogParse p;
  parse_nccl_log_line(
      "vm:1:2 [0] NCCL WARN Error: failed to extend /dev/shm/nccl-Xy12ab to 9637892 "
      "bytes, error: No space left on device (28)",
      p);
  d.nccl.reasons = p.reasons;
  NodeEvidence n = gpu_machine_evidence(d);
  n.container.shm_bytes = 1ull << 20;
  const auto cs = diagnosis_of(with_evidence(d, n));
  const DiagnosedCause* c = cause_in(cs, "shm-too-small");
  ASSERT_NE(c, nullptr) << testing::PrintToString(codes_of(cs));
  EXPECT_EQ(c->strength, cause_strength::kConfirmed);
  EXPECT_NE(c->summary.find("/dev/shm holds 1 MiB"), std::string::npos) << c->summary;
  EXPECT_NE(c->next.find("--shm-size="), std::string::npos);
  EXPECT_EQ(c->states, std::vector<std::string>{"incomplete"});
}

// ACSCtl with the redirect bits on: the ACSCap bits of a public `lspci -vvv` (sampooni.github.io,
// nvme_spec_evolution_for_gpus appendix B2, "ACSCap: SrcValid+ TransBlk+ ReqRedir+ CmpltRedir+
// UpstreamFwd+ EgressCtrl- DirectTrans-") turned on in the control register (change named).
NodeEvidence behind_acs_bridge(const RunDocument& d) {
  NodeEvidence n = gpu_machine_evidence(d);
  for (auto& g : n.pcie) {
    PcieBridgeEvidence b;
    b.bdf = "0000:00:01.0";
    b.kind = "root-port";
    b.acs_capable = true;
    b.acs_redirects = true;
    b.acs_ctl = "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-";
    g.bridges = {b};
  }
  n.virtualization = {};  // bare metal: no hypervisor to blame
  return n;
}

TEST(DiagnosisNode, AcsRedirectNamesTheBridge) {
  RunDocument d = test::peer_access_unsupported(h200x2_run("default.json"));
  const auto cs = diagnosis_of(with_evidence(d, behind_acs_bridge(d)));
  ASSERT_FALSE(cs.empty());
  EXPECT_EQ(cs.front().code, "acs-redirect") << testing::PrintToString(codes_of(cs));
  EXPECT_EQ(cs.front().next,
            "Next: disable ACS on bridge 0000:00:01.0 (BIOS, or setpci -s 0000:00:01.0 "
            "ECAP_ACS+0x6.w=0000) or boot with iommu=pt");
  EXPECT_EQ(cause_in(cs, "peer-access-unsupported"), nullptr);  // the bridge explains it
}

TEST(DiagnosisNode, IommuTranslated) {
  RunDocument d = test::peer_access_unsupported(h200x2_run("default.json"));
  NodeEvidence n = gpu_machine_evidence(d);
  n.virtualization = {};
  n.iommu.mode = "translated";  // change: DMA domains (intel_iommu=on without iommu=pt)
  n.iommu.groups = 64;
  n.iommu.default_domain_type = "DMA";
  n.iommu.kernel_cmdline = "BOOT_IMAGE=/vmlinuz intel_iommu=on";
  const auto cs = diagnosis_of(with_evidence(d, n));
  ASSERT_NE(cause_in(cs, "iommu-translated"), nullptr) << testing::PrintToString(codes_of(cs));
  EXPECT_EQ(cause_in(cs, "iommu-translated")->next.rfind("Next: boot vm with iommu=pt", 0), 0u);
}

TEST(DiagnosisNode, VirtualMachineWithoutPeerAccess) {
  // The GPU machine's own virtualization facts, with CUDA refusing peer access (change named).
  RunDocument d = test::peer_access_unsupported(h200x2_run("default.json"));
  const auto cs = diagnosis_of(with_evidence(d, gpu_machine_evidence(d)));
  ASSERT_FALSE(cs.empty());
  EXPECT_EQ(cs.front().code, "virtualized-no-p2p") << testing::PrintToString(codes_of(cs));
  EXPECT_NE(cs.front().summary.find("firecracker"), std::string::npos) << cs.front().summary;
}

TEST(DiagnosisNode, PeerAccessUnsupportedWithNothingReadNamesTheDoctor) {
  const auto cs = diagnosis_of(test::peer_access_unsupported(h200x2_run("default.json")));
  ASSERT_FALSE(cs.empty());
  EXPECT_EQ(cs.front().code, "peer-access-unsupported");
  EXPECT_EQ(cs.front().next.rfind("Next: run peerbench doctor on vm", 0), 0u) << cs.front().next;
}

TEST(DiagnosisNode, ConsumerCard) {
  RunDocument d = test::peer_access_unsupported(h200x2_run("default.json"));
  NodeEvidence n = gpu_machine_evidence(d);
  n.virtualization = {};
  for (auto& g : n.gpus) g.consumer_card_p2p_off = true;  // change: the driver's P2P off
  const auto cs = diagnosis_of(with_evidence(d, n));
  ASSERT_FALSE(cs.empty());
  EXPECT_EQ(cs.front().code, "consumer-card-p2p-off") << testing::PrintToString(codes_of(cs));
}

}  // namespace
}  // namespace peerbench
