// What a reader meets first (issue 39): the text report leads with its verdict and fits a
// terminal of 120 columns, for the real 2 x H200 runs and for an 8-GPU node simulated from them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/judge/verdict.h"
#include "core/model/schema.h"
#include "core/present/report.h"
#include "test_docs.h"
#include "test_fixtures.h"

namespace peerbench {
namespace {

using test::example_run;
using test::lines_of;

ReportInput input_of(const RunDocument& d, const std::string& path) {
  ReportInput in;
  in.path = path;
  in.doc = &d;
  in.verdicts = compute_verdicts(d, {});
  in.failing = run_failing(d, in.verdicts, "all");
  in.expectations_source = "built-in defaults";
  return in;
}

// An 8-GPU NV18 node made from a real 2 x H200 run: every ordered pair carries the real pair's
// figures at every size, every GPU its host-link figures, and the collectives are the run's.
RunDocument eight_gpus_from(const RunDocument& two) {
  test::NodeSpec spec;
  spec.gpus = 8;
  RunDocument d = test::make_doc(spec);
  d.methods = two.methods;
  d.config = two.config;
  for (const auto& r : two.results) {
    if (r.src < 0) {
      d.results.push_back(r);
      continue;
    }
    const bool host = r.src == r.dst;
    const bool forward = r.src == 0;
    for (int a = 0; a < 8; ++a) {
      for (int b = 0; b < 8; ++b) {
        if (host ? a != b || !forward : a == b) continue;
        // The real pair's 0->1 figure for a < b, its 1->0 for a > b (bidirectional ones once).
        if (!host && (a < b) != forward) continue;
        Result x = r;
        x.src = a;
        x.dst = b;
        d.results.push_back(x);
      }
    }
  }
  return d;
}

void expect_fits_and_leads(const std::string& text, const std::string& what) {
  const auto lines = lines_of(text);
  ASSERT_GT(lines.size(), 12u) << what;
  for (const auto& l : lines) EXPECT_LE(l.size(), kTextWidth) << what << ":\n" << l;
  const std::string first = lines[1];
  EXPECT_TRUE(first.rfind("PASS: ", 0) == 0 || first.rfind("FAIL: ", 0) == 0 ||
              first.rfind("NOT JUDGED: ", 0) == 0)
      << what << ": " << first;
}

TEST(ReportLayout, EveryExampleFitsTheTerminalAndLeadsWithItsVerdict) {
  // Every judged figure under the size judged, or none: the word says nothing passed (an audit
  // read "PASS: 3 not judged of 3 verdicts").
  const RunDocument ptb = example_run("h200x2-per-task-binding.json");
  EXPECT_EQ(lines_of(make_reporter(ReportFormat::kText)->render({input_of(ptb, "p.json")}, {}))[1],
            "NOT JUDGED: 3 not judged of 3 verdicts");
  for (const char* name : {"h200x2-default.json", "h200x2-nccl-shm.json", "h200x2-nccl-net.json",
                           "h200x2-nccl-large.json", "h200x2-collectives.json", "h200x2-host.json",
                           "h200x2-per-task-binding.json"}) {
    const RunDocument d = example_run(name);
    expect_fits_and_leads(make_reporter(ReportFormat::kText)->render({input_of(d, name)}, {}),
                          name);
  }
}

// Every pair of an 8-GPU node on NCCL's shared memory, and one GPU's copies slowed: the verdict
// and the pairs at fault within the first 12 lines, every line within 120 columns.
TEST(ReportLayout, AnEightGpuNodeFitsAndSaysWhatIsWrongFirst) {
  RunDocument d = eight_gpus_from(example_run("h200x2-default.json"));
  for (auto& p : d.pairs) {
    p.nccl->kind = "SHM";
    p.nccl->kinds = {"SHM"};
    p.nccl->details = {"SHM/direct/direct"};
  }
  for (auto& r : d.results) {
    if (r.method == "ce-write" && r.src == 5 && r.algbw_gbps) {
      r.algbw_gbps = test::flat(r.algbw_gbps->median * 0.5);
      r.time_us = test::flat(r.time_us->median * 2);
    }
  }
  const auto in = input_of(d, "h200x8-simulated.json");
  const std::string text = make_reporter(ReportFormat::kText)->render({in}, {});
  expect_fits_and_leads(text, "8 GPUs");
  const auto lines = lines_of(text);
  EXPECT_EQ(lines[1].rfind("FAIL: ", 0), 0u) << lines[1];
  // The first screen names both problems: NCCL's road and the slow copies from GPU 5.
  std::string first;
  for (std::size_t i = 0; i < 12; ++i) first += lines[i] + "\n";
  EXPECT_NE(first.find("nccl-shm: NCCL used shared memory"), std::string::npos) << first;
  EXPECT_NE(test::flat(first).find("(5->0, 5->1, 5->2, 5->3, 5->4, 5->6, 5->7)"), std::string::npos)
      << first;
  // The matrix puts the slow row in its place: 8 x 8, the flagged cells marked.
  const auto doc = report_document({in}, {});
  const Section* ce = test::section_of(doc, "ce-write, ");
  ASSERT_NE(ce, nullptr);
  ASSERT_EQ(ce->table.rows.size(), 8u);
  ASSERT_EQ(ce->table.columns.size(), 9u);
  EXPECT_TRUE(ce->table.rows[5][1].flagged) << ce->table.rows[5][1].text;
  EXPECT_FALSE(ce->table.rows[4][1].flagged) << ce->table.rows[4][1].text;
  EXPECT_EQ(ce->table.rows[5][6].text, "-");
}

// Issue 42: a results file named "<script>x.json" passed its tag through the Markdown report (a
// code span holds text as it is, and Markdown renderers pass HTML on). Every string from the
// command line or the file is escaped wherever it lands: the file name, host names, process
// names, paths, in every format.
TEST(ReportLayout, MarkdownEscapesEveryStringFromTheFileAndTheCommandLine) {
  RunDocument d = example_run("h200x2-default.json");
  const std::string tag = "<script>alert(1)</script>";
  for (auto& r : d.system.ranks) r.host = "<b>node</b>";
  d.system.hosts = {"<b>node</b>"};
  if (d.topology)
    for (auto& h : d.topology->hosts) h.host = "<b>node</b>";
  for (auto& r : d.results) {
    if (r.src < 0 && r.status == ResultStatus::kOk) {
      GpuInterference g;
      g.rank = 0;
      g.processes.push_back({4242, "<img src=x onerror=alert(2)>"});
      r.interference = std::vector<GpuInterference>{g};
      break;
    }
  }
  d.tool.command_line = {"peerbench", "run", "-J", "/tmp/<i>x</i>.json"};
  ReportInput in = input_of(d, "runs/" + tag + ".json");
  const std::string md = make_reporter(ReportFormat::kMarkdown)->render({in}, {});
  // (Escaped, each '<' and '>' has its backslash: "\<img ...\>" holds no "<img ...>".)
  for (const char* raw : {"<script>", "<b>", "<img src=x onerror=alert(2)>", "<i>"})
    EXPECT_EQ(md.find(raw), std::string::npos)
        << raw
        << " passed through: " << md.substr(md.find(raw) > 200 ? md.find(raw) - 200 : 0, 300);
  for (const char* escaped : {"\\<script\\>", "\\<b\\>node\\</b\\>", "\\<img src=x", "\\<i\\>x"})
    EXPECT_NE(md.find(escaped), std::string::npos) << escaped;
  EXPECT_EQ(md.find('`'), std::string::npos) << "no code span: it would hold HTML as it is";
  const std::string html = make_reporter(ReportFormat::kHtml)->render({in}, {});
  for (const char* raw : {"<script>", "<b>", "<img", "<i>"})
    EXPECT_EQ(html.find(raw), std::string::npos) << raw << " passed through";
}

}  // namespace
}  // namespace peerbench
