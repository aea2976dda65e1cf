#include <gtest/gtest.h>

#include <fstream>

#include "core/base/errors.h"
#include "core/judge/verdict.h"
#include "core/model/json_in.h"
#include "core/model/schema.h"
#include "test_docs.h"
#include "test_verdicts.h"

namespace peerbench {
namespace {

using test::bw_result;
using test::clean_h200_pair;
using test::flag_codes_of;
using test::make_doc;
using test::verdict_of;

TEST(Verdicts, CleanNvlinkPairPasses) {
  const auto vs = compute_verdicts(clean_h200_pair(), {});
  ASSERT_EQ(vs.size(), 3u);  // 0->1, 1->0, all ranks
  for (const auto& v : vs) {
    EXPECT_EQ(v.verdict, "pass") << v.src << "->" << v.dst;
    EXPECT_TRUE(v.flags.empty());
  }
  EXPECT_EQ(verdict_of(vs, 0, 1).link, "NV18");
  EXPECT_NE(verdict_of(vs, 0, 1).observed.find("ce-write 395.0 GB/s"), std::string::npos)
      << verdict_of(vs, 0, 1).observed;
  EXPECT_EQ(count_failing(vs, "all"), 0);
}

// A run that failed after its cases (a confirmation repeat, a later burn-in cycle) has verdicts
// that may all pass: the run itself still fails, and its headline says why first.
TEST(Verdicts, AFailedRunFailsThoughEveryVerdictPasses) {
  auto d = clean_h200_pair();
  const auto vs = compute_verdicts(d, {});
  EXPECT_EQ(run_exit_code(d, vs, "all"), kExitOk);
  d.status = "failed";
  d.errors = {"confirmation: rank 1: cudaErrorIllegalAddress", "rank 0: peer gone"};
  EXPECT_EQ(count_failing(vs, "all"), 0);
  EXPECT_EQ(run_exit_code(d, vs, "all"), kExitFlagged);
  EXPECT_EQ(run_exit_code(d, vs, "incomplete"), kExitFlagged);
  EXPECT_EQ(run_exit_code(d, vs, "below-link"), kExitOk) << "--fail-on chooses";
  EXPECT_EQ(run_exit_code(d, vs, "none"), kExitOk);
  EXPECT_EQ(run_headline(d, vs),
            "the run failed: confirmation: rank 1: cudaErrorIllegalAddress (and 1 more); all 3 "
            "pass");
}

TEST(Verdicts, NcclOnShmIsFlaggedWithEvidence) {
  auto spec = test::NodeSpec{};
  spec.nccl_kind = "SHM";
  spec.nccl_detail = "SHM/direct/direct";
  auto d = make_doc(spec);
  d.results = clean_h200_pair().results;
  const auto vs = compute_verdicts(d, {});
  const auto& v = verdict_of(vs, 1, 0);
  EXPECT_EQ(v.verdict, "flagged");
  ASSERT_EQ(flag_codes_of(v), (std::vector<std::string>{"nccl-shm"}));
  EXPECT_NE(v.flags[0].message.find("although they share NVLink x18"), std::string::npos)
      << v.flags[0].message;
  EXPECT_EQ(v.flags[0].evidence["transport"], "SHM");
  EXPECT_EQ(v.flags[0].evidence["details"][0], "SHM/direct/direct");
  EXPECT_EQ(count_failing(vs, "nccl-shm"), 2);
  EXPECT_EQ(count_failing(vs, "nccl-net"), 0);
  EXPECT_EQ(count_failing(vs, "none"), 0);
}

TEST(Verdicts, NcclOnNetWithinAHostIsFlaggedButNotAcrossHosts) {
  auto spec = test::NodeSpec{};
  spec.gpus = 4;
  spec.hosts = {"a", "a", "b", "b"};
  spec.nccl_kind = "NET";
  spec.nccl_detail = "NET/Socket/0";
  const auto vs = compute_verdicts(make_doc(spec), {});
  EXPECT_EQ(flag_codes_of(verdict_of(vs, 0, 1)), (std::vector<std::string>{"nccl-net"}));
  EXPECT_EQ(verdict_of(vs, 0, 2).link, "NET");
  EXPECT_EQ(flag_codes_of(verdict_of(vs, 0, 2)), (std::vector<std::string>{"nccl-net-socket"}))
      << "NET across hosts is expected, its Socket transport is not";
}

TEST(Verdicts, NoP2pIsHostStaged) {
  auto spec = test::NodeSpec{};
  spec.nvlinks = 0;
  spec.can_peer = false;
  auto d = make_doc(spec);
  d.results.push_back(bw_result("staged", 0, 1, 1 << 30, 38));
  const auto vs = compute_verdicts(d, {});
  const auto& v = verdict_of(vs, 0, 1);
  ASSERT_EQ(flag_codes_of(v), (std::vector<std::string>{"host-staged"}));
  EXPECT_EQ(v.flags[0].evidence["staged_gbps"], 38.0);
  EXPECT_EQ(v.flags[0].evidence["peer_access"], "unsupported");
}

TEST(Verdicts, PcieLikeNumbersOnNvlinkAreBelowLink) {
  auto d = clean_h200_pair();
  for (auto& r : d.results) {
    if (r.method == "ce-write" && r.src == 0) r.algbw_gbps = test::flat(52);
  }
  Expectations link_rule;  // the link-rate rule alone (H200 has known-good figures too)
  link_rule.expected_fraction = 0;
  const auto vs = compute_verdicts(d, link_rule);
  const auto& v = verdict_of(vs, 0, 1);
  ASSERT_EQ(flag_codes_of(v), (std::vector<std::string>{"below-link", "asymmetric"}));
  EXPECT_DOUBLE_EQ(v.flags[0].evidence["measured_gbps"].get<double>(), 52.0);
  EXPECT_NEAR(v.flags[0].evidence["link_raw_gbps"].get<double>(), 478.125, 1e-9);
  // Copies' bar: 60 % of the raw link, scaled by size / (size + 4 MiB) (1 GiB: 0.996).
  EXPECT_NEAR(v.flags[0].evidence["threshold_gbps"].get<double>(), 0.6 * 478.125 * 1024.0 / 1028.0,
              1e-9);
  EXPECT_TRUE(verdict_of(vs, 1, 0).flags.empty()) << "the fast direction is not the asymmetric one";
}

TEST(Verdicts, PcieSwitchPairIsJudgedAgainstPcie) {
  auto spec = test::NodeSpec{};
  spec.nvlinks = 0;
  spec.pcie_path = "PIX";
  auto d = make_doc(spec);
  d.results.push_back(bw_result("ce-write", 0, 1, 1 << 30, 50));  // ~80% of Gen5 x16 (63 GB/s)
  d.results.push_back(bw_result("ce-write", 1, 0, 1 << 30, 49));
  d.results.push_back(bw_result("sm-write", 0, 1, 1 << 30, 30));  // under 60%
  d.results.push_back(bw_result("staged", 0, 1, 1 << 30, 25));
  const auto vs = compute_verdicts(d, {});
  const auto& v = verdict_of(vs, 0, 1);
  EXPECT_EQ(v.link, "PIX");
  ASSERT_EQ(flag_codes_of(v), (std::vector<std::string>{"below-link"}));
  EXPECT_EQ(v.flags[0].method, "sm-write");
  EXPECT_TRUE(verdict_of(vs, 1, 0).flags.empty());
}

TEST(Verdicts, P2pSlowerThanStagedAndDataErrorsAndFailures) {
  auto d = clean_h200_pair();
  for (auto& r : d.results) {
    if (r.method == "ce-read" && r.src == 1) r.algbw_gbps = test::flat(20);
    if (r.method == "sm-read" && r.src == 1) r.wrong = 7;
  }
  Result failed;
  failed.method = "sm-write";
  failed.src = 1;
  failed.dst = 0;
  failed.bytes = 1 << 20;
  failed.status = ResultStatus::kTimeout;
  failed.reason = "watchdog";
  d.results.push_back(failed);
  Expectations e;
  e.fraction_of_link = 0;  // isolate the other checks
  e.asymmetry_tolerance = 1;
  const auto vs = compute_verdicts(d, e);
  const auto c = flag_codes_of(verdict_of(vs, 1, 0));
  EXPECT_NE(std::find(c.begin(), c.end(), "p2p-slower-than-staged"), c.end());
  EXPECT_NE(std::find(c.begin(), c.end(), "data-errors"), c.end());
  EXPECT_EQ(std::find(c.begin(), c.end(), "measurement-failed"), c.end());
  EXPECT_EQ(verdict_of(vs, 1, 0).verdict, "flagged");
  const auto& mv = verdict_of(vs, 1, 0).methods;
  const auto sm = std::find_if(mv.begin(), mv.end(),
                               [](const MethodVerdict& m) { return m.method == "sm-write"; });
  ASSERT_NE(sm, mv.end());
  EXPECT_EQ(sm->state, "incomplete") << "a timeout is a measurement missing, not a pass";
  EXPECT_NE(sm->reason.find("timeout at 1 MiB: watchdog"), std::string::npos) << sm->reason;
}

TEST(Verdicts, AllReduceBelowSiteMinimum) {
  auto d = clean_h200_pair();
  Expectations e;
  e.min_gbps["nccl-allreduce"]["*"] = 340;
  e.source = "site.json";
  const auto vs = compute_verdicts(d, e);
  const auto& all = verdict_of(vs, -1, -1);
  ASSERT_EQ(flag_codes_of(all), (std::vector<std::string>{"below-link"}));
  EXPECT_EQ(all.flags[0].evidence["basis"], "min_gbps from site.json");
}

TEST(Expectations, FileIsStrict) {
  const auto e = expectations_from_json(
      nlohmann::json::parse(
          R"({"fraction_of_link": 0.7, "min_gbps": {"ce-write": 380}, "comment": "site A"})"),
      "x.json", method_catalog());
  EXPECT_DOUBLE_EQ(e.fraction_of_link, 0.7);
  EXPECT_DOUBLE_EQ(e.min_gbps.at("ce-write").at("*"), 380);
  EXPECT_THROW(expectations_from_json(nlohmann::json::parse(R"({"fraction_of_lnk": 0.7})"),
                                      "x.json", method_catalog()),
               InputError);
  EXPECT_THROW(
      expectations_from_json(nlohmann::json::parse(R"({"min_gbps": {"ce-write": "fast"}})"),
                             "x.json", method_catalog()),
      InputError);
  EXPECT_THROW(
      expectations_from_json(nlohmann::json::parse(R"([1,2])"), "x.json", method_catalog()),
      InputError);
  // A GB/s bar on a latency method judged nothing, silently (an audit); its time bar stands.
  EXPECT_THROW(expectations_from_json(nlohmann::json::parse(R"({"min_gbps": {"ce-latency": 5}})"),
                                      "x.json", method_catalog()),
               InputError);
  EXPECT_NO_THROW(
      expectations_from_json(nlohmann::json::parse(R"({"max_latency_us": {"ce-latency": 5}})"),
                             "x.json", method_catalog()));
  // From an audit: a bandwidth bar of 0 passed everything in place of every other bar; a
  // small-message bound at or past judge_min_bytes judged 1 GiB copies as times; a NUL in a key
  // cut the error line short.
  const auto why = [](const char* text) -> std::string {
    try {
      expectations_from_json(nlohmann::json::parse(text), "x.json", method_catalog());
      return "(read)";
    } catch (const InputError& e) {
      return e.what();
    }
  };
  EXPECT_NE(why(R"({"min_gbps": {"ce-write": 0}})").find("a bar of 0 GB/s passes every figure"),
            std::string::npos);
  EXPECT_NE(why(R"({"min_gbps": {"ce-write": {"nvlink": 0}}})").find("min_gbps.ce-write.nvlink"),
            std::string::npos);
  EXPECT_NE(why(R"({"small_message_max_bytes": "1T"})")
                .find("small_message_max_bytes (1 TiB, judged as a time up to it) must be below "
                      "judge_min_bytes (256 MiB"),
            std::string::npos)
      << why(R"({"small_message_max_bytes": "1T"})");
  EXPECT_NE(why(R"({"judge_min_bytes": "64K"})").find("field 'judge_min_bytes'"), std::string::npos)
      << why(R"({"judge_min_bytes": "64K"})");
  EXPECT_EQ(why(R"({"judge_min_bytes": "1M", "small_message_max_bytes": "512K"})"), "(read)");
  const std::string nul = why("{\"x\\u0000y\": 1}");
  EXPECT_NE(nul.find("unknown key 'x\\x00y'; allowed: "), std::string::npos) << nul;
}

}  // namespace
}  // namespace peerbench
