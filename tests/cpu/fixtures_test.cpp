// Real runs from the device machine (tests/fixtures/README.md says which): they read back under
// the schema, and their verdicts are what the situation calls for.
#include <gtest/gtest.h>

#include <functional>

#include "core/base/errors.h"
#include "core/judge/verdict.h"
#include "core/model/method_catalog.h"
#include "core/model/results_validate.h"
#include "core/model/schema.h"
#include "core/present/history.h"
#include "core/present/report.h"
#include "core/present/report_parts.h"
#include "test_fixtures.h"
#include "test_text.h"
#include "test_verdicts.h"

namespace peerbench {
namespace {

using test::flag_codes_of;
using test::method_verdict_of;
using test::run_fixture_path;
using test::verdict_of;

// One GPU whose two ranks pose as hosts hostA and hostB: NCCL goes over NET/Socket, and the
// report once flagged nccl-net-socket, blaming a fabric that does not exist. Both ranks report
// the GPU's UUID, which no two GPUs share: the verdicts say "not a link" and accuse nothing.
TEST(Fixtures, SimulatedTwoHostsOnOneGpuAreNotALink) {
  const auto d = load_run_file(run_fixture_path("h200x1-shared-simulated-two-hosts.json"));
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
  EXPECT_EQ(d.system.ranks[0].gpu.uuid, d.system.ranks[1].gpu.uuid);
  const auto vs = compute_verdicts(d, {});
  ASSERT_EQ(vs.size(), 3u);
  for (const auto& v : vs) {
    EXPECT_EQ(v.link, v.src < 0 ? "all" : "X");
    EXPECT_EQ(v.verdict, "not-a-link") << pair_name(v.src, v.dst);
    EXPECT_TRUE(v.flags.empty()) << v.flags.front().code << ": " << v.flags.front().message;
  }
}

TEST(Fixtures, SharedGpuRunReadsAndReports) {
  const auto d = load_run_file(run_fixture_path("h200x1-shared-serial.json"));
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
  EXPECT_NE(text.find("NCCL refuses duplicate GPUs"), std::string::npos)
      << "the skip reason reaches the report";
}

}  // namespace
}  // namespace peerbench

// ---- The real 2 x H200 runs (schema 1) and files derived from them (derive.py says how).
namespace peerbench {
namespace {

std::string h200x2(const std::string& name) {
  return std::string(PEERBENCH_SOURCE_DIR) + "/tests/fixtures/runs/h200x2/" + name;
}

std::string render(const RunDocument& d, const std::vector<PairVerdict>& vs, ReportFormat f) {
  ReportInput in;
  in.path = "run.json";
  in.doc = &d;
  in.verdicts = vs;
  in.expectations_source = "built-in defaults";
  return make_reporter(f)->render({in}, {});
}

TEST(RealRuns, EveryVersionOneRunReadsAndTheCleanOnesPass) {
  for (const char* name : {"default.json", "nccl-large.json", "rounds.json", "serial.json",
                           "nccl-small-graph.json", "p2p-disabled.json", "p2p-shm-disabled.json"}) {
    const auto d = load_run_file(h200x2(name));
    EXPECT_EQ(d.schema_version, 1) << name;
    EXPECT_FALSE(compute_verdicts(d, {}).empty()) << name;
  }
  for (const char* name : {"default.json", "nccl-large.json", "rounds.json", "serial.json"}) {
    const auto vs = compute_verdicts(load_run_file(h200x2(name)), {});
    EXPECT_EQ(verdict_exit_code(vs, "all"), kExitOk)
        << name << ": " << verdict_headline(count_verdicts(vs));
    for (const auto& v : vs) EXPECT_EQ(v.verdict, "pass") << name << " " << pair_name(v.src, v.dst);
  }
}

// From an audit: "source: peerbench-h200x2" alone did not say the known-good figures come from
// runs of this very kind (1.00 on the run itself): the source's citation is printed beside them.
// From an audit: "(4 ch)", "no GDRDMA" and "NET/Socket/0" stood in reports that no term
// explained.
TEST(RealRuns, NcclWordsAreTerms) {
  const auto d = load_run_file(h200x2("p2p-disabled.json"));
  const auto text = test::flat(render(d, compute_verdicts(d, {}), ReportFormat::kText));
  for (const char* term : {" N ch: ", " GDRDMA: ", "SHM/direct/direct: ", "NET/Socket over TCP"})
    EXPECT_NE(text.find(term), std::string::npos) << term;
}

TEST(RealRuns, KnownGoodSourcesAreCited) {
  const auto d = load_run_file(h200x2("default.json"));
  const auto vs = compute_verdicts(d, {});
  for (const auto f : {ReportFormat::kText, ReportFormat::kMarkdown, ReportFormat::kHtml}) {
    const auto text = render(d, vs, f);
    EXPECT_NE(text.find("source peerbench-h200x2: this repository: results/examples/"),
              std::string::npos)
        << text.substr(0, 2000);
  }
}

TEST(RealRuns, CutShortRunIsIncompleteNeverPass) {
  const auto d = load_run_file(h200x2("derived/cut-short.json"));
  const auto vs = compute_verdicts(d, {});
  EXPECT_EQ(verdict_of(vs, 0, 1).verdict, "incomplete");
  EXPECT_EQ(method_verdict_of(verdict_of(vs, 0, 1), "ce-write").state, "pass");
  EXPECT_EQ(method_verdict_of(verdict_of(vs, 1, 0), "ce-write").state, "incomplete");
  EXPECT_EQ(method_verdict_of(verdict_of(vs, 1, 0), "staged").reason,
            "not measured: the run was cut short before it finished");
  EXPECT_EQ(method_verdict_of(verdict_of(vs, -1, -1), "nccl-allreduce").state, "incomplete");
  EXPECT_EQ(verdict_exit_code(vs, "all"), kExitFlagged);
  EXPECT_EQ(verdict_exit_code(vs, "incomplete"), kExitFlagged);
  EXPECT_EQ(verdict_exit_code(vs, "below-link"), kExitOk) << "--fail-on chooses";
  EXPECT_EQ(verdict_exit_code(vs, "all"), kExitFlagged);
  const auto text = test::flat(render(d, vs, ReportFormat::kText));
  EXPECT_EQ(text.find("all 3 pass"), std::string::npos);
  EXPECT_NE(text.find("FAIL: the run has no end recorded: it stopped while running "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(" (killed, or still running); 3 incomplete of 3 verdicts"), std::string::npos)
      << text;
}

TEST(RealRuns, StagedNeverRunIsListedAsIncomplete) {
  const auto vs = compute_verdicts(load_run_file(h200x2("derived/staged-missing.json")), {});
  ASSERT_EQ(vs.size(), 2u);
  for (const auto& v : vs) {
    EXPECT_EQ(v.verdict, "incomplete");
    EXPECT_EQ(method_verdict_of(v, "ce-write").state, "pass");
    EXPECT_EQ(method_verdict_of(v, "staged").state, "incomplete");
  }
}

// Under 256 MiB the link-rate rule says nothing; a known-good figure at the very size does (its
// curve starts at 64 MiB): the all-reduce at 0.10 of it is below-expected, its message naming
// NCCL's SHM fallback as the suspect. A pair's NCCL case on SHM is flagged nccl-shm and not held
// to the NVLink figure as well.
TEST(RealRuns, SizesBelowTheMinimumAreJudgedOnlyByAKnownGoodFigure) {
  const auto d = load_run_file(h200x2("p2p-disabled.json"));  // 1M-64M, NCCL on SHM
  auto vs = compute_verdicts(d, {});
  const auto& v = verdict_of(vs, 0, 1);
  EXPECT_EQ(flag_codes_of(v), (std::vector<std::string>{"nccl-shm"})) << "no below-link at 64 MiB";
  EXPECT_EQ(method_verdict_of(v, "nccl-sendrecv-bidir").state, "not-judged");
  EXPECT_EQ(method_verdict_of(v, "nccl-sendrecv-bidir").reason,
            "not judged: largest size 64 MiB < 256 MiB; its known-good figure is of NV18, and "
            "NCCL went through host memory (SHM) between these ranks: see the pair's transport "
            "flag")
      << "the road it took, not the size alone (an audit)";
  EXPECT_EQ(method_verdict_of(v, "staged").reason, "not judged: largest size 64 MiB < 256 MiB");
  EXPECT_EQ(method_verdict_of(v, "ce-write").state, "pass")
      << "judged at 64 MiB by its known-good figure";
  EXPECT_EQ(method_verdict_of(v, "ce-latency").state, "pass")
      << "latency methods have their own bars";
  const auto& all = verdict_of(vs, -1, -1);
  EXPECT_EQ(all.verdict, "flagged");
  ASSERT_EQ(flag_codes_of(all), (std::vector<std::string>{"below-expected"}));
  EXPECT_NE(all.flags[0].message.find("busbw GB/s at 64 MiB over all ranks"), std::string::npos)
      << all.flags[0].message;
  EXPECT_NE(all.flags[0].message.find("NCCL used SHM between some of the ranks"),
            std::string::npos);
  // The flags stand right under the verdict line of the HTML and Markdown reports.
  ReportInput in;
  in.path = "p2p-disabled.json";
  in.doc = &d;
  in.verdicts = vs;
  const std::string md = make_reporter(ReportFormat::kMarkdown)->render({in}, {});
  const auto verdict_line = md.find(
      "**FAIL: 3 flagged of 3 verdicts (3 flags)**\n\n- 0-\\>1 (NV18) GPU 0 0000:00:06.0 s/n ");
  EXPECT_NE(verdict_line, std::string::npos) << md.substr(0, 1500);
  EXPECT_LT(md.find("FLAGGED nccl-shm: NCCL used shared memory"), md.find("\n## "))
      << "the flag is said under the verdict, before any section";
  // And the names it uses are explained at the end: each method, busbw, NCCL's transports.
  EXPECT_NE(md.find("- busbw: nccl-tests' bus bandwidth"), std::string::npos);
  EXPECT_NE(md.find("- ce-write: copy engine on the source GPU"), std::string::npos);
  const std::string html = make_reporter(ReportFormat::kHtml)->render({in}, {});
  EXPECT_NE(html.find("<ul class=\"digest\"><li>0-&gt;1 (NV18) GPU 0 0000:00:06.0"),
            std::string::npos);
  EXPECT_LT(html.find("FLAGGED nccl-shm: NCCL used shared memory"), html.find("<h2>"));
  Expectations off;
  off.expected_fraction = 0;  // no known-good bar: not judged under 256 MiB, as before
  EXPECT_EQ(verdict_of(compute_verdicts(d, off), -1, -1).verdict, "not-judged");
  Expectations e;
  e.judge_min_bytes = 64ull << 20;  // a site that judges from 64 MiB
  vs = compute_verdicts(d, e);
  EXPECT_EQ(method_verdict_of(verdict_of(vs, 0, 1), "nccl-sendrecv-bidir").state, "flagged");
}

// The real run's start gate timed out in every sample (a schema-1 file kept such samples), so
// its times include launch gaps and are not judged; with the gate's timeouts taken away, as a
// run of today's peerbench has them, the same times are judged against the latency bars.
TEST(RealRuns, LatencySizeRunIsJudgedAgainstLatencyBars) {
  auto d = load_run_file(h200x2("nccl-small-graph.json"));  // -b 8 -e 8
  auto vs = compute_verdicts(d, {});
  for (const auto& v : vs) {
    EXPECT_EQ(v.verdict, "not-judged") << pair_name(v.src, v.dst);
    for (const auto& m : v.methods)
      EXPECT_NE(m.reason.find("start gate timed out in 5 of 5 samples"), std::string::npos)
          << m.reason;
  }
  // Nothing judged passes by default; --fail-on all,not-judged makes such a run fail.
  EXPECT_EQ(verdict_exit_code(vs, "all"), kExitOk);
  EXPECT_EQ(verdict_exit_code(vs, "all,not-judged"), kExitFlagged);
  EXPECT_EQ(count_failing(vs, "not-judged"), 4) << "four methods, none judged";
  for (auto& r : d.results) r.gate_timeouts = 0;
  vs = compute_verdicts(d, {});
  EXPECT_EQ(verdict_exit_code(vs, "all,not-judged"), kExitOk);
  for (const auto& v : vs) {
    EXPECT_EQ(v.verdict, "pass") << pair_name(v.src, v.dst);
    for (const auto& m : v.methods) EXPECT_EQ(m.unit, "us") << m.method;
  }
  Expectations e;
  e.small_message_us["nvlink"] = 5.0;  // tighter than the 5.3-6.0 us measured
  vs = compute_verdicts(d, e);
  EXPECT_EQ(flag_codes_of(verdict_of(vs, 0, 1)),
            (std::vector<std::string>{"high-latency", "high-latency"}));
}

// A run whose verdicts all pass exits 1 under --fail-on all,not-judged; the report said only
// "Verdict: all pass" above that exit code. It now names what --fail-on counted.
TEST(RealRuns, ReportSaysWhatFailOnCounted) {
  const auto d = load_run_file(h200x2("nccl-small-graph.json"));
  const auto vs = compute_verdicts(d, {});
  EXPECT_EQ(failing_line(d, vs, "all"), "") << "nothing fails: no line";
  const auto why = failing_line(d, vs, "all,not-judged");
  EXPECT_EQ(why.rfind("--fail-on all,not-judged counts ", 0), 0u) << why;
  EXPECT_EQ(run_failing_items(d, vs, "all,not-judged").size(), 4u) << why;
  EXPECT_NE(why.find(" 0->1 not-judged"), std::string::npos) << why;
  EXPECT_EQ(static_cast<int>(run_failing_items(d, vs, "all,not-judged").size()),
            run_failing(d, vs, "all,not-judged"));
  for (const auto f : {ReportFormat::kText, ReportFormat::kMarkdown, ReportFormat::kHtml}) {
    ReportInput in;
    in.path = "run.json";
    in.doc = &d;
    in.verdicts = vs;
    in.failing = run_failing(d, vs, "all,not-judged");
    in.failing_why = why;
    const auto out = test::flat(make_reporter(f)->render({in}, {}));
    // Under the verdict: no pair is flagged, so the line says why the exit code is 1.
    const auto exit_line = out.find("exit 1: --fail-on all,not-judged counts");
    EXPECT_NE(exit_line, std::string::npos) << static_cast<int>(f);
    EXPECT_NE(out.find("FAIL: 3 not judged of 3 verdicts"), std::string::npos)
        << out.substr(0, 300);
    if (f == ReportFormat::kHtml) {
      EXPECT_EQ(out.find("class=\"pass\""), std::string::npos) << "exit 1 is not green";
      EXPECT_LT(exit_line, out.find("<h2>"));
    }
  }
}

// A burn-in's hundreds of counted items stay one line: six named, the rest counted.
TEST(RealRuns, FailingLineNamesSixAndCountsTheRest) {
  const auto d = load_run_file(h200x2("p2p-disabled.json"));
  auto vs = compute_verdicts(d, {});
  ASSERT_FALSE(vs.empty());
  const auto one = vs.front();
  ASSERT_FALSE(one.flags.empty());
  // One item repeated is named once with how many times (a review).
  auto repeated = vs;
  for (int i = 0; i < 9; ++i) repeated.push_back(one);
  const auto once = failing_line(d, repeated, "all");
  EXPECT_NE(once.find(failing_items({one}, "all").front() + " (10 times)"), std::string::npos)
      << once;
  // Distinct items: six named, the rest counted.
  for (int i = 0; i < 9; ++i) {
    auto other = one;
    other.flags.front().code = "code" + std::to_string(i);
    vs.push_back(other);
  }
  const auto items = failing_items(vs, "all");
  ASSERT_GT(items.size(), 6u);
  const auto line = failing_line(d, vs, "all");
  EXPECT_NE(line.find("; and " + std::to_string(items.size() - 6) + " more"), std::string::npos)
      << line;
  EXPECT_EQ(failing_line(d, vs, "none"), "");
}

// From a review: the real 8-byte run's figures (launch gaps in every sample, not judged) stood
// in the pair table as plain 5.27 and 6.02 us, marked nowhere; a launch-bound figure likewise.
// Each carries its mark, named in the legend only where a figure carries it.
TEST(RealRuns, FiguresOfTheHostsPaceAreMarked) {
  auto d = load_run_file(h200x2("nccl-small-graph.json"));
  std::string text = test::flat(render(d, compute_verdicts(d, {}), ReportFormat::kText));
  EXPECT_NE(text.find(", g start gate timed out (launch gaps in its times)"), std::string::npos);
  EXPECT_NE(text.find("5.27g"), std::string::npos) << text.substr(0, 1200);
  EXPECT_NE(text.find("8 B 5.66g us"), std::string::npos) << text.substr(0, 1200);
  EXPECT_EQ(text.find(", h launch-bound"), std::string::npos) << "no figure is launch-bound";
  const std::string md = render(d, compute_verdicts(d, {}), ReportFormat::kMarkdown);
  EXPECT_NE(md.find(", g start gate timed out"), std::string::npos) << md.substr(0, 1500);
  for (auto& r : d.results) {
    r.gate_timeouts = 0;
    if (r.method == "nccl-sendrecv") r.enqueue = EnqueueInfo{40, 4, true, "the host's pace"};
  }
  text = test::flat(render(d, compute_verdicts(d, {}), ReportFormat::kText));
  EXPECT_EQ(text.find(", g start gate"), std::string::npos);
  EXPECT_NE(text.find(", h launch-bound (the host's enqueue rate)"), std::string::npos);
  EXPECT_NE(text.find("5.27h"), std::string::npos) << text.substr(0, 1200);
  const std::string html = render(d, compute_verdicts(d, {}), ReportFormat::kHtml);
  EXPECT_NE(html.find("not judged: launch-bound"), std::string::npos) << "an uncoloured cell";
}

TEST(RealRuns, SlowedPairIsBelowLinkAsymmetricAndOffNvlink) {
  const auto vs = compute_verdicts(load_run_file(h200x2("derived/slowed-pair.json")), {});
  EXPECT_EQ(verdict_of(vs, 0, 1).verdict, "pass");
  const auto& v = verdict_of(vs, 1, 0);
  // H200 over NV18 has a known-good figure: the bar is 85 % of it (below-expected).
  EXPECT_EQ(flag_codes_of(v),
            (std::vector<std::string>{"below-expected", "asymmetric", "off-nvlink"}));
  EXPECT_NE(v.flags[0].message.find("known-good"), std::string::npos) << v.flags[0].message;
  // With the known-good bar off, the link-rate rule accuses it the same way.
  Expectations no_known;
  no_known.expected_fraction = 0;
  const auto by_link =
      compute_verdicts(load_run_file(h200x2("derived/slowed-pair.json")), no_known);
  EXPECT_EQ(flag_codes_of(verdict_of(by_link, 1, 0)),
            (std::vector<std::string>{"below-link", "asymmetric", "off-nvlink"}));
  EXPECT_NEAR(v.flags[2].evidence["src_nvlink_tx_bytes"].get<double>(),
              0.1 * v.flags[2].evidence["payload_bytes"].get<double>(), 1);
  EXPECT_NE(v.flags[0].message.find("0000:00:07.0"), std::string::npos) << "names the card";
}

TEST(RealRuns, SocketsBetweenHostsAreFlaggedWithTheNetPath) {
  const auto d = load_run_file(h200x2("derived/socket-cross-host.json"));
  ASSERT_TRUE(d.pairs[0].nccl);
  EXPECT_EQ(d.pairs[0].nccl->net_paths, (std::vector<std::string>{"NET/Socket/0"}));
  const auto vs = compute_verdicts(d, {});
  for (int s : {0, 1}) {
    const auto& v = verdict_of(vs, s, 1 - s);
    EXPECT_EQ(v.link, "NET");
    EXPECT_EQ(flag_codes_of(v), (std::vector<std::string>{"nccl-net-socket"}));
    EXPECT_EQ(method_verdict_of(v, "ce-write").state, "not-applicable");
  }
  auto ib = d;
  for (auto& p : ib.pairs) {
    p.nccl->details = {"NET/IB/GDRDMA"};
    p.nccl->net_paths = {"NET/IB/0"};
    p.nccl->gdrdma = true;
  }
  const auto vib = compute_verdicts(ib, {});
  EXPECT_TRUE(verdict_of(vib, 0, 1).flags.empty());
  EXPECT_NE(verdict_of(vib, 0, 1).observed.find("NET/IB/0 GDRDMA"), std::string::npos)
      << verdict_of(vib, 0, 1).observed;
}

TEST(RealRuns, LinkErrorsAndDowntrainedPcieNameTheCard) {
  const auto d = load_run_file(h200x2("derived/link-health-v2.json"));
  EXPECT_EQ(d.schema_version, 2);
  ASSERT_EQ(d.link_health.size(), 2u);
  const auto vs = compute_verdicts(d, {});
  const auto& v = verdict_of(vs, 0, 1);
  EXPECT_EQ(flag_codes_of(v), (std::vector<std::string>{"link-errors", "pcie-downtrained"}));
  EXPECT_NE(v.flags[0].message.find("GPU 0 (0000:00:06.0, serial 1650124000001)"),
            std::string::npos)
      << v.flags[0].message;
  EXPECT_NE(v.flags[0].message.find("link 3 replay +4"), std::string::npos);
  EXPECT_EQ(v.flags[0].message.find("crc_data"), std::string::npos) << "unchanged counters pass";
  EXPECT_NE(v.flags[1].message.find("Gen4 x8"), std::string::npos);
  // In a burn-in the flag names the cycles the counters grew in (it named none; an audit).
  auto burned = d;
  BurnIn b;
  for (int c = 1; c <= 3; ++c) b.cycles.push_back({c, 10.0 * c, 10.0, 0, 0, {}});
  b.cycles[1].counters = {"link 3 replay +4 on GPU 0 (0000:00:06.0) of " + v.cards[0].host};
  // Another host whose name starts with this one's, with the same PCI ids (a review).
  b.cycles[2].counters = {"link 3 replay +4 on GPU 0 (0000:00:06.0) of " + v.cards[0].host + "2"};
  b.cycles_done = 3;
  b.stopped_by = "cycles";
  burned.burn_in = b;
  const auto bvs = compute_verdicts(burned, {});  // kept: find_verdict points into it
  const auto& bv = verdict_of(bvs, 0, 1);
  EXPECT_NE(bv.flags[0].message.find("during the run (in burn-in cycle 2 of 3): link 3 replay +4"),
            std::string::npos)
      << bv.flags[0].message;
  // The GPU's flag stands on both its pairs: the first screen says it once, on the GPU's line.
  ReportInput in;
  in.path = "burned.json";
  in.doc = &burned;
  in.verdicts = bvs;
  const auto digest = report_document({in}, {}).digest;
  EXPECT_EQ(std::count_if(
                digest.begin(), digest.end(),
                [](const std::string& l) { return l.find("link-errors: ") != std::string::npos; }),
            1)
      << join(digest, "\n");
  EXPECT_EQ(digest.front().rfind("GPU 0 0000:00:06.0 s/n ", 0), 0u) << digest.front();
}

TEST(RealRuns, TwoRanksOnOneGpuAreNotALink) {
  const auto d = load_run_file(run_fixture_path("h200x1-shared-serial.json"));
  const auto vs = compute_verdicts(d, {});
  for (const auto& v : vs) {
    if (v.src < 0) continue;
    EXPECT_EQ(v.verdict, "not-a-link") << pair_name(v.src, v.dst);
    EXPECT_EQ(v.link, "X");
  }
  const auto text = render(d, vs, ReportFormat::kText);
  EXPECT_NE(text.find("1x NVIDIA H200"), std::string::npos) << "one GPU, not two";
}

TEST(RealRuns, EveryFormatNamesTheCards) {
  const auto d = load_run_file(h200x2("derived/link-health-v2.json"));
  const auto vs = compute_verdicts(d, {});
  for (auto f :
       {ReportFormat::kText, ReportFormat::kMarkdown, ReportFormat::kHtml, ReportFormat::kCsv}) {
    const auto out = render(d, vs, f);
    for (const char* id :
         {"0000:00:06.0", "0000:00:07.0", "GPU-086026b1-23d7-76a1-6a0b-9e1ec7e7e907",
          "GPU-f48c6743-af38-2db6-5af5-5e9b55c46f62", "1650124000001", "1650124000002"}) {
      EXPECT_NE(out.find(id), std::string::npos) << to_string(f) << " lacks " << id;
    }
  }
  // A schema-1 file has no serials: the GPUs table says so, not a blank.
  const auto v1 = load_run_file(h200x2("default.json"));
  ReportInput in;
  in.path = "v1.json";
  in.doc = &v1;
  in.verdicts = compute_verdicts(v1, {});
  const auto doc = report_document({in}, {});
  const Section* gpus = test::section_of(doc, "GPUs");
  ASSERT_NE(gpus, nullptr);
  EXPECT_EQ(gpus->table.columns.at(3).name, "serial");
  EXPECT_EQ(test::cell_text(gpus->table, 0, 3), "not recorded");
  EXPECT_EQ(test::cell_text(gpus->table, 0, 2), "0000:00:06.0");
}

TEST(RealRuns, HtmlDoesNotColourIncompleteLikePass) {
  const auto d = load_run_file(h200x2("derived/cut-short.json"));
  const auto html = render(d, compute_verdicts(d, {}), ReportFormat::kHtml);
  EXPECT_NE(html.find("<td class=\"incomplete\">INCOMPLETE</td>"), std::string::npos);
  EXPECT_EQ(html.find("class=\"pass\""), std::string::npos) << "nothing here passed";
  const auto na = load_run_file(h200x2("derived/socket-cross-host.json"));
  const auto html2 = render(na, compute_verdicts(na, {}), ReportFormat::kHtml);
  EXPECT_NE(html2.find("<td class=\"neutral\">not-applicable</td>"), std::string::npos);
  EXPECT_NE(html2.find("<td class=\"neutral\">not-judged</td>"), std::string::npos);
}

TEST(RealRuns, ExpectFileWithATypoIsRefusedNamingIt) {
  try {
    load_expectations(h200x2("derived/expect-typo.json"), method_catalog());
    FAIL() << "accepted a misspelt method";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("expect-typo.json"), std::string::npos) << m;
    EXPECT_NE(m.find("unknown method 'nccl-sendrcv'"), std::string::npos) << m;
  }
  const auto e = load_expectations(h200x2("derived/expect-site.json"), method_catalog());
  EXPECT_EQ(e.judge_min_bytes, 256ull << 20);
  const auto vs = compute_verdicts(load_run_file(h200x2("default.json")), e);
  EXPECT_EQ(verdict_exit_code(vs, "all"), kExitFlagged) << "ce-write >= 500 fails both pairs";
  EXPECT_EQ(method_verdict_of(verdict_of(vs, 0, 1), "ce-write").state, "flagged");
  EXPECT_EQ(method_verdict_of(verdict_of(vs, 0, 1), "ce-latency").state, "pass");  // 2.22 < 3 us
  EXPECT_EQ(method_verdict_of(verdict_of(vs, 0, 1), "ce-latency").bar, 3.0);
  // The bar is the site's, not the link's rating, and 500 GB/s is over NV18's raw 478.1 GB/s: the
  // flag said "under the 500.0 GB/s that NVLink x18 should carry" (audit).
  const auto& f = verdict_of(vs, 0, 1).flags.front();
  EXPECT_EQ(f.code, "below-link");
  EXPECT_NE(f.message.find("under the site's 500.0 GB/s bar (min_gbps from "), std::string::npos)
      << f.message;
  EXPECT_NE(f.message.find("above the 478.1 GB/s raw rate of NVLink x18, which no figure reaches"),
            std::string::npos)
      << f.message;
  EXPECT_EQ(f.message.find("should carry"), std::string::npos) << f.message;
  EXPECT_EQ(method_verdict_of(verdict_of(vs, 0, 1), "ce-write").bar_source, kBarSiteBar);
}

}  // namespace
}  // namespace peerbench

// ---- A real burn-in on 2 x H200 (-N 0, stopped by SIGINT after its tenth cycle).
namespace peerbench {
namespace {

TEST(RealRuns, BurnInStoppedBySigintShowsItsCyclesSpreadAndDrift) {
  const auto d = load_run_file(run_fixture_path("h200x2-burn-in-sigint.json"));
  ASSERT_TRUE(d.burn_in);
  const auto b = report_parts::burn_in_summary(d);
  ASSERT_TRUE(b);
  EXPECT_NE(b->headline.find("10 whole cycles (until stopped)"), std::string::npos) << b->headline;
  EXPECT_NE(b->headline.find("stopped by SIGINT"), std::string::npos) << b->headline;
  ASSERT_EQ(b->rows.size(), 3u);  // ce-write both ways and the all-reduce, at 64 MiB
  for (const auto& r : b->rows) {
    EXPECT_GE(r.cycles, 10) << r.method;
    EXPECT_FALSE(r.drift.empty()) << r.method;  // four cycles or more: first quarter vs last
    EXPECT_TRUE(r.errors.empty() && r.failed.empty()) << r.method;
  }
  ReportInput in;
  in.path = "burn-in.json";
  in.doc = &d;
  in.verdicts = compute_verdicts(d, {});
  for (auto f : {ReportFormat::kText, ReportFormat::kMarkdown, ReportFormat::kHtml}) {
    const auto out = make_reporter(f)->render({in}, {});
    EXPECT_NE(out.find("Burn-in"), std::string::npos);
    EXPECT_NE(out.find("nccl-allreduce (float/sum)"), std::string::npos);
  }
}

// From an audit: 600 cycles of counter increments were 2400 lines before the burn-in's table.
// A counter that grew in several cycles is one line with its total, first and last cycle.
TEST(RealRuns, ACounterThatGrewInManyCyclesIsOneLine) {
  auto d = load_run_file(run_fixture_path("h200x2-burn-in-sigint.json"));
  ASSERT_GE(d.burn_in->cycles.size(), 9u);
  for (int c : {1, 4, 8})
    d.burn_in->cycles[c].counters = {"link 3 replay +2 on GPU 1 (0000:00:07.0) of vm"};
  d.burn_in->cycles[5].counters.push_back("PCIe replay +1 on GPU 0 (0000:00:06.0) of vm");
  // Two ranks on one GPU (--allow-gpu-sharing) report its line twice in a cycle: counted once.
  d.burn_in->cycles[8].counters.push_back("link 3 replay +2 on GPU 1 (0000:00:07.0) of vm");
  const auto b = report_parts::burn_in_summary(d);
  ASSERT_TRUE(b);
  ASSERT_EQ(b->counters.size(), 2u);
  const auto at = [&](int i) { return format_fixed(d.burn_in->cycles[i].started_s, 0) + " s"; };
  EXPECT_EQ(b->counters[0], "in 3 cycles, cycle 2 at " + at(1) + " to cycle 9 at " + at(8) +
                                ": link 3 replay +6 on GPU 1 (0000:00:07.0) of vm");
  EXPECT_EQ(b->counters[1],
            "cycle 6 at " + at(5) + ": PCIe replay +1 on GPU 0 (0000:00:06.0) of vm");
}

}  // namespace
}  // namespace peerbench

// ---- A real -b 1 -e 1 run on 2 x H200 (issue 17.5): 6 bytes of copies in all, which NVML's
// NVLink counters (whole KiB per link) read as 0. The run itself flagged off-nvlink on both
// directions of a healthy NVLink pair; its counters cannot tell a road, so nothing is accused.
namespace peerbench {
namespace {

TEST(RealRuns, OneByteCopiesAreNotAccusedOfLeavingNvlink) {
  const auto d = load_run_file(run_fixture_path("h200x2-one-byte.json"));
  ASSERT_EQ(d.verdicts.size(), 3u);
  EXPECT_EQ(d.verdicts[0].verdict, "flagged") << "what the run said when it was made";
  const auto vs = compute_verdicts(d, {});
  for (const auto& v : vs) {
    for (const auto& f : v.flags) ADD_FAILURE() << pair_name(v.src, v.dst) << ": " << f.code;
    if (v.src >= 0) EXPECT_EQ(v.verdict, "pass") << pair_name(v.src, v.dst);
  }
  const auto& all = verdict_of(vs, -1, -1);
  EXPECT_EQ(all.verdict, "not-applicable");
  for (const auto& m : all.methods) EXPECT_NE(m.reason.find("no whole element"), std::string::npos);
  EXPECT_EQ(verdict_exit_code(vs, "all"), kExitOk);
}

// The pair table of that run printed ce-write as "GB/s @ 1 ... 0.0" (1 B in 3.2 us is 0.0003
// GB/s): a dead-looking link in every format, beside a verdict that judged 3.22 us and passed.
// At latency sizes the tables show the time per operation the verdict judged.
TEST(RealRuns, OneByteTablesShowTheTimePerCopyNotZeroGigabytes) {
  const auto d = load_run_file(run_fixture_path("h200x2-one-byte.json"));
  const auto vs = compute_verdicts(d, {});
  ReportInput in;
  in.path = "run.json";
  in.doc = &d;
  in.verdicts = vs;
  const auto doc = report_document({in}, {});
  const Section* ce = test::section_of(doc, "ce-write, ");
  ASSERT_NE(ce, nullptr);
  EXPECT_EQ(ce->title, "ce-write, us at 1 B");
  EXPECT_EQ(test::cell_text(ce->table, 0, 2), "3.22") << "0->1: the time per copy, judged";
  EXPECT_EQ(test::cell_text(ce->table, 1, 1), "4.03") << "1->0";
  const std::string text = render(d, vs, ReportFormat::kText);
  EXPECT_NE(text.find("ce-write, us at 1 B:"), std::string::npos) << text;
  EXPECT_EQ(text.find("GB/s at 1 B"), std::string::npos) << text;
  const std::string md = render(d, vs, ReportFormat::kMarkdown);
  EXPECT_NE(md.find("### ce-write, us at 1 B"), std::string::npos) << md;
  EXPECT_NE(md.find("| 0 | - | 3.22 |"), std::string::npos) << md;
  const std::string html = render(d, vs, ReportFormat::kHtml);
  EXPECT_NE(html.find("ce-write, us at 1 B"), std::string::npos);
  EXPECT_EQ(html.find("GB/s at 1 B"), std::string::npos);
  for (const auto* doc : {&text, &md}) EXPECT_EQ(doc->find(" 0.0 "), std::string::npos) << *doc;
}

}  // namespace
}  // namespace peerbench

// ---- Real runs on the 2 x H200 machine from scripts/gpu_check.sh full (2026-12-01, 07711a0).
namespace peerbench {
namespace {

// -R 2 (symmetric windows): NCCL's symmetric kernels reach 241-257 busbw GB/s on a healthy pair
// (nccl-tests the same), under the -R 0 known-good curve. The run flagged below-expected at
// 4 GiB, confirmed twice; recomputed, the collectives are not judged and say why.
TEST(RealRuns, SymmetricWindowCollectivesAreNotHeldToTheRegisterZeroCurve) {
  const auto d = load_run_file(run_fixture_path("h200x2-symmetric-R2.json"));
  EXPECT_EQ(d.verdicts[0].verdict, "flagged") << "what the run said when it was made";
  const auto vs = compute_verdicts(d, {});
  const auto& all = verdict_of(vs, -1, -1);
  EXPECT_TRUE(all.flags.empty());
  const auto& ar = method_verdict_of(all, "nccl-allreduce");
  EXPECT_EQ(ar.state, "not-judged");
  EXPECT_NE(ar.reason.find("-R 2"), std::string::npos) << ar.reason;
  // Nor is it shown as 0.74 of the -R 0 known-good curve: there is none for these kernels.
  EXPECT_FALSE(ar.expected_ratio);
  EXPECT_NE(ar.expected_basis.find("-R 2"), std::string::npos) << ar.expected_basis;
  // Send/recv has no symmetric kernels: judged as ever, and it passes.
  EXPECT_EQ(method_verdict_of(all, "nccl-sendrecv-ring").state, "pass");
  EXPECT_EQ(verdict_exit_code(vs, "all"), kExitOk);
  // A site's own bar for it still judges it.
  Expectations site;
  site.min_gbps["nccl-allreduce"]["*"] = 300;
  EXPECT_EQ(flag_codes_of(verdict_of(compute_verdicts(d, site), -1, -1)),
            (std::vector<std::string>{"below-link"}));
}

// One rank: busbw is algbw x 0. peerbench wrote 0 and then refused its own file ("0 GB/s is
// not a measurement").
TEST(RealRuns, OneRankCollectivesWithZeroBusBandwidthRead) {
  const auto d = load_run_file(run_fixture_path("h200x2-one-rank-collectives.json"));
  const auto vs = compute_verdicts(d, {});
  ASSERT_EQ(vs.size(), 1u);
  EXPECT_EQ(vs[0].verdict, "not-a-link");
  EXPECT_EQ(verdict_exit_code(vs, "all"), kExitOk);
  // Its figures are times at these sizes (996-3000 B): the report printed "0.0" GB/s for each.
  EXPECT_NE(vs[0].observed.find("nccl-allreduce 2.67 us @ 3000"), std::string::npos)
      << vs[0].observed;
  const std::string text = test::flat(render(d, vs, ReportFormat::kText));
  EXPECT_NE(text.find("us per operation at latency sizes): size nccl-allreduce (float/sum) "
                      "nccl-allgather (float) 1 B not-applicable not-applicable 996 B 2.82 us"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find(" 0.0"), std::string::npos) << text;
}

}  // namespace
}  // namespace peerbench

// ---- From an audit with hostile files: a burn-in that does not fit its own run (an ending its
// run cannot have, cycle records that are not the cycles done, series of cases never measured or
// of impossible figures, a cycle's errors no series names) is refused with its field named, not
// reported; each of these passed before (exit 0).
namespace peerbench {
namespace {

std::string burn_in_refusal(const nlohmann::json& j) {
  try {
    validate_run_document(run_document_from_json(j, "burn.json"), "burn.json");  // as a file is
    return "(read)";
  } catch (const InputError& e) {
    return e.what();
  }
}

TEST(RealRuns, ABurnInThatDoesNotFitItsRunIsRefused) {
  const auto path = run_fixture_path("h200x2-burn-in-sigint.json");
  const nlohmann::json good = to_json(load_run_file(path));
  EXPECT_EQ(burn_in_refusal(good), "(read)");
  const std::vector<std::pair<std::function<void(nlohmann::json&)>, std::string>> cases = {
      {[](auto& j) { j["burn_in"]["stopped_by"] = "banana"; },
       "burn_in.stopped_by': 'banana' is not cycles, duration, SIGINT, SIGTERM or error"},
      {[](auto& j) { j["burn_in"]["stopped_by"] = "error"; },
       "'error' in a complete run; an error fails the run"},
      {[](auto& j) { j["burn_in"]["stopped_by"] = nullptr; }, "missing in a complete run"},
      {[](auto& j) { j["burn_in"]["stopped_by"] = "cycles"; },
       "'cycles', but no cycle count was requested"},
      {[](auto& j) { j["burn_in"]["stopped_by"] = "duration"; }, "'duration', but duration_s is 0"},
      {[](auto& j) { j["burn_in"]["cycles_done"] = 100; },
       "burn_in.cycles': 11 cycle records for 100 whole cycles"},
      {[](auto& j) { j["burn_in"]["cycles"].erase(3); },
       "cycles[3].cycle': 5; cycle records are numbered 1, 2, ... (4 here)"},
      {[](auto& j) { j["burn_in"]["cycles"][1]["cycle"] = 1; }, "cycles[1].cycle': 1; cycle"},
      {[](auto& j) { j["burn_in"]["cycles"][3]["started_s"] = 0.5; },
       "cycles[3].started_s': starts before the cycle before it"},
      {[](auto& j) { j["burn_in"]["cycles"][1]["wrong"] = 5; },
       "5 wrong elements, but no series names cycle 2 in its error_cycles"},
      {[](auto& j) { j["burn_in"]["cycles"][1]["failed"] = 3; },
       "3 failed cases, but no series names cycle 2 in its failed_cycles"},
      {[](auto& j) { j["burn_in"]["series"][0]["method"] = "ce-wrte"; },
       "series[0]': no result in results is 'ce-wrte' 0->1 at 64 MiB"},
      {[](auto& j) { j["burn_in"]["series"][0]["src"] = 5; }, "'ce-write' 5->1 at 64 MiB"},
      {[](auto& j) { j["burn_in"]["series"][0]["bytes"] = 1 << 30; }, "'ce-write' 0->1 at 1 GiB"},
      {[](auto& j) { j["burn_in"]["series"][2]["op"] = "bogus"; },
       "all ranks at 64 MiB 'float' 'bogus'"},
      {[](auto& j) { j["burn_in"]["series"][0]["values"][2] = 0.0; },
       "series[0].values[2]': 0 GB/s is not a measurement"},
      {[](auto& j) { j["burn_in"]["series"][0]["values"][2] = 1e11; }, "1e+11 GB/s is not"},
      {[](auto& j) { j["burn_in"]["series"][0]["values"] = nlohmann::json::array(); },
       "series[0].values': empty"},
      {[](auto& j) {
         j["burn_in"]["series"][0]["error_cycles"] = {2, 2};
       },
       "error_cycles[1]': 2 after 2; cycles are listed once each, in order"},
      {[](auto& j) { j["burn_in"]["series"][0]["bytes"] = 67108864.5; }, "series[0].bytes'"},
      {[](auto& j) { j["burn_in"]["cycles"][1]["wrong"] = 1.5; }, "cycles[1].wrong'"},
      {[](auto& j) { j["config"]["run_cycles"] = 1; },
       "cycles_requested': 0, but the run's config.run_cycles is 1"},
      // From an audit: files that contradict themselves changed the verdict.
      {[](auto& j) {
         j["burn_in"]["stopped_by"] = "duration";
         j["burn_in"]["duration_s"] = j["config"]["duration_s"] = 7200.0;
         j["burn_in"]["cycles"].erase(10);  // no cycle in flight: only the duration is wrong
       },
       "stopped_by': 'duration', but its last cycle ended 4.6 s into the run, short of the "
       "7200.0 s asked for"},
      {[](auto& j) {
         j["burn_in"]["stopped_by"] = "cycles";
         j["burn_in"]["cycles_requested"] = j["config"]["run_cycles"] = 10;
       },
       "cycles': 11 cycle records for 10 whole cycles, but a burn-in stopped by cycles ends "
       "between cycles"},
      {[](auto& j) { j["burn_in"]["series"][0]["error_cycles"] = {3}; },
       "series[0].error_cycles': cycle 3, but cycles[2] counted none"},
      {[](auto& j) { j["burn_in"]["series"][0]["failed_cycles"] = {1}; },
       "series[0].failed_cycles': cycle 1, but cycles[0] counted none"},
      {[](auto& j) { j["burn_in"]["series"][0]["throttle_cycles"] = {2}; },
       "series[0]': unknown key 'throttle_cycles'"},
      {[](auto& j) { j["burn_in"]["cycles"][0]["wrongs"] = 0; }, "cycles[0]': unknown key"},
      {[](auto& j) { j["burn_in"]["series"].erase(0); },
       "burn_in.series': no series of results[0] (ce-write at 64 MiB); every case the burn-in "
       "ran has one"},
      {[](auto& j) { j.erase("burn_in"); },
       "burn_in': missing, but the run's config asks for a burn-in (run_cycles 0"},
      {[](auto& j) { j["config"]["average"] = 1e300; }, "config.average'"},
      {[](auto& j) { j["config"]["blocking"] = true; }, "config.blocking'"},
      {[](auto& j) { j["config"]["cudagraph_replays"] = -5; }, "config.cudagraph_replays'"},
  };
  for (const auto& [edit, why] : cases) {
    auto j = good;
    edit(j);
    const std::string got = burn_in_refusal(j);
    EXPECT_NE(got.find(why), std::string::npos) << "expected: " << why << "\ngot: " << got;
  }
}

// What the job writes is read (a review: the checks above had only refusals): a --duration that
// ran out while the last file was written, a job killed in a cycle with wrong data in it before
// its record, and a figure in a contended cycle (writers before 2026-12-03) is dropped.
TEST(RealRuns, ABurnInAsTheJobWritesItIsRead) {
  const nlohmann::json good =
      to_json(load_run_file(run_fixture_path("h200x2-burn-in-sigint.json")));
  auto j = good;
  j["burn_in"]["stopped_by"] = "duration";
  j["burn_in"]["duration_s"] = j["config"]["duration_s"] = 6.0;  // last cycle ends at 4.6 s
  j["burn_in"]["cycles"].erase(10);
  EXPECT_EQ(burn_in_refusal(j), "(read)");

  j = good;
  j["status"] = "incomplete";
  j["burn_in"]["stopped_by"] = nullptr;
  j["burn_in"]["cycles"].erase(10);  // cycle 11 in flight: no record yet
  j["burn_in"]["series"][0]["error_cycles"] = {11};
  j["in_progress"] = {{"method", "ce-read"}, {"cycle", 11}};
  EXPECT_EQ(burn_in_refusal(j), "(read)");
  j["status"] = "complete";  // a finished run has every cycle's record
  j["burn_in"]["stopped_by"] = "SIGINT";
  j["in_progress"] = nullptr;
  EXPECT_NE(burn_in_refusal(j).find("error_cycles': cycle 11 has no cycle record"),
            std::string::npos);

  j = good;
  j["burn_in"]["series"][0]["contended_cycles"] = {2};
  const RunDocument d = run_document_from_json(j, "burn.json");
  EXPECT_TRUE(d.burn_in->series[0].values[0]);
  EXPECT_FALSE(d.burn_in->series[0].values[1]) << "beside another job: no figure of the link";
}

// A run that stopped at 64 MiB had no point at run 1's 1 GiB in the history chart, and its NCCL
// at 0.10 no line there (an audit): each run is set against run 1 at the largest size both hold.
TEST(RealRuns, HistoryChartMeetsEachRunAtTheLargestSizeItShares) {
  const auto a = load_run_file(h200x2("default.json"));
  const auto b = load_run_file(h200x2("p2p-disabled.json"));
  CompareOptions o;
  o.format = ReportFormat::kHtml;
  const auto h = build_history({a, b, a}, {"a.json", "b.json", "c.json"}, o);
  const std::string html = render_history(h, o, {});
  EXPECT_NE(html.find("0.100 (@ 64M)"), std::string::npos);
  EXPECT_NE(html.find("1.000 (@ 1G)"), std::string::npos);
  EXPECT_NE(html.find("ce-latency @ 8 B"), std::string::npos);
}

// `--fail-on none` over a flagged run exited 0 with no word of the flags it let pass; an
// acceptance signed on that exit code never saw them. What the default counts and the chosen
// --fail-on does not is now named, in every report format.
TEST(RealRuns, ReportSaysWhatFailOnWaived) {
  const auto d = load_run_file(h200x2("p2p-disabled.json"));
  const auto vs = compute_verdicts(d, {});
  const auto all = run_failing_items(d, vs, "all");
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(waived_line(d, vs, "all"), "") << "the default waives nothing";
  const auto none = waived_line(d, vs, "none");
  EXPECT_EQ(none.rfind("--fail-on none leaves out " + std::to_string(all.size()) +
                           " that the default (all) counts: ",
                       0),
            0u)
      << none;
  EXPECT_NE(none.find(all.front()), std::string::npos) << none;
  // One code chosen: only the others are waived, and what it counts is not among them.
  const auto code = verdict_of(vs, 0, 1).flags.at(0).code;
  const auto counted = run_failing_items(d, vs, code);
  ASSERT_FALSE(counted.empty());
  const auto some = waived_line(d, vs, code);
  if (counted.size() == all.size()) {
    EXPECT_EQ(some, "");
  } else {
    EXPECT_NE(some.find("leaves out " + std::to_string(all.size() - counted.size()) + " "),
              std::string::npos)
        << some;
  }
  for (const auto f : {ReportFormat::kText, ReportFormat::kMarkdown, ReportFormat::kHtml}) {
    ReportInput in;
    in.path = "run.json";
    in.doc = &d;
    in.verdicts = vs;
    in.waived_why = none;
    const auto out = test::flat(make_reporter(f)->render({in}, {}));
    // Under the verdict, which says the flags were waived.
    const auto waived = out.find("waived: --fail-on none leaves out");
    EXPECT_NE(waived, std::string::npos) << static_cast<int>(f);
    EXPECT_NE(out.find("WAIVED: 3 flagged of 3 verdicts"), std::string::npos) << out.substr(0, 400);
    EXPECT_LT(waived, out.find("Pairs at the judged size")) << static_cast<int>(f);
    // The counts a signing admin reads were in the text report alone (an audit).
    EXPECT_NE(out.find("counts: " + verdict_summary(count_verdicts(vs))), std::string::npos)
        << static_cast<int>(f);
  }
  // Over several runs, the first line says so ("none fails" stood over the waived flags).
  ReportInput in;
  in.path = "run.json";
  in.doc = &d;
  in.verdicts = vs;
  in.waived_why = none;
  ReportInput clean = in;
  clean.path = "clean.json";
  clean.waived_why.clear();
  EXPECT_EQ(runs_headline({clean, in}),
            "2 runs: none fails; flags or states waived by --fail-on in run.json (see each run's "
            "waived line)");
  EXPECT_EQ(runs_headline({clean, clean}), "2 runs: none fails");
}

}  // namespace
}  // namespace peerbench
