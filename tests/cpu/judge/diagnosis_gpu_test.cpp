// diagnose() of the GPUs' own state and their other users: NVLinks down, the fabric, memory
// failures, another process, clocks held. Each from default.json (all pass) with one named change
// of what NVML would show (shared/REFERENCE.md gives the machine's real values).
#include <gtest/gtest.h>

#include "diagnosis_fixtures.h"

namespace peerbench {
namespace {

using test::cause_in;
using test::codes_of;
using test::diagnosis_of;
using test::h200x2_run;

TEST(DiagnosisGpu, LinksDownAreOneCauseWithTheirNumbers) {
  // Change: links 3 and 7 of GPU 0 down in the run's topology (NVML's link state).
  RunDocument d = h200x2_run("default.json");
  auto& g = d.topology->hosts.front().gpus.front();
  for (auto& l : g.nvlinks)
    if (l.link == 3 || l.link == 7) l.active = false;
  g.nvlinks_up = 16;
  const auto cs = diagnosis_of(d);
  ASSERT_FALSE(cs.empty());
  const DiagnosedCause& c = cs.front();
  EXPECT_EQ(c.code, "nvlink-links-down") << testing::PrintToString(codes_of(cs));
  EXPECT_EQ(c.next,
            "Next: links 3 and 7 of GPU 0 0000:00:06.0 are down: nvidia-smi nvlink -s, "
            "then reseat or RMA");
  const auto codes = codes_of(cs);
  EXPECT_EQ(std::count(codes.begin(), codes.end(), "nvlink-links-down"), 1);
}

TEST(DiagnosisGpu, LinksDownFromNodeEvidence) {
  // Change: the node's NVML says links 3 and 7 of GPU 0 are down where the model has 18, and the
  // copy-engine figures over them fell to 16/18 of their rate.
  RunDocument d = h200x2_run("default.json");
  for (auto& r : d.results)
    if (r.method == "ce-write" && r.algbw_gbps) r.algbw_gbps->median *= 0.6;
  NodeEvidence n = test::gpu_machine_evidence(d);
  n.gpus.front().nvlinks_expected = 18;
  for (int l = 0; l < 18; ++l) n.gpus.front().nvlinks.push_back({l, l != 3 && l != 7, ""});
  d.node_evidence = {n};
  const auto cs = diagnosis_of(d);
  const DiagnosedCause* c = cause_in(cs, "nvlink-links-down");
  ASSERT_NE(c, nullptr) << testing::PrintToString(codes_of(cs));
  EXPECT_NE(c->summary.find("(16 of 18 up)"), std::string::npos) << c->summary;
}

TEST(DiagnosisGpu, FabricNotStarted) {
  // Change: NVML's fabric state "not-started" on GPU 1 (REFERENCE.md read "Completed" there).
  RunDocument d = h200x2_run("default.json");
  FabricInfo f;
  f.state = "not-started";
  d.topology->hosts.front().gpus.back().fabric = f;
  const auto cs = diagnosis_of(d);
  ASSERT_FALSE(cs.empty());
  EXPECT_EQ(cs.front().code, "fabric-manager-not-running") << testing::PrintToString(codes_of(cs));
  EXPECT_EQ(cs.front().next.rfind("Next: start nvidia-fabricmanager on vm", 0), 0u);
}

TEST(DiagnosisGpu, FabricRegisteredButDegraded) {
  // Change: GPU 1's fabric registered ("completed", as REFERENCE.md read) but NVML's health mask
  // says degraded bandwidth (fabric_health_text's words).
  RunDocument d = h200x2_run("default.json");
  FabricInfo f;
  f.state = "completed";
  f.status = "Success";
  f.health = "degraded bandwidth";
  d.topology->hosts.front().gpus.back().fabric = f;
  const auto cs = diagnosis_of(d);
  ASSERT_FALSE(cs.empty());
  EXPECT_EQ(cs.front().code, "fabric-degraded") << testing::PrintToString(codes_of(cs));
  EXPECT_NE(cs.front().summary.find("is registered but reports degraded bandwidth"),
            std::string::npos)
      << cs.front().summary;
  EXPECT_EQ(cs.front().next.rfind("Next: read the fabric manager's log on vm", 0), 0u);
  EXPECT_EQ(cause_in(cs, "unknown"), nullptr);
}

TEST(DiagnosisGpu, AnotherProcessIsNamedNotTheLink) {
  // Change: REFERENCE.md's contention case: a copy loop on GPU 1 (0000:00:07.0) seen by NVML
  // during sm-read 0->1.
  RunDocument d = h200x2_run("default.json");
  for (auto& r : d.results) {
    if (r.method != "sm-read" || r.src != 0) continue;
    GpuInterference g;
    g.rank = 1, g.host = "vm", g.gpu_index = 1, g.pci_bus_id = "0000:00:07.0";
    g.processes = {{4242, "gpu_busy_loop", 2568ull << 20, 99}};
    r.interference = std::vector<GpuInterference>{g};
  }
  const auto cs = diagnosis_of(d);
  ASSERT_EQ(codes_of(cs), std::vector<std::string>{"gpu-busy-other-process"});
  EXPECT_EQ(cs.front().states, std::vector<std::string>{"contended"});
  EXPECT_EQ(cs.front().next,
            "Next: run again when pid 4242 (gpu_busy_loop) has finished (run --wait-idle SECONDS "
            "waits for it)");
}

RunDocument held(const std::string& reason) {
  RunDocument d = h200x2_run("default.json");
  for (auto& r : d.results) {
    if (r.method != "ce-write" || r.src != 1) continue;
    GpuInterference g;
    g.rank = 1, g.host = "vm", g.gpu_index = 1, g.pci_bus_id = "0000:00:07.0";
    g.throttle_reasons = {reason};
    r.interference = std::vector<GpuInterference>{g};
  }
  return d;
}

TEST(DiagnosisGpu, ClocksHeldByPowerOrHeat) {
  const auto power = diagnosis_of(held("sw-power-cap"));  // change: NVML's clock event reason
  ASSERT_EQ(codes_of(power), std::vector<std::string>{"clocks-power-capped"});
  EXPECT_EQ(power.front().next.rfind("Next: check the power limit and cooling of GPU 1", 0), 0u);
  const auto heat = diagnosis_of(held("hw-thermal"));
  ASSERT_EQ(codes_of(heat), std::vector<std::string>{"clocks-thermal"});
  EXPECT_EQ(heat.front().states, std::vector<std::string>{"throttled"});
}

TEST(DiagnosisGpu, RemappedRowFailureExplainsDataErrors) {
  // Change: wrong elements in ce-write 0->1, and NVML's row-remapping failure on GPU 1 (the
  // machine read "no failure").
  RunDocument d = h200x2_run("default.json");
  for (auto& r : d.results)
    if (r.method == "ce-write" && r.src == 0 && r.checked) r.wrong = 12;
  EXPECT_EQ(codes_of(diagnosis_of(d)), std::vector<std::string>{"unknown"});
  NodeEvidence n = test::gpu_machine_evidence(d);
  n.gpus.back().remapped_rows_failure = true;
  d.node_evidence = {n};
  const auto cs = diagnosis_of(d);
  ASSERT_EQ(codes_of(cs), std::vector<std::string>{"ecc-remapped-failure"});
  EXPECT_EQ(cs.front().flags, std::vector<std::string>{"data-errors"});
}

}  // namespace
}  // namespace peerbench
