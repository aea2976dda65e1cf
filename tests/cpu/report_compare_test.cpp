#include <gtest/gtest.h>

#include "core/compare.h"
#include "core/errors.h"
#include "core/report.h"
#include "core/verdict.h"
#include "test_docs.h"

namespace peerbench {
namespace {

ReportInput input_for(const RunDocument& d, const std::string& path = "run.json") {
  ReportInput in;
  in.path = path;
  in.doc = &d;
  in.verdicts = compute_verdicts(d, {});
  in.expectations_source = "built-in defaults";
  return in;
}

TEST(Report, TextShowsMatrixVerdictsAndFlags) {
  auto spec = test::NodeSpec{};
  spec.nccl_kind = "SHM";
  spec.nccl_detail = "SHM/direct/direct";
  auto d = test::make_doc(spec);
  d.results = test::clean_h200_pair().results;
  const auto text = make_reporter(ReportFormat::kText)->render({input_for(d)}, {});
  EXPECT_NE(text.find("0->1"), std::string::npos);
  EXPECT_NE(text.find("NV18"), std::string::npos);
  EXPECT_NE(text.find("395.0"), std::string::npos);
  EXPECT_NE(text.find("FLAGGED"), std::string::npos);
  EXPECT_NE(text.find("nccl-shm"), std::string::npos);
  EXPECT_NE(text.find("SHM/direct/direct"), std::string::npos);
  EXPECT_NE(text.find("nccl-allreduce over all ranks"), std::string::npos);
}

TEST(Report, MarkdownHasTablesAndPlots) {
  const auto d = test::clean_h200_pair();
  const auto md = make_reporter(ReportFormat::kMarkdown)
                      ->render({input_for(d)}, {{"bw.png", "bandwidth", "", "plots/bw.png"}});
  EXPECT_NE(md.find("| pair | link |"), std::string::npos);
  EXPECT_NE(md.find("**Verdict: all 3 pass**"), std::string::npos);
  EXPECT_NE(md.find("![bandwidth](plots/bw.png)"), std::string::npos);
}

TEST(Report, HtmlEscapesEveryStringFromTheFile) {
  auto d = test::clean_h200_pair();
  d.system.ranks[0].host = "<script>alert(1)</script>";
  d.system.hosts[0] = d.system.ranks[0].host;
  d.tool.version = "\"><img src=x onerror=alert(2)>";
  d.results[0].method = "<b>ce-write</b>";
  d.nccl.note = "a & b";
  const auto html =
      make_reporter(ReportFormat::kHtml)
          ->render({input_for(d)}, {{"p.png", "<i>cap</i>", "data:image/png;base64,AAAA", ""}});
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_EQ(html.find("<img src=x"), std::string::npos);
  EXPECT_EQ(html.find("<b>ce-write"), std::string::npos);
  EXPECT_EQ(html.find("<i>cap"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;"), std::string::npos);
  EXPECT_NE(html.find("a &amp; b"), std::string::npos);
  EXPECT_NE(html.find("Content-Security-Policy"), std::string::npos);
  EXPECT_NE(html.find("src=\"data:image/png;base64,AAAA\""), std::string::npos);
}

TEST(Report, CsvOneRowPerResultAndNoFormulas) {
  auto d = test::clean_h200_pair();
  d.results[0].reason = "=HYPERLINK(\"http://x\")";
  const auto csv = make_reporter(ReportFormat::kCsv)->render({input_for(d)}, {});
  EXPECT_EQ(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')),
            d.results.size() + 1);
  EXPECT_NE(csv.find("\"'=HYPERLINK(\"\"http://x\"\")\""), std::string::npos) << csv.substr(0, 400);
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("+1"), "'+1");
  EXPECT_EQ(csv_field("plain"), "plain");
}

TEST(Compare, RegressionNeedsThresholdAndSeparatedSpreads) {
  const auto a = test::clean_h200_pair();
  auto b = a;
  b.system.driver_version = "590.10";
  for (auto& r : b.results) {
    if (r.method == "ce-write" && r.src == 0) r.algbw_gbps = test::flat(300);  // clear regression
    if (r.method == "ce-read" && r.src == 0) r.algbw_gbps = test::flat(370, 0.10);  // -4%: under 5%
    if (r.method == "sm-write" && r.src == 0)
      r.algbw_gbps = test::flat(330, 0.2);                                    // -11% but overlaps
    if (r.method == "ce-latency" && r.src == 0) r.time_us = test::flat(3.5);  // slower latency
    if (r.method == "staged" && r.src == 1) r.algbw_gbps = test::flat(50);    // improvement
  }
  CompareOptions o;
  const auto c = compare_runs(a, "a.json", b, "b.json", o);
  auto change = [&](const std::string& m, int src) {
    for (const auto& r : c.rows) {
      if (r.method == m && r.pair == std::to_string(src) + "->" + std::to_string(1 - src))
        return r.change;
    }
    return std::string("missing");
  };
  EXPECT_EQ(change("ce-write", 0), "regression");
  EXPECT_EQ(change("ce-read", 0), "same");
  EXPECT_EQ(change("sm-write", 0), "within-noise");
  EXPECT_EQ(change("ce-latency", 0), "regression");
  EXPECT_EQ(change("staged", 1), "improvement");
  EXPECT_EQ(c.regressions, 2);
  EXPECT_EQ(c.improvements, 1);
  EXPECT_NE(std::find(c.differences.begin(), c.differences.end(), "driver: 580.159.04 -> 590.10"),
            c.differences.end());
  EXPECT_EQ(comparison_exit_code(c, o), 1);
  o.fail_on = "none";
  EXPECT_EQ(comparison_exit_code(c, o), 0);
  const auto text = render_comparison(c, "a.json", "b.json", o);
  EXPECT_NE(text.find("REGRESSION"), std::string::npos);
  EXPECT_NE(text.find("driver: 580.159.04 -> 590.10"), std::string::npos);
}

TEST(Compare, MatchesGpusAcrossHostsByIndexOrPci) {
  const auto a = test::clean_h200_pair();
  auto b = a;
  for (auto& r : b.system.ranks) r.host = "other-node";
  b.system.hosts = {"other-node"};
  CompareOptions o;
  const auto c = compare_runs(a, "a", b, "b", o);
  EXPECT_EQ(c.rows.size(), a.results.size());
  EXPECT_TRUE(c.only_in_a.empty());
  for (auto& r : b.system.ranks) r.gpu.pci_bus_id = "0000:9" + std::to_string(r.rank) + ":00.0";
  o.match = "pci";
  const auto by_pci = compare_runs(a, "a", b, "b", o);
  EXPECT_EQ(by_pci.rows.size(), 1u) << "only the all-ranks result matches when PCI ids differ";
  EXPECT_EQ(by_pci.only_in_a.size(), a.results.size() - 1);
}

TEST(Compare, RefusesUnlikeRuns) {
  const auto a = test::clean_h200_pair();
  auto spec = test::NodeSpec{};
  spec.gpus = 4;
  const auto b = test::make_doc(spec);
  try {
    compare_runs(a, "a.json", b, "b.json", {});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("2 GPUs"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace peerbench
