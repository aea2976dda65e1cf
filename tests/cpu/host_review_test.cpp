// Review of the host<->GPU methods: hand-edited files whose per-gpu results do not name one
// rank, GPUs named by rank, and the "host's total" of the -all methods on several hosts. Each
// test fails on the code under review (7df6fe2) and says what it expects instead.
#include <gtest/gtest.h>

#include "core/base/errors.h"
#include "core/judge/verdict.h"
#include "core/model/json_in.h"
#include "core/model/results_validate.h"
#include "core/model/schema.h"
#include "core/present/report.h"
#include "test_docs.h"

namespace peerbench {
namespace {

using test::kGiB;

nlohmann::json host_example() {
  return load_json_file(std::string(PEERBENCH_SOURCE_DIR) + "/results/examples/h200x2-host.json");
}

// The error the file gives, or "" when it is accepted.
std::string validated_read_error(const nlohmann::json& j) {
  try {
    validate_run_document(run_document_from_json(j, "edited.json"), "edited.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// A per-gpu result naming two ranks is accepted today, then judged as a pair against NVLink
// ("h2d reached 55.5 GB/s ... from rank 0 to rank 1, under the 286.9 GB/s that NVLink x18
// should carry"). It is bad input: refuse it naming the field.
TEST(HostReview, PerGpuResultNamingTwoRanksIsRefused) {
  auto j = host_example();
  j["results"][0]["dst"] = 1;  // h2d, src 0
  const std::string why = validated_read_error(j);
  EXPECT_NE(why.find("results[0]"), std::string::npos) << "accepted; error was: '" << why << "'";
}

// A per-gpu result with src = dst = null is accepted today and judged as an all-ranks verdict
// ("all  all  FLAGGED [h2d 55.5 GB/s @ 1G] ... under the 239.1 GB/s that all ranks should carry").
TEST(HostReview, PerGpuResultOverAllRanksIsRefused) {
  auto j = host_example();
  j["results"][0]["src"] = nullptr;
  j["results"][0]["dst"] = nullptr;
  const std::string why = validated_read_error(j);
  EXPECT_NE(why.find("results[0]"), std::string::npos) << "accepted; error was: '" << why << "'";
}

// A stored verdict judging only per-gpu methods must name one rank, as results do.
TEST(HostReview, PerGpuVerdictNamingTwoRanksIsRefused) {
  auto j = host_example();
  ASSERT_FALSE(j["verdicts"].empty());
  j["verdicts"][0]["dst"] = 1;  // GPU 0's verdict, now "0->1"
  const std::string why = validated_read_error(j);
  EXPECT_NE(why.find("verdicts[0]"), std::string::npos) << "accepted; error was: '" << why << "'";
}

// Two hosts with two GPUs each: rank 2 drives GPU 0 of node1. The host table and verdicts label
// it "GPU 2", a GPU that does not exist on node1; the pair tables name ranks ("0->1"), so the
// per-GPU rows should too (or say host and GPU index).
RunDocument two_hosts_host_run() {
  test::NodeSpec spec;
  spec.gpus = 4;
  spec.hosts = {"node0", "node0", "node1", "node1"};
  RunDocument d = test::make_doc(spec);
  d.pairs.clear();
  for (int g = 0; g < 4; ++g) {
    auto all = test::bw_result("h2d-all", g, g, kGiB, 55.0);
    all.concurrent_pairs = 4;
    d.results.push_back(all);
  }
  return d;
}

std::string text_report_of(const RunDocument& d) {
  ReportInput in;
  in.path = "two-hosts.json";
  in.doc = &d;
  in.verdicts = compute_verdicts(d, {});
  in.expectations_source = "built-in defaults";
  return make_reporter(ReportFormat::kText)->render({in}, {});
}

TEST(HostReview, PerGpuRowsDoNotCallRankTwoGpuTwo) {
  const auto d = two_hosts_host_run();
  ASSERT_EQ(d.system.ranks[2].gpu.index, 0);
  const auto text = text_report_of(d);
  EXPECT_EQ(text.find("GPU 2 "), std::string::npos)
      << "rank 2 is GPU 0 of node1, labelled as GPU 2:\n"
      << text;
}

// README: "the report adds the host's total". With two hosts the line sums all four GPUs
// (220 GB/s "from 4 GPUs at once"), a figure no host's PCIe or memory carried.
TEST(HostReview, HostTotalIsPerHost) {
  const auto d = two_hosts_host_run();
  const auto text = text_report_of(d);
  EXPECT_EQ(text.find("220.0 GB/s from 4 GPUs"), std::string::npos) << text;
}

}  // namespace
}  // namespace peerbench
