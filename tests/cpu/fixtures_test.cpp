// Real runs from the device machine (tests/fixtures/README.md says which): they read back under
// the schema, and their verdicts are what the situation calls for.
#include <gtest/gtest.h>

#include "core/report.h"
#include "core/schema.h"
#include "core/verdict.h"

namespace peerbench {
namespace {

std::string fixture(const std::string& name) { return std::string(PEERBENCH_SOURCE_DIR) + "/tests/fixtures/runs/" + name; }

TEST(Fixtures, SimulatedTwoHostsUseNetAndAreNotFlaggedForIt) {
  const auto d = load_run_file(fixture("h200x1-shared-simulated-two-hosts.json"));
  EXPECT_EQ(d.status, "complete");
  EXPECT_EQ(d.system.hosts, (std::vector<std::string>{"hostA", "hostB"}));
  for (const auto& p : d.pairs) {
    EXPECT_FALSE(p.same_host);
    ASSERT_TRUE(p.nccl) << p.src << "->" << p.dst;
    EXPECT_EQ(p.nccl->kind, "NET");
    EXPECT_NE(p.nccl->example.find("via NET/Socket"), std::string::npos);
  }
  int na = 0;
  for (const auto& r : d.results) {
    if (r.method == "ce-write" || r.method == "sm-read" || r.method == "staged") {
      EXPECT_EQ(r.status, ResultStatus::kNotApplicable);
      ++na;
    }
    EXPECT_EQ(r.wrong, 0u);
  }
  EXPECT_GT(na, 0);
  for (const auto& v : compute_verdicts(d, {})) {
    EXPECT_EQ(v.link, v.src < 0 ? "all" : "NET");
    for (const auto& f : v.flags) EXPECT_NE(f.code, "nccl-net") << "NET across hosts is expected";
  }
}

TEST(Fixtures, SharedGpuRunReadsAndReports) {
  const auto d = load_run_file(fixture("h200x1-shared-serial.json"));
  EXPECT_EQ(d.status, "complete");
  ASSERT_EQ(d.system.ranks.size(), 2u);
  EXPECT_EQ(d.system.ranks[0].gpu.pci_bus_id, d.system.ranks[1].gpu.pci_bus_id);
  for (const auto& p : d.pairs) EXPECT_EQ(p.peer_access, "same-gpu");
  ReportInput in;
  in.path = "f.json";
  in.doc = &d;
  in.verdicts = compute_verdicts(d, {});
  const auto text = make_reporter(ReportFormat::kText)->render({in}, {});
  EXPECT_NE(text.find("NVIDIA H200"), std::string::npos);
  EXPECT_NE(text.find("NCCL refuses duplicate GPUs"), std::string::npos) << "the skip reason reaches the report";
}

}  // namespace
}  // namespace peerbench
