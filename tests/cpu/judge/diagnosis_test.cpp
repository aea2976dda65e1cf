// diagnose() on the real 2 x H200 runs and on copies of them with one named change: the settings
// that steer NCCL, NCCL's own reasons from its real log, the unknown cause and its next
// measurement, and the context of CUDA's GPU order (diagnosis_fixtures.h says where each comes
// from).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/model/nccl_log.h"
#include "diagnosis_fixtures.h"

namespace peerbench {
namespace {

using test::cause_in;
using test::codes_of;
using test::diagnosis_of;
using test::h200x2_run;

std::string nccl_log(const std::string& name) {
  std::ifstream in(std::string(PEERBENCH_SOURCE_DIR) + "/tests/fixtures/nccl/" + name);
  EXPECT_TRUE(in) << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Whether `xs` holds `x`.
bool lists(const std::vector<std::string>& xs, const std::string& x) {
  return std::find(xs.begin(), xs.end(), x) != xs.end();
}

TEST(Diagnosis, P2pDisabledNamesTheVariableAndItsNextStep) {
  const auto cs = diagnosis_of(h200x2_run("p2p-disabled.json"));
  ASSERT_EQ(codes_of(cs), std::vector<std::string>{"nccl-p2p-disabled-by-env"});
  const DiagnosedCause& c = cs.front();
  EXPECT_EQ(c.strength, cause_strength::kConfirmed);
  EXPECT_EQ(c.next, "Next: unset NCCL_P2P_DISABLE and run again");
  // One cause for every figure it explains: both pairs' nccl-shm and the all-reduce under
  // known-good.
  EXPECT_EQ(c.pairs, (std::vector<std::string>{"0->1", "1->0", "all ranks"}));
  EXPECT_EQ(c.flags, (std::vector<std::string>{"nccl-shm", "below-expected"}));
  ASSERT_FALSE(c.evidence.empty());
  EXPECT_EQ(c.evidence.front().fact, "NCCL_P2P_DISABLE=1");
  // The copy engines at known-good on the same pairs: the link is not the suspect.
  EXPECT_TRUE(std::any_of(c.evidence.begin(), c.evidence.end(), [](const CauseEvidence& e) {
    return e.fact.find("ce-write 1.00") != std::string::npos;
  }));
}

TEST(Diagnosis, SocketsNameBothVariables) {
  const auto cs = diagnosis_of(h200x2_run("p2p-shm-disabled.json"));
  EXPECT_EQ(codes_of(cs),
            (std::vector<std::string>{"nccl-p2p-disabled-by-env", "nccl-shm-disabled-by-env"}));
  EXPECT_EQ(cause_in(cs, "nccl-shm-disabled-by-env")->next,
            "Next: unset NCCL_SHM_DISABLE (and NCCL_P2P_DISABLE) and run again");
  // Without NCCL_SHM_DISABLE in the environment (change named), NET is P2P_DISABLE's alone.
  const auto one =
      diagnosis_of(test::without_env(h200x2_run("p2p-shm-disabled.json"), "NCCL_SHM_DISABLE"));
  EXPECT_EQ(codes_of(one), std::vector<std::string>{"nccl-p2p-disabled-by-env"});
}

TEST(Diagnosis, P2pLevelLocIsTheLevelsCause) {
  // REFERENCE.md: NCCL_P2P_LEVEL=LOC gives the same SHM/direct/direct as NCCL_P2P_DISABLE=1.
  RunDocument d = test::shm_without_variable();
  d.environment["NCCL_P2P_LEVEL"] = "LOC";  // change: the level set instead of the disable
  const auto cs = diagnosis_of(d);
  ASSERT_EQ(codes_of(cs), std::vector<std::string>{"nccl-p2p-level-env"});
  EXPECT_EQ(cs.front().next, "Next: unset NCCL_P2P_LEVEL (or set it to SYS) and run again");
  // NVL allows P2P over NVLink: the setting is not blamed, and the cause stays unknown.
  d.environment["NCCL_P2P_LEVEL"] = "NVL";
  EXPECT_EQ(codes_of(diagnosis_of(d)), std::vector<std::string>{"unknown"});
}

TEST(Diagnosis, NcclsOwnEchoConfirmsTheVariable) {
  // The variable gone from the recorded environment (change named), NCCL's real log of that run
  // (nccl-shm.rank0.log) still says it was set.
  RunDocument d = test::shm_without_variable();
  d.nccl.reasons = parse_nccl_log(nccl_log("h200x2-shm.rank0.log")).reasons;
  ASSERT_EQ(d.nccl.reasons, (std::vector<std::string>{"NET/IB : No device found.",
                                                      "NCCL_P2P_DISABLE set by environment to 1"}));
  const auto cs = diagnosis_of(d);
  ASSERT_EQ(codes_of(cs), std::vector<std::string>{"nccl-p2p-disabled-by-env"});
  EXPECT_EQ(cs.front().evidence.front().source, "NCCL's log");
}

TEST(Diagnosis, ShmWithNoVariableIsUnknownAndPointsAwayFromTheLink) {
  const auto cs = diagnosis_of(test::shm_without_variable());
  ASSERT_EQ(codes_of(cs), std::vector<std::string>{"unknown"});
  const DiagnosedCause& c = cs.front();
  EXPECT_EQ(c.strength, cause_strength::kUnknown);
  EXPECT_NE(c.summary.find("NCCL or container settings, not the link"), std::string::npos)
      << c.summary;
  EXPECT_EQ(c.next.rfind("Next: run peerbench doctor on vm", 0), 0u) << c.next;
  EXPECT_NE(c.next.find("NCCL_DEBUG=INFO"), std::string::npos);
  // The all-reduce under known-good is the same road's: one cause, not two.
  EXPECT_TRUE(lists(c.flags, "below-expected"));
}

TEST(Diagnosis, NcclReasonWhereNoSettingExplains) {
  // Change: NCCL's p2p.cc line for a pair CUDA refused ("Could not enable P2P between dev %d(=%lx)
  // and dev %d(=%lx)"), for the bus ids of that run, in place of the variable.
  RunDocument d = test::shm_without_variable();
  NcclLogParse p;
  parse_nccl_log_line(
      "vm:14866:14879 [0] NCCL INFO Could not enable P2P between dev 0(=60) and dev 1(=70)", p);
  d.nccl.reasons = p.reasons;
  const auto cs = diagnosis_of(d);
  ASSERT_EQ(codes_of(cs), std::vector<std::string>{"nccl-reason-from-log"});
  EXPECT_NE(cs.front().summary.find("Could not enable P2P between dev 0(=60)"), std::string::npos);
  EXPECT_EQ(cs.front().next.rfind("Next: run peerbench doctor on vm", 0), 0u) << cs.front().next;
}

TEST(Diagnosis, SocketsForcedBetweenHosts) {
  // derived/socket-cross-host.json (derive.py) with NCCL_IB_DISABLE=1 added (change named).
  RunDocument d = h200x2_run("derived/socket-cross-host.json");
  EXPECT_EQ(codes_of(diagnosis_of(d)), (std::vector<std::string>{"unknown", "unknown"}));
  d.environment["NCCL_IB_DISABLE"] = "1";
  const auto cs = diagnosis_of(d);
  ASSERT_EQ(codes_of(cs), std::vector<std::string>{"nccl-net-forced-by-env"});
  EXPECT_EQ(cs.front().next, "Next: unset NCCL_IB_DISABLE and run again");
  // Without it, the real log's "NET/IB : No device found." is NCCL's reason (h200x2-net-socket).
  d.environment.erase("NCCL_IB_DISABLE");
  d.nccl.reasons = parse_nccl_log(nccl_log("h200x2-net-socket.rank0.log")).reasons;
  const auto ib = diagnosis_of(d);
  ASSERT_EQ(codes_of(ib), std::vector<std::string>{"nccl-reason-from-log"});
  EXPECT_EQ(ib.front().next.rfind("Next: ibv_devinfo on ", 0), 0u) << ib.front().next;
}

TEST(Diagnosis, CudaOrderIsSaidBesideACauseNeverAlone) {
  // Change: CUDA_VISIBLE_DEVICES=1,0 as REFERENCE.md ran it: rank 0 drives 0000:00:07.0 as CUDA's
  // GPU 0, rank 1 0000:00:06.0 as GPU 1.
  const auto reorder = [](RunDocument d) {
    d.environment["CUDA_VISIBLE_DEVICES"] = "1,0";
    std::swap(d.system.ranks[0].gpu.pci_bus_id, d.system.ranks[1].gpu.pci_bus_id);
    return d;
  };
  const auto cs = diagnosis_of(reorder(h200x2_run("p2p-disabled.json")));
  EXPECT_EQ(codes_of(cs),
            (std::vector<std::string>{"nccl-p2p-disabled-by-env", "cuda-order-differs"}));
  EXPECT_NE(cs.back().summary.find("GPU 0 is 0000:00:07.0"), std::string::npos)
      << cs.back().summary;
  // A passing run has no diagnosis, and so no Next line.
  EXPECT_TRUE(diagnosis_of(reorder(h200x2_run("default.json"))).empty());
}

TEST(NcclReasons, RealLogsGiveTheirReasons) {
  // NCCL looks for InfiniBand on every run; the healthy P2P/CUMEM run says nothing else.
  EXPECT_EQ(parse_nccl_log(nccl_log("h200x2-p2p-cumem.rank0.log")).reasons,
            std::vector<std::string>{"NET/IB : No device found."});
  EXPECT_EQ(parse_nccl_log(nccl_log("h200x2-net-socket.rank0.log")).reasons,
            (std::vector<std::string>{"NET/IB : No device found.",
                                      "NCCL_P2P_DISABLE set by environment to 1"}));
  // NCCL_ENV's echo (misc/param.cc) of a steering variable counts; of any other, not.
  EXPECT_EQ(nccl_reason_of("h:1:2 [0] NCCL INFO NCCL_SHM_DISABLE set by environment to 1."),
            std::optional<std::string>("NCCL_SHM_DISABLE set by environment to 1."));
  EXPECT_FALSE(nccl_reason_of("h:1:2 [0] NCCL INFO NCCL_PROTO set by environment to LL"));
  // shmutils.cc's WARN when /dev/shm is full.
  EXPECT_TRUE(
      nccl_reason_of("h:1:2 [0] NCCL WARN Error: failed to extend /dev/shm/nccl-a1B2c3 to "
                     "9637892 bytes, error: No space left on device (28)"));
  EXPECT_FALSE(nccl_reason_of("h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM"));
}

}  // namespace
}  // namespace peerbench
