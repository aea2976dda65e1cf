#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>

#include "core/base/errors.h"
#include "core/judge/verdict.h"
#include "core/model/schema.h"
#include "core/present/compare.h"
#include "core/present/history.h"
#include "core/present/report.h"
#include "test_docs.h"
#include "test_fixtures.h"

namespace peerbench {
namespace {

using test::example_run;
using test::run_fixture_path;

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
  EXPECT_NE(text.find("Over all ranks at the judged size:\n  method "), std::string::npos);
  EXPECT_NE(text.find("\n  nccl-allreduce "), std::string::npos);
}

// From an audit: the host section's header said "pinned host memory on the GPU's NUMA node" where
// the run recorded the GPU's node as unknown; and a report whose recomputed verdicts differ from
// those the file recorded did not say so.
TEST(Report, SaysWhereHostBuffersWereAndWhatTheFileItselfRecorded) {
  const auto h = example_run("h200x2-host.json");
  const auto text = make_reporter(ReportFormat::kText)->render({input_for(h)}, {});
  // (Before the Terms, which quote the file's own method summaries.)
  EXPECT_EQ(text.substr(0, text.find("\nTerms:\n")).find("on the GPU's NUMA node"),
            std::string::npos);
  EXPECT_NE(text.find("rank 0: 1 GiB pinned on NUMA node 0, GPU's node unknown"), std::string::npos)
      << text;
  const auto d = example_run("h200x2-default.json");
  ReportInput in = input_for(d);
  in.recorded = recorded_verdicts_note(d, in.verdicts);
  // Its run flagged the data-CRC counters, which this build records but does not flag (README).
  EXPECT_EQ(in.recorded,
            "the verdict differs from the one the file recorded: when it ran, peerbench 0.4.0 "
            "(e7f6e27354a3) judged 2 flagged, 1 pass of 3 verdicts (2 flags); judged again by "
            "this peerbench's rules and bars, it is all 3 pass; flags this peerbench no longer "
            "raises here: link-errors (the file keeps its own verdicts and their evidence)")
      << "each GPU's link-errors flag stands on both its pairs, and counts once";
  for (auto f : {ReportFormat::kText, ReportFormat::kMarkdown, ReportFormat::kHtml})
    EXPECT_NE(
        test::flat(make_reporter(f)->render({in}, {})).find("rules and bars, it is all 3 pass"),
        std::string::npos);
  // The same verdict with other flag codes is no news: said nowhere (issue 39: the line read as
  // an alarm on every old file).
  auto other_codes = d;
  for (auto& v : other_codes.verdicts)
    for (auto& f : v.flags) f.code = "below-link";
  EXPECT_EQ(recorded_verdicts_note(other_codes, other_codes.verdicts), "");
  EXPECT_EQ(recorded_verdicts_note(d, d.verdicts), "") << "the same verdicts say nothing";
  // Per-task binding: both ranks see their GPU as index 0; the cards say to go by the PCI id.
  const auto ptb = load_run_file(std::string(PEERBENCH_SOURCE_DIR) +
                                 "/results/examples/h200x2-per-task-binding.json");
  const auto doc = report_document({input_for(ptb)}, {});
  const Section* cards = test::section_of(doc, "GPUs");
  ASSERT_NE(cards, nullptr);
  EXPECT_EQ(test::cell_text(cards->table, 1, 1), "0 as its rank sees it (go by the PCI id)");
  EXPECT_EQ(test::cell_text(cards->table, 1, 2), "0000:00:07.0");
  EXPECT_EQ(text.find("as its rank sees it"), std::string::npos) << "distinct indexes: plain";
}

// From an audit: no report showed the command or the NCCL variables a run was made under, so a
// fallback forced by NCCL_P2P_DISABLE=1 could not be told from a broken link on paper.
TEST(Report, ShowsTheCommandAndTheVariablesThatSteerNccl) {
  const auto d = example_run("h200x2-nccl-net.json");
  for (auto f : {ReportFormat::kText, ReportFormat::kMarkdown, ReportFormat::kHtml}) {
    const auto out = make_reporter(f)->render({input_for(d)}, {});
    const bool md = f == ReportFormat::kMarkdown;  // Markdown escapes '_'
    EXPECT_NE(out.find(md ? "NCCL\\_NVLS\\_ENABLE=0 NCCL\\_P2P\\_DISABLE=1 NCCL\\_SHM\\_DISABLE=1"
                          : "NCCL_NVLS_ENABLE=0 NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1"),
              std::string::npos);
    EXPECT_NE(out.find("build/peerbench run -b 1M -e 64M"), std::string::npos);
    EXPECT_EQ(out.find(md ? "NCCL\\_DEBUG\\_SUBSYS" : "NCCL_DEBUG_SUBSYS"), std::string::npos)
        << "log settings steer nothing";
  }
}

TEST(Report, MarkdownHasTablesAndPlots) {
  const auto d = test::clean_h200_pair();
  const auto md = make_reporter(ReportFormat::kMarkdown)
                      ->render({input_for(d)},
                               {{"bw.png", "bandwidth", "", "out/plots/bw.png", "plots/bw.png"}});
  EXPECT_NE(md.find("| pair | link |"), std::string::npos);
  EXPECT_NE(md.find("# peerbench report: run.json\n\n**PASS: all 3 pass**\n"), std::string::npos);
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

// A CSV line's fields, quoted ones ("a, b") whole, their quotes removed.
std::vector<std::string> csv_split(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

// From an audit: `report A.json B.json` exited 1 for B while its first words were A's "all 3
// pass"; over several runs a first line says which fail.
TEST(Report, SeveralRunsOpenWithWhichFail) {
  const auto d = test::clean_h200_pair();
  auto a = input_for(d, "a.json");
  auto b = input_for(d, "b.json");
  b.failing = 1;
  const auto text = make_reporter(ReportFormat::kText)->render({a, b}, {});
  // The first words under the title say which fail.
  EXPECT_EQ(text.rfind("peerbench report: 2 runs\nOver 2 runs: 1 fails: b.json (all ", 0), 0u)
      << text.substr(0, 200);
  const auto html = make_reporter(ReportFormat::kHtml)->render({a, b}, {});
  EXPECT_NE(html.find("<p class=\"flagged\">Over 2 runs: 1 fails: b.json"), std::string::npos);
  const auto md = make_reporter(ReportFormat::kMarkdown)->render({a, b}, {});
  EXPECT_EQ(md.rfind("# peerbench report: 2 runs\n\n**Over 2 runs: 1 fails: b.json", 0), 0u)
      << md.substr(0, 200);
  b.failing = 0;
  EXPECT_EQ(
      make_reporter(ReportFormat::kText)->render({a, b}, {}).find("\nOver 2 runs: none fails"),
      std::string("peerbench report: 2 runs").size());
  // One run: its own verdict under the title, no line over several runs.
  EXPECT_EQ(make_reporter(ReportFormat::kText)
                ->render({a}, {})
                .rfind("peerbench report: a.json\nPASS: ", 0),
            0u);
}

TEST(Report, CsvOneRowPerResultAndNoFormulas) {
  auto d = test::clean_h200_pair();
  d.results[0].reason = "=HYPERLINK(\"http://x\")";
  const auto csv = make_reporter(ReportFormat::kCsv)->render({input_for(d)}, {});
  EXPECT_EQ(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')),
            d.results.size() + 1);
  EXPECT_NE(csv.find("\"'=HYPERLINK(\"\"http://x\"\")\""), std::string::npos) << csv.substr(0, 400);
  // The judged size's row says so, and every row carries its pair's verdict and flag codes
  // (an audit: a pair flagged for NCCL's SHM read "pass" on its copies' rows).
  const auto off = load_run_file(std::string(PEERBENCH_SOURCE_DIR) +
                                 "/tests/fixtures/runs/h200x2/p2p-disabled.json");
  auto in = input_for(off);
  const auto rows = split(make_reporter(ReportFormat::kCsv)->render({in}, {}), '\n');
  EXPECT_NE(rows[0].find(",judged,verdict_reason,pair_verdict,pair_flags"), std::string::npos);
  int judged = 0;
  for (const auto& row : rows) {
    if (row.find(",ce-write,0,1,") == std::string::npos) continue;
    EXPECT_NE(row.find(",pass,"), std::string::npos) << row;
    const auto f = csv_split(row);
    ASSERT_EQ(f.size(), 37u) << row;
    EXPECT_EQ(f[33], "flagged") << row;
    EXPECT_EQ(f[34], "nccl-shm") << row;
    judged += f[31] == "1";
  }
  EXPECT_EQ(judged, 1) << "the 64 MiB row alone";
  // A flagged method's row says why: its own flags (it was empty; an audit).
  int flagged_rows = 0;
  for (const auto& row : rows) {
    if (row.find(",nccl-allreduce,,,") == std::string::npos) continue;
    const auto f = csv_split(row);
    ASSERT_EQ(f.size(), 37u) << row;
    if (f[27] != "flagged") continue;
    ++flagged_rows;
    EXPECT_EQ(f[32].rfind("below-", 0), 0u) << row;
    EXPECT_NE(f[32].find("nccl-allreduce reached"), std::string::npos) << row;
  }
  EXPECT_GT(flagged_rows, 0);
  // Of two variants at the judged size, the first (the one verdicts judge) is the judged row (a
  // review: both read judged=1).
  auto two = test::clean_h200_pair();
  const auto all = std::find_if(two.results.begin(), two.results.end(),
                                [](const Result& r) { return r.method == "nccl-allreduce"; });
  ASSERT_NE(all, two.results.end());
  Result other = *all;
  all->datatype = other.datatype = "float";
  all->op = "sum";
  other.op = "max";
  two.results.push_back(other);
  int judged_rows = 0;
  for (const auto& row :
       split(make_reporter(ReportFormat::kCsv)->render({input_for(two)}, {}), '\n')) {
    if (row.find(",nccl-allreduce,") == std::string::npos) continue;
    const auto f = csv_split(row);
    ASSERT_EQ(f.size(), 37u) << row;
    judged_rows += f[31] == "1";
    if (f[31] == "1") EXPECT_EQ(f[36], "sum") << row;
  }
  EXPECT_EQ(judged_rows, 1);
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("+1"), "'+1");
  EXPECT_EQ(csv_field("plain"), "plain");
}

// From an audit: one slow sample of five in A spread A's min-max over B's, so a 20 % drop in
// every sample of B read "within-noise". The interquartile ranges of the samples decide.
TEST(Compare, OneSlowSampleDoesNotHideADrop) {
  auto a = test::clean_h200_pair();
  auto b = a;
  for (auto* d : {&a, &b}) {
    for (auto& r : d->results) {
      if (r.method != "ce-write" || r.src != 0) continue;
      const double t = r.time_us->median;
      const double f = d == &a ? 1.0 : 1 / 0.8;
      r.sample_time_us = {t * f, t * f, t * f, t * f, t * (d == &a ? 2.0 : f)};
      const double gbps = r.algbw_gbps->median * (d == &a ? 1.0 : 0.8);
      r.algbw_gbps = Stats{d == &a ? gbps / 2 : gbps, gbps, gbps, gbps, 5};
    }
  }
  const auto c = compare_runs(a, "a.json", b, "b.json", {});
  int rows = 0;
  for (const auto& r : c.rows) {
    if (r.method != "ce-write" || r.pair != "0->1") continue;
    ++rows;
    EXPECT_EQ(r.change, "regression") << r.bytes;
  }
  EXPECT_GT(rows, 0);
  // Without per-sample times (older files) min-max decides, as before.
  for (auto* d : {&a, &b})
    for (auto& r : d->results) r.sample_time_us.clear();
  const auto old = compare_runs(a, "a.json", b, "b.json", {});
  for (const auto& r : old.rows)
    if (r.method == "ce-write" && r.pair == "0->1") EXPECT_EQ(r.change, "within-noise");
  // ... and the headline says such rows are inconclusive, not "same" (an audit).
  EXPECT_GT(old.min_max_inconclusive, 0);
  const std::string text = test::flat(render_comparison(old, "a.json", "b.json", {}));
  EXPECT_NE(
      text.find(test::flat("but inside min-max ranges (fewer than 4 per-sample times: a file of "
                           "schema 1-3, or -s under 4): inconclusive")),
      std::string::npos)
      << text.substr(0, 800);
  EXPECT_EQ(render_comparison(c, "a.json", "b.json", {}).find("inconclusive"), std::string::npos);
  // A history says it too: counted in the headline, in words per run under Read with care.
  const auto h = build_history({a, b, b}, {"a.json", "b.json", "c.json"}, {});
  EXPECT_EQ(h.min_max_inconclusive, 2 * old.min_max_inconclusive);
  const std::string history = render_history(h, {}, {});
  EXPECT_NE(history.find("; " + std::to_string(h.min_max_inconclusive) +
                         " inconclusive (inside min-max ranges) (see Read with care)"),
            std::string::npos)
      << history.substr(0, 800);
  EXPECT_NE(history.find("run 3: " + std::to_string(old.min_max_inconclusive) + " beyond 5.0%"),
            std::string::npos)
      << history.substr(0, 1200);
}

// From an audit: runs of two different hosts were matched GPU by GPU (host0:...) with no word in
// the headline; it says the GPUs were matched by position.
TEST(Compare, RunsOfOtherHostsSayTheGpusWereMatchedByPosition) {
  const auto a = test::clean_h200_pair();
  auto b = a;
  const auto same = compare_runs(a, "a.json", b, "b.json", {});
  EXPECT_TRUE(same.other_hosts.empty());
  b.system.hosts = {"node-b"};
  for (auto& r : b.system.ranks) r.host = "node-b";
  const auto c = compare_runs(a, "a.json", b, "b.json", {});
  EXPECT_FALSE(c.other_hosts.empty());
  const std::string text = render_comparison(c, "a.json", "b.json", {});
  EXPECT_NE(text.find("the runs are of other hosts (A: "), std::string::npos)
      << text.substr(0, 800);
  EXPECT_NE(text.find("; B: node-b): GPUs matched by position"), std::string::npos)
      << text.substr(0, 800);
  // A history names the runs on other hosts (it matched them by position with no word of it).
  const auto h = build_history({a, a, b}, {"a.json", "a2.json", "b.json"}, {});
  const std::string history = render_history(h, {}, {});
  EXPECT_NE(history.find("; run 3 ran on other hosts than run 1: GPUs matched by position"),
            std::string::npos)
      << history.substr(0, 800);
  EXPECT_NE(history.find("run 3: the runs are of other hosts (run 1: "), std::string::npos);
  EXPECT_EQ(history.find("run 2: the runs are of other hosts"), std::string::npos);
  // --match uuid matches cards: the same cards moved to another host say nothing of position,
  // and other cards are refused (every case read "lost in B", exit 1; a hostile audit).
  CompareOptions by_card;
  by_card.match = "uuid";
  EXPECT_TRUE(compare_runs(a, "a.json", b, "b.json", by_card).other_hosts.empty());
  // GPUs without a UUID are matched by position: the headline says so; against a run whose GPUs
  // all have one, nothing could match, and the pair is refused.
  auto a_no_uuid = a, b_no_uuid = b;
  for (auto* d : {&a_no_uuid, &b_no_uuid})
    for (auto& r : d->system.ranks) r.gpu.uuid.clear();
  EXPECT_FALSE(compare_runs(a_no_uuid, "a.json", b_no_uuid, "b.json", by_card).other_hosts.empty());
  EXPECT_THROW(compare_runs(a, "a.json", b_no_uuid, "b.json", by_card), InputError);
  for (auto& r : b.system.ranks) r.gpu.uuid = "GPU-other-" + std::to_string(r.rank);
  try {
    compare_runs(a, "a.json", b, "b.json", by_card);
    ADD_FAILURE() << "no card in common";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--match uuid: no GPU of a.json is in b.json"),
              std::string::npos)
        << e.what();
  }
}

// "40 regressions" stood over exit 0 under --fail-on none with no word that the default exits 1:
// the headline says the exit code was waived, in two-run compare and in a history.
TEST(Compare, FailOnNoneSaysTheDefaultWouldFail) {
  const auto a = test::clean_h200_pair();
  auto b = a;
  for (auto& r : b.results)
    if (r.method == "ce-write" && r.src == 0) r.algbw_gbps = test::flat(200);
  CompareOptions none;
  none.fail_on = "none";
  const auto c = compare_runs(a, "a.json", b, "b.json", none);
  ASSERT_GT(c.regressions, 0);
  EXPECT_EQ(comparison_exit_code(c, none), kExitOk);
  EXPECT_TRUE(waived_by_fail_on(c, none));
  EXPECT_FALSE(waived_by_fail_on(c, {})) << "the default exits 1: nothing waived";
  EXPECT_NE(render_comparison(c, "a.json", "b.json", none).find("; " + kWaivedNote),
            std::string::npos);
  EXPECT_EQ(render_comparison(c, "a.json", "b.json", {}).find(kWaivedNote), std::string::npos);
  CompareOptions html = none;
  html.format = ReportFormat::kHtml;
  EXPECT_NE(render_comparison(c, "a.json", "b.json", html).find("<p class=\"flagged\">"),
            std::string::npos)
      << "not green over regressions that only --fail-on none let pass";
  const auto same = compare_runs(a, "a.json", a, "a2.json", none);
  EXPECT_FALSE(waived_by_fail_on(same, none)) << "nothing to waive";
  const auto h = build_history({a, a, b}, {"a.json", "a2.json", "b.json"}, none);
  EXPECT_EQ(h.exit_code, kExitOk);
  EXPECT_NE(render_history(h, none, {}).find("; " + kWaivedNote), std::string::npos);
  EXPECT_EQ(render_history(build_history({a, a, b}, {"a.json", "a2.json", "b.json"}, {}), {}, {})
                .find(kWaivedNote),
            std::string::npos);
}

// From an audit: under --fail-on any, "0 regressions, 12 improvements" stood over exit 1 with no
// word why; a history's headline counted no case measured in one run alone.
TEST(Compare, ImprovementsThatFailSayWhyAndOneSidedCasesAreCounted) {
  const auto a = test::clean_h200_pair();
  auto b = a;
  for (auto& r : b.results)
    if (r.method == "ce-write" && r.src == 0) r.algbw_gbps = test::flat(480);
  CompareOptions any;
  any.fail_on = "any";
  const auto c = compare_runs(a, "a.json", b, "b.json", any);
  ASSERT_EQ(c.regressions, 0);
  ASSERT_GT(c.improvements, 0);
  EXPECT_EQ(comparison_exit_code(c, any), kExitFlagged);
  EXPECT_NE(render_comparison(c, "a.json", "b.json", any)
                .find("; exit 1: --fail-on any counts the improvements too"),
            std::string::npos);
  EXPECT_EQ(render_comparison(c, "a.json", "b.json", {}).find("exit 1"), std::string::npos);
  auto fewer = a;
  fewer.config["methods"] = {"ce-write"};
  fewer.results.erase(std::remove_if(fewer.results.begin(), fewer.results.end(),
                                     [](const Result& r) { return r.method != "ce-write"; }),
                      fewer.results.end());
  const auto h = build_history({a, a, fewer}, {"a.json", "a2.json", "f.json"}, {});
  EXPECT_NE(
      render_history(h, {}, {}).find(" measured in one of a pair of runs alone: not compared"),
      std::string::npos);
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
  EXPECT_NE(render_comparison(c, "a.json", "b.json", o).find("2 regressions, 1 improvement beyond"),
            std::string::npos)
      << "one improvement, not '1 improvements' (an audit)";
  EXPECT_NE(std::find(c.differences.begin(), c.differences.end(), "driver: 580.159.04 -> 590.10"),
            c.differences.end());
  EXPECT_EQ(comparison_exit_code(c, o), 1);
  o.fail_on = "none";
  EXPECT_EQ(comparison_exit_code(c, o), 0);
  const auto text = render_comparison(c, "a.json", "b.json", o);
  EXPECT_NE(text.find("REGRESSION"), std::string::npos);
  EXPECT_NE(text.find("driver: 580.159.04 -> 590.10"), std::string::npos);
}

// From an audit: two runs that differ in whose time is taken (-a) and NCCL's buffers (-R) said
// "nothing recorded" under "What differs", though their figures are not the same kind.
TEST(Compare, OptionsThatChangeWhatAFigureIsAreListed) {
  const auto a = load_run_file(std::string(PEERBENCH_SOURCE_DIR) +
                               "/tests/fixtures/runs/h200x2-symmetric-R2.json");
  auto b = a;
  b.config["average"] = 3;
  b.config["local_register"] = 0;
  const auto c = compare_runs(a, "a.json", b, "b.json", CompareOptions{});
  const auto has = [&](const std::string& line) {
    return std::find(c.differences.begin(), c.differences.end(), line) != c.differences.end();
  };
  EXPECT_TRUE(has("config average: 1 -> 3")) << ::testing::PrintToString(c.differences);
  EXPECT_TRUE(has("config local_register: 2 -> 0")) << ::testing::PrintToString(c.differences);
}

// A driver that makes 8-byte all-reduce 45 % slower: both runs read 0.00 busbw GB/s at 8 B, so
// compare showed "0.00 ... 0.00 same" there. At latency sizes it compares the time per operation.
TEST(Compare, LatencySizesCompareTimePerOperation) {
  const auto a = load_run_file(std::string(PEERBENCH_SOURCE_DIR) +
                               "/tests/fixtures/runs/h200x2/nccl-small-graph.json");
  auto b = a;
  b.system.driver_version = "590.10";
  for (auto& r : b.results) {
    if (r.method == "nccl-allreduce") {
      r.time_us = test::flat(8.2);
      r.algbw_gbps = r.busbw_gbps = test::flat(8 / 8.2e3);
    }
  }
  const auto c = compare_runs(a, "a.json", b, "b.json", {});
  ASSERT_FALSE(c.rows.empty());
  for (const auto& r : c.rows) {
    EXPECT_EQ(r.metric, "time_us") << r.method;
    EXPECT_TRUE(r.lower_is_better) << r.method;
    const bool slowed = r.method.rfind("nccl-allreduce", 0) == 0;
    EXPECT_EQ(r.change, slowed ? "regression" : "same") << r.method;
  }
  EXPECT_EQ(c.regressions, 1);
  const auto text = render_comparison(c, "a.json", "b.json", {});
  EXPECT_NE(text.find("time us"), std::string::npos);
  EXPECT_EQ(text.find("0.00 [0.0-0.0]"), std::string::npos) << text;
}

// A run swept from 8 B: the B/A chart keeps the latency sizes (as A/B of the time, so under 1 is
// still slower), and the history's section says which rows are times.
TEST(Compare, ASweepFromEightBytesKeepsItsSmallSizesOnTheChart) {
  auto a = test::clean_h200_pair();
  for (int s : {0, 1}) a.results.push_back(test::latency_result("ce-write", s, 1 - s, 2.2));
  auto b = a;
  for (auto& r : b.results) {
    if (r.method == "ce-write" && r.bytes == 8) r.time_us = test::flat(3.3);
  }
  const auto c = compare_runs(a, "a.json", b, "b.json", {});
  EXPECT_EQ(c.regressions, 2);
  CompareOptions html;
  html.format = ReportFormat::kHtml;
  const std::string page = render_comparison(c, "a.json", "b.json", html);
  EXPECT_NE(page.find("0.667"), std::string::npos) << "the 8 B point of ce-write, A/B of the time";
  const auto h = build_history({a, b, b}, {"a.json", "b.json", "c.json"}, {});
  const std::string text = render_history(h, {}, {});
  EXPECT_NE(text.find("ce-write (time us, lower is better at latency sizes; algbw GB/s, higher is "
                      "better above)"),
            std::string::npos)
      << text;
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

int measured(const RunDocument& d) {
  int n = 0;
  for (const auto& r : d.results) n += r.status == ResultStatus::kOk;
  return n;
}

TEST(Compare, VersionOneRunsCompareByHostAndPciBusId) {
  const auto a = load_run_file(run_fixture_path("h200x2/serial.json"));
  const auto b = load_run_file(run_fixture_path("h200x2/rounds.json"));
  CompareOptions o;
  EXPECT_EQ(o.match, "pci");
  const auto c = compare_runs(a, "serial.json", b, "rounds.json", o);
  EXPECT_EQ(static_cast<int>(c.rows.size()), measured(a));
  EXPECT_TRUE(c.only_in_a.empty() && c.only_in_b.empty() && c.in_neither.empty());
  EXPECT_NE(c.rows[0].gpu_pair.find("host0:0000:00:0"), std::string::npos) << c.rows[0].gpu_pair;
  o.match = "uuid";
  const auto u = compare_runs(a, "serial.json", b, "rounds.json", o);
  EXPECT_EQ(u.rows.size(), c.rows.size());
  EXPECT_NE(u.rows[0].gpu_pair.find("GPU-"), std::string::npos) << u.rows[0].gpu_pair;
}

// Two ranks on one GPU (--allow-gpu-sharing): ce-write 0->1 has src and dst on one card, but it
// is a copy between two ranks, not the GPU's link to its host.
TEST(Compare, APairOfRanksOnOneGpuIsNotNamedAHostLink) {
  const auto a = load_run_file(run_fixture_path("h200x1-shared-serial.json"));
  const auto c = compare_runs(a, "a.json", a, "b.json", {});
  ASSERT_FALSE(c.rows.empty());
  for (const auto& r : c.rows) {
    EXPECT_EQ(r.gpu_pair.find("<->host"), std::string::npos)
        << r.method << " " << r.pair << ": " << r.gpu_pair;
  }
  // The real host<->GPU run is named so.
  const auto h = example_run("h200x2-host.json");
  const auto hc = compare_runs(h, "a.json", h, "b.json", {});
  ASSERT_FALSE(hc.rows.empty());
  EXPECT_EQ(hc.rows[0].gpu_pair, "host0:0000:00:06.0<->host");
}

// Two ranks on one GPU against two GPUs: another node shape, refused (it was compared, and an
// all-reduce over one GPU's sockets read as a 99 % regression).
TEST(Compare, RunsOnAnotherNumberOfGpusAreRefused) {
  const auto one = load_run_file(run_fixture_path("h200x1-shared-serial.json"));
  const auto two = load_run_file(run_fixture_path("h200x2/default.json"));
  try {
    compare_runs(two, "a.json", one, "b.json", {});
    FAIL() << "compared 2 GPUs with 1";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("a.json drives 2 GPUs, b.json drives 1"),
              std::string::npos)
        << e.what();
  }
}

// Schema 1 recorded no type/op for its all-reduce (float/sum, as every later default): the same
// case in an older and a newer file is compared, not listed as only in A and only in B.
TEST(Compare, ASchema1AllReduceMeetsItsFloatSumCase) {
  const auto a = load_run_file(run_fixture_path("h200x2/default.json"));
  const auto b = example_run("h200x2-default.json");
  ASSERT_EQ(a.schema_version, 1);
  const auto c = compare_runs(a, "a.json", b, "b.json", {});
  int allreduce = 0;
  for (const auto& r : c.rows) allreduce += r.method == "nccl-allreduce float/sum";
  EXPECT_EQ(allreduce, 6) << "1M to 1G";
  for (const auto& s : c.only_in_a)
    EXPECT_EQ(s.label.find("nccl-allreduce"), std::string::npos) << s.label;
  for (const auto& s : c.only_in_b)
    EXPECT_EQ(s.label.find("nccl-allreduce"), std::string::npos) << s.label;
}

// A median and its range at one precision: "0.67 [0.7-0.7]" put the median outside its range.
TEST(Compare, AMedianAndItsRangeShareOnePrecision) {
  auto a = load_run_file(run_fixture_path("h200x2/default.json"));
  const auto c = compare_runs(a, "a.json", a, "b.json", {});
  const std::string text = render_comparison(c, "a.json", "b.json", {});
  EXPECT_EQ(text.find(" [0.7-0.7]"), std::string::npos);
  bool latency = false;
  for (const auto& r : c.rows) latency |= r.latency_method;
  EXPECT_TRUE(latency);
}

TEST(Compare, TwoRanksOnOneGpuDropNoRow) {
  const auto a = load_run_file(run_fixture_path("h200x1-shared-serial.json"));
  const auto c = compare_runs(a, "a.json", a, "b.json", {});
  EXPECT_EQ(static_cast<int>(c.rows.size()), measured(a)) << "every measured result compared";
  std::size_t listed =
      c.rows.size() + c.only_in_a.size() + c.only_in_b.size() + c.in_neither.size();
  EXPECT_EQ(listed, a.results.size()) << "the rest listed, none dropped";
}

TEST(Compare, RowsMissingOnOneSideAreListed) {
  const auto a = load_run_file(run_fixture_path("h200x2/default.json"));
  auto b = a;
  b.results.erase(b.results.begin());            // ce-write 0->1 1M absent from B
  b.results[0].status = ResultStatus::kTimeout;  // ce-write 0->1 4M timed out in B
  // B's configuration asked for both (an audit: a complete B lacking a case it asked for read
  // "B did not ask for it", exit 0): both are lost.
  const auto c = compare_runs(a, "a.json", b, "b.json", {});
  EXPECT_TRUE(c.only_in_a.empty());
  ASSERT_EQ(c.lost_in_b.size(), 2u);
  EXPECT_NE(c.lost_in_b[0].label.find("(A: ok, B: absent)"), std::string::npos)
      << c.lost_in_b[0].label;
  EXPECT_NE(c.lost_in_b[1].label.find("(A: ok, B: timeout)"), std::string::npos)
      << c.lost_in_b[1].label;
  // Run with -b 4M, B never asked for 1 MiB: only in A, listed and not failed.
  b.config["sizes"] = {4u << 20, 16u << 20, 64u << 20, 256u << 20, 1u << 30};
  b.results.erase(std::remove_if(b.results.begin(), b.results.end(),
                                 [](const Result& r) { return r.bytes == (1u << 20); }),
                  b.results.end());
  const auto smaller = compare_runs(a, "a.json", b, "b.json", {});
  EXPECT_EQ(smaller.lost_in_b.size(), 1u) << "the 4M timeout";
  EXPECT_FALSE(smaller.only_in_a.empty());
  for (const auto& u : smaller.only_in_a) EXPECT_EQ(u.bytes, 1u << 20) << u.label;
  const auto text = render_comparison(smaller, "a.json", "b.json", {});
  EXPECT_NE(text.find("Only in A"), std::string::npos);
  EXPECT_NE(text.find("Lost in B"), std::string::npos);
}

// From an audit: a candidate that failed, its ce-write cases all errors, compared "0 regressions"
// and exit 0 under every --fail-on but none, the losses listed at the bottom and "What differs"
// saying "nothing recorded"; the CSV left them out. A case B asked for and did not measure fails
// the comparison as a regression does; one B never asked for is listed, not failed.
TEST(Compare, ACandidateThatLostCasesFailsAndSaysSo) {
  const auto a = load_run_file(run_fixture_path("h200x2/default.json"));
  auto b = a;
  int lost = 0;
  for (auto& r : b.results) {
    if (r.method != "ce-write") continue;
    r.status = ResultStatus::kError;
    r.reason = "cudaMemcpyPeerAsync: an illegal memory access";
    ++lost;
  }
  b.status = "failed";
  b.errors = {"rank 1: cudaErrorIllegalAddress"};
  CompareOptions o;
  const auto c = compare_runs(a, "a.json", b, "b.json", o);
  EXPECT_EQ(c.regressions, 0);
  EXPECT_EQ(static_cast<int>(c.lost_in_b.size()), lost);
  EXPECT_EQ(comparison_exit_code(c, o), kExitFlagged);
  o.fail_on = "any";
  EXPECT_EQ(comparison_exit_code(c, o), kExitFlagged);
  o.fail_on = "none";
  EXPECT_EQ(comparison_exit_code(c, o), kExitOk);
  EXPECT_NE(std::find(c.differences.begin(), c.differences.end(), "run status: complete -> failed"),
            c.differences.end());
  EXPECT_NE(std::find(c.differences.begin(), c.differences.end(),
                      "run errors: (none) -> 1 (rank 1: cudaErrorIllegalAddress)"),
            c.differences.end());
  const auto text = render_comparison(c, "a.json", "b.json", {});
  EXPECT_NE(text.find("; " + std::to_string(lost) + " measured in A and lost in B"),
            std::string::npos)
      << text.substr(0, 400);
  CompareOptions csv;
  csv.format = ReportFormat::kCsv;
  const auto rows = render_comparison(c, "a.json", "b.json", csv);
  EXPECT_NE(rows.find(",lost-in-b,ok,error,"), std::string::npos);

  // B killed after its copies (no not-run records, in_progress set): the rest is lost, not "B
  // did not ask for it".
  auto killed = a;
  killed.results.erase(std::remove_if(killed.results.begin(), killed.results.end(),
                                      [](const Result& r) { return r.method.rfind("ce-", 0); }),
                       killed.results.end());
  killed.status = "incomplete";
  killed.in_progress = {{"method", "sm-write"}};
  const auto k = compare_runs(a, "a.json", killed, "b.json", {});
  EXPECT_TRUE(k.only_in_a.empty());
  EXPECT_EQ(k.lost_in_b.size() + k.rows.size(), a.results.size());
  EXPECT_EQ(comparison_exit_code(k, {}), kExitFlagged);
  const auto history = build_history({a, a, killed}, {"a.json", "a2.json", "b.json"}, {});
  EXPECT_EQ(history.exit_code, kExitFlagged);
  EXPECT_NE(render_history(history, {}, {})
                .find(std::to_string(k.lost_in_b.size()) + " cases of run 1 lost in later runs"),
            std::string::npos);
  // The CSV keeps a row per lost case, marked with run 3 and both statuses (it had none).
  CompareOptions history_csv;
  history_csv.format = ReportFormat::kCsv;
  const auto history_rows = render_history(history, history_csv, {});
  std::size_t lost_rows = 0;
  for (auto at = history_rows.find(",lost,ok,absent,"); at != std::string::npos;
       at = history_rows.find(",lost,ok,absent,", at + 1))
    ++lost_rows;
  EXPECT_EQ(lost_rows, k.lost_in_b.size());
  EXPECT_NE(history_rows.find(",3,b.json,,,,,lost,"), std::string::npos) << history_rows;
  EXPECT_NE(render_history(history, {}, {}).find("LOST"), std::string::npos);

  auto subset = a;  // B asked for sm-write only: nothing lost, the rest listed
  subset.config["methods"] = {"sm-write"};
  subset.results.erase(std::remove_if(subset.results.begin(), subset.results.end(),
                                      [](const Result& r) { return r.method != "sm-write"; }),
                       subset.results.end());
  const auto s = compare_runs(a, "a.json", subset, "b.json", {});
  EXPECT_TRUE(s.lost_in_b.empty());
  EXPECT_FALSE(s.only_in_a.empty());
  EXPECT_EQ(comparison_exit_code(s, {}), kExitOk);
  EXPECT_NE(render_comparison(s, "a.json", "b.json", {}).find("that B did not ask for"),
            std::string::npos);
  // The history keeps run 1's figure of a case the later runs did not ask for, and says so.
  const auto narrowed = build_history({a, subset, subset}, {"a.json", "b.json", "c.json"}, {});
  const auto ce = std::find_if(narrowed.rows.begin(), narrowed.rows.end(),
                               [](const HistoryRow& r) { return r.method == "ce-write"; });
  ASSERT_NE(ce, narrowed.rows.end());
  EXPECT_TRUE(ce->cells[0].present);
  EXPECT_FALSE(ce->cells[1].present);
  EXPECT_EQ(ce->cells[1].change, "not asked");
  EXPECT_NE(render_history(narrowed, {}, {}).find("not asked"), std::string::npos);
}

TEST(Compare, WrongDataInTheCandidateFailsWhateverItsFigure) {
  const auto a = test::clean_h200_pair();
  auto b = a;
  b.results.front().wrong = 1;  // same figure, one wrong element
  const auto c = compare_runs(a, "a.json", b, "b.json", {});
  EXPECT_EQ(c.data_errors, 1);
  EXPECT_EQ(comparison_exit_code(c, {}), kExitFlagged);
  const auto text = render_comparison(c, "a.json", "b.json", {});
  EXPECT_NE(text.find("1 case where B delivered wrong data"), std::string::npos) << text;
  EXPECT_NE(text.find("DATA-ERRORS"), std::string::npos);
  auto clean = a;
  clean.results.front().wrong = 1;  // wrong in the baseline only: B is judged on its own data
  EXPECT_EQ(compare_runs(clean, "a.json", a, "b.json", {}).data_errors, 0);
}

TEST(Verdicts, RoundsNameThePairsThatRanAtOnce) {
  auto spec = test::NodeSpec{};
  spec.gpus = 4;
  auto d = test::make_doc(spec);
  const std::uint64_t G = 1ull << 30;
  int round = 0;
  for (auto r : {std::vector<std::pair<int, int>>{{0, 1}, {2, 3}}, {{0, 2}, {1, 3}}}) {
    for (auto [a, b] : r) {
      auto res = test::bw_result("ce-write", a, b, G, a == 0 && b == 1 ? 150 : 395);
      res.round = round;
      res.concurrent_pairs = 2;
      d.results.push_back(res);
    }
    ++round;
  }
  const auto vs = compute_verdicts(d, {});
  for (const auto& v : vs) {
    if (v.src == 0 && v.dst == 1) {
      EXPECT_EQ(v.concurrent_pairs, (std::vector<std::string>{"2->3"}));
      EXPECT_NE(v.observed.find("ran at once with 2->3"), std::string::npos) << v.observed;
      ASSERT_FALSE(v.flags.empty());
      EXPECT_EQ(v.flags[0].evidence["ran_at_once_with"], nlohmann::json::array({"2->3"}));
    }
    if (v.src == 1 && v.dst == 3) EXPECT_EQ(v.concurrent_pairs, (std::vector<std::string>{"0->2"}));
  }
}

TEST(Compare, RanksThatSwappedGpusStillMatchTheirBidirectionalCases) {
  const auto a = test::clean_h200_pair();
  auto b = a;
  ASSERT_EQ(b.system.ranks.size(), 2u);
  std::swap(b.system.ranks[0].gpu, b.system.ranks[1].gpu);  // rank 0 now on the other card
  const auto c = compare_runs(a, "a.json", b, "b.json", {});
  EXPECT_TRUE(c.lost_in_b.empty());
  EXPECT_TRUE(c.only_in_b.empty());
  const bool bidir_matched = std::any_of(c.rows.begin(), c.rows.end(), [](const CompareRow& r) {
    return r.method == "ce-bidir" && r.gpu_pair.find("<->") != std::string::npos;
  });
  EXPECT_TRUE(bidir_matched);
  const auto mapping = std::find_if(
      c.differences.begin(), c.differences.end(),
      [](const std::string& d) { return d.rfind("GPU of each rank (host/PCI)", 0) == 0; });
  EXPECT_NE(mapping, c.differences.end());
  auto no_uuids = b;  // a file without UUIDs still shows the mapping change
  for (auto& r : no_uuids.system.ranks) r.gpu.uuid.clear();
  const auto u = compare_runs(a, "a.json", no_uuids, "b.json", {});
  EXPECT_EQ(std::count_if(u.differences.begin(), u.differences.end(),
                          [](const std::string& d) { return d.rfind("GPU of each rank", 0) == 0; }),
            1);
  auto shm = a;  // NCCL's transport changed: named, per pair
  for (auto& p : shm.pairs) {
    if (p.nccl) p.nccl->details = {"SHM/direct/direct"};
  }
  const auto t = compare_runs(a, "a.json", shm, "b.json", {});
  EXPECT_NE(std::find(t.differences.begin(), t.differences.end(),
                      "NCCL transport 0->1: P2P/CUMEM -> SHM/direct/direct"),
            t.differences.end());
  auto other_cards = a;
  for (auto& r : other_cards.system.ranks) r.gpu.uuid += "-replaced";
  const auto o = compare_runs(a, "a.json", other_cards, "b.json", {});
  EXPECT_NE(std::find(o.differences.begin(), o.differences.end(),
                      "GPU cards: 2 of 2 are other cards (UUIDs differ)"),
            o.differences.end());
}

// From an audit: compare read cycle 1 alone, so a B whose burn-in delivered wrong data in cycle 3
// read "same", exit 0. B's burn-in findings fail the comparison, listed in their own section.
TEST(Compare, BurnInFindingsInBFailTheComparison) {
  const auto a = test::clean_h200_pair();
  auto b = a;
  BurnIn burn;
  for (int c = 1; c <= 4; ++c) burn.cycles.push_back({c, 10.0 * c, 10.0, 0, 0, {}});
  BurnInSeries s;
  s.method = "ce-write";
  s.src = 0;
  s.dst = 1;
  s.bytes = 1ull << 30;
  s.values = {396.0, 396.0, 396.0, 396.0};
  s.error_cycles = {3};
  burn.series.push_back(s);
  burn.cycles_done = 4;
  burn.cycles_requested = 4;
  burn.stopped_by = "cycles";
  b.burn_in = burn;
  CompareOptions o;
  auto c = compare_runs(a, "a.json", b, "b.json", o);
  ASSERT_EQ(c.burn_in_in_b.size(), 1u);
  EXPECT_EQ(c.burn_in_in_b[0].rfind("burn-in-errors: ce-write from rank 0", 0), 0u)
      << c.burn_in_in_b[0];
  EXPECT_EQ(c.regressions, 0);
  EXPECT_EQ(comparison_exit_code(c, o), kExitFlagged);
  const std::string text = render_comparison(c, "a.json", "b.json", o);
  EXPECT_NE(text.find("1 burn-in finding in B (Burn-in in B)"), std::string::npos) << text;
  EXPECT_NE(text.find("Burn-in in B (fails the comparison):"), std::string::npos) << text;
  EXPECT_NE(text.find("-> 4 whole cycles, stopped by cycles"), std::string::npos) << text;
  // A clean burn-in in B fails nothing.
  b.burn_in->series[0].error_cycles.clear();
  c = compare_runs(a, "a.json", b, "b.json", o);
  EXPECT_TRUE(c.burn_in_in_b.empty());
  EXPECT_EQ(comparison_exit_code(c, o), kExitOk);
}

// The lines of a text section, from its title to the blank line after it.
std::vector<std::string> section_lines(const std::string& text, const std::string& title) {
  std::vector<std::string> out;
  auto at = text.find(title);
  if (at == std::string::npos) return out;
  at = text.find('\n', at) + 1;
  while (at < text.size() && text[at] != '\n') {
    const auto end = text.find('\n', at);
    out.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

// Issue 39: "Only in A" listed 68 lines, one per case. Cases are grouped by method and pair, with
// their sizes as a range.
TEST(Compare, CasesInOneRunAloneAreGroupedByMethodAndPairWithTheirSizes) {
  const auto a = example_run("h200x2-default.json");
  const auto b = load_run_file(run_fixture_path("h200x2/default.json"));
  const auto c = compare_runs(a, "a.json", b, "b.json", {});
  ASSERT_EQ(c.only_in_a.size(), 36u) << "six collectives B did not run, at six sizes";
  const auto text = render_comparison(c, "a.json", "b.json", {});
  const auto lines = section_lines(text, "Only in A");
  EXPECT_EQ(lines.size(), 6u) << text.substr(text.find("Only in A"));
  EXPECT_NE(std::find(lines.begin(), lines.end(),
                      "  nccl-allgather float all ranks: 1 MiB-1 GiB (6 sizes) (A: ok, B: absent)"),
            lines.end());
  // Pairs with the same sizes share a line: B swept from 16 MiB.
  auto from16 = b;
  from16.config["sizes"] = {16u << 20, 64u << 20, 256u << 20, 1u << 30};
  from16.results.erase(
      std::remove_if(from16.results.begin(), from16.results.end(),
                     [](const Result& r) { return r.bytes > 8 && r.bytes < (16u << 20); }),
      from16.results.end());
  const auto d = compare_runs(b, "a.json", from16, "b.json", {});
  const auto grouped = section_lines(render_comparison(d, "a.json", "b.json", {}), "Only in A");
  EXPECT_NE(std::find(grouped.begin(), grouped.end(),
                      "  ce-write 0->1, 1->0: 1 MiB-4 MiB (2 sizes) (A: ok, B: absent)"),
            grouped.end())
      << grouped.size();
  EXPECT_LE(grouped.size(), d.only_in_a.size() / 2);
}

// The tick labels of a chart's y axis ("0.80", "1.20"), as numbers.
std::vector<double> y_ticks(const std::string& svg) {
  std::vector<double> out;
  const std::regex re("text-anchor=\"end\" class=\"tick\">(-?[0-9.]+)</text>");
  for (std::sregex_iterator it(svg.begin(), svg.end(), re), end; it != end; ++it)
    out.push_back(std::stod((*it)[1]));
  return out;
}

// Issue 39: for two near-identical runs the B/A chart scaled itself to 0.94-1.04, and 3 % of noise
// looked like a cliff. It shades compare's threshold as the noise band and always reaches
// kBandMargin past it.
TEST(Compare, TheChangeChartShowsTheNoiseBandAndDoesNotZoomIntoNoise) {
  const auto a = example_run("h200x2-default.json");
  const auto b = load_run_file(run_fixture_path("h200x2/default.json"));
  for (const double threshold : {0.05, 0.10}) {
    CompareOptions o;
    o.format = ReportFormat::kHtml;
    o.threshold = threshold;
    const auto page = render_comparison(compare_runs(a, "a.json", b, "b.json", o), "a", "b", o);
    const auto chart = page.substr(page.find("<svg class=\"chart\""));
    const auto ticks = y_ticks(chart.substr(0, chart.find("</svg>")));
    ASSERT_FALSE(ticks.empty());
    EXPECT_LE(*std::min_element(ticks.begin(), ticks.end()), 1 - threshold - 0.1 + 1e-9);
    EXPECT_GE(*std::max_element(ticks.begin(), ticks.end()), 1 + threshold + 0.1 - 1e-9);
    EXPECT_NE(chart.find("class=\"band\""), std::string::npos) << "the band is drawn";
    EXPECT_NE(chart.find(noise_band_label(threshold)), std::string::npos) << "and named";
  }
}

// Issue 39: a three-run history drew 18 series, their colours reused, and its table ran off the
// page. A chart carries at most eight, each its own colour; the methods inside the noise band
// are named under it, not drawn.
TEST(Compare, AHistoryChartCarriesAtMostEightSeriesInDistinctColours) {
  const auto h = build_history(
      {example_run("h200x2-default.json"), load_run_file(run_fixture_path("h200x2/default.json")),
       example_run("h200x2-nccl-shm.json")},
      {"a.json", "b.json", "c.json"}, {});
  std::set<std::string> methods;
  for (const auto& r : h.rows) methods.insert(r.method);
  ASSERT_GT(methods.size(), 8u);
  CompareOptions o;
  o.format = ReportFormat::kHtml;
  const auto page = render_history(h, o, {});
  const auto charts =
      page.substr(page.find("<figure"), page.rfind("</figure>") - page.find("<figure"));
  std::size_t svgs = 0;
  for (auto at = charts.find("<svg class=\"chart\""); at != std::string::npos;
       at = charts.find("<svg class=\"chart\"", at + 1), ++svgs) {
    const auto svg = charts.substr(at, charts.find("</svg>", at) - at);
    std::vector<std::string> colours;
    const std::regex line("<polyline fill=\"none\" stroke=\"(#[0-9A-Fa-f]+)\"");
    for (std::sregex_iterator it(svg.begin(), svg.end(), line), end; it != end; ++it)
      if ((*it)[1] != "#666") colours.push_back((*it)[1]);
    EXPECT_LE(colours.size(), svg::kMaxSeries);
    EXPECT_EQ(std::set<std::string>(colours.begin(), colours.end()).size(), colours.size())
        << "no colour twice in one chart";
  }
  EXPECT_GE(svgs, 1u);
  for (const auto& m : methods)
    EXPECT_NE(charts.find(m), std::string::npos) << m << ": drawn, or named as left out";
  EXPECT_NE(charts.find("Not drawn, inside the band at every point"), std::string::npos);
}

}  // namespace
}  // namespace peerbench
