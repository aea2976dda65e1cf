// What `run` and `report` print for people and for logs: the progress line redrawn only on a real
// terminal, and the step a cut-short run was in, in words.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>

#include "core/judge/verdict.h"
#include "core/model/schema.h"
#include "core/platform/launcher.h"
#include "core/present/report.h"
#include "core/present/run_progress.h"
#include "test_text.h"

namespace peerbench {
namespace {

EnvLookup env_of(const std::map<std::string, std::string>& m) {
  return [m](const char* n) -> const char* {
    auto it = m.find(n);
    return it == m.end() ? nullptr : it->second.c_str();
  };
}

TEST(Progress, RedrawnInPlaceOnlyOnARealTerminal) {
  const LaunchInfo alone;
  LaunchInfo ranked;
  ranked.under_launcher = true;
  ranked.launcher = "Open MPI";
  EXPECT_TRUE(progress_may_redraw(true, alone, env_of({})));
  EXPECT_FALSE(progress_may_redraw(false, alone, env_of({})));
  // Under mpirun a rank's stdout is a pseudo-terminal whatever mpirun writes to: only the
  // peerbench that started mpirun knows, and says so.
  EXPECT_FALSE(progress_may_redraw(true, ranked, env_of({})));
  EXPECT_FALSE(progress_may_redraw(true, ranked, env_of({{kStdoutTerminalVar, "0"}})));
  EXPECT_TRUE(progress_may_redraw(true, ranked, env_of({{kStdoutTerminalVar, "1"}})));
  EXPECT_FALSE(progress_may_redraw(false, ranked, env_of({{kStdoutTerminalVar, "1"}})));
}

TEST(Progress, PlainLinesWhenNotATerminal) {
  std::ostringstream log;
  LiveReporter plain(log, 1);
  plain.progress(3, 10, 12.0, 30.0, "ce-write round 1 done", false);
  plain.progress(4, 10, 15.0, 25.0, "ce-write round 2 done", false);
  EXPECT_EQ(log.str().find('\r'), std::string::npos);
  EXPECT_EQ(log.str().find('\033'), std::string::npos);
  EXPECT_EQ(log.str(),
            "# [3/10] 12 s elapsed, ~30 s left: ce-write round 1 done\n"
            "# [4/10] 15 s elapsed, ~25 s left: ce-write round 2 done\n");
  std::ostringstream tty;
  LiveReporter redrawn(tty, 1);
  redrawn.progress(3, 10, 12.0, 30.0, "ce-write round 1 done", true);
  EXPECT_NE(tty.str().find("\r# [3/10]"), std::string::npos);
  EXPECT_NE(tty.str().find("\033[K"), std::string::npos);
  EXPECT_EQ(tty.str().find('\n'), std::string::npos);
}

TEST(InProgress, DescribedInWords) {
  using nlohmann::json;
  const json pair_step = {{"method", "sm-write"},
                          {"round", 2},
                          {"pairs", {{0, 1}, {1, 0}}},
                          {"sizes", {1u << 20, 4u << 20, 16u << 20}},
                          {"all_ranks", false}};
  EXPECT_EQ(describe_in_progress(pair_step),
            "sm-write, round 2, pairs 0->1, 1->0, sizes 1M-16M (3)");
  const json all_ranks = {{"method", "nccl-allreduce"},
                          {"round", 0},
                          {"pairs", json::array()},
                          {"sizes", {8}},
                          {"all_ranks", true}};
  EXPECT_EQ(describe_in_progress(all_ranks), "nccl-allreduce, round 0, all ranks, sizes 8");
  // Fields of another form (older or edited files) are shown as they are, never dropped.
  EXPECT_EQ(describe_in_progress({{"method", "ce-write"}, {"src", 0}, {"round", "x"}}),
            "ce-write, round=\"x\", src=0");
}

// A real run cut short: the 2 x H200 example with the record the job writes before a step.
TEST(InProgress, ReportOfACutShortRunSaysWhatWasRunning) {
  RunDocument d =
      load_run_file(std::string(PEERBENCH_SOURCE_DIR) + "/results/examples/h200x2-default.json");
  d.status = "incomplete";
  d.in_progress = {{"method", "sm-read"},
                   {"round", 1},
                   {"pairs", {{1, 0}}},
                   {"sizes", d.config.at("sizes")},
                   {"all_ranks", false}};
  ReportInput in;
  in.path = "cut.json";
  in.doc = &d;
  in.verdicts = compute_verdicts(d, {});
  const auto text = make_reporter(ReportFormat::kText)->render({in}, {});
  EXPECT_NE(text.find("  cut short while running: sm-read, round 1, pair 1->0, sizes 1M-1G (6)\n"),
            std::string::npos)
      << text.substr(0, 600);
  EXPECT_EQ(text.find("{\"all_ranks\""), std::string::npos);
}

// Another job beside a case that was not judged (an all-ranks collective at 1 MiB): every format
// still marks the figure and names the process (the report had no trace of it; an audit).
TEST(Interference, EveryFormatNamesItJudgedOrNot) {
  RunDocument d =
      load_run_file(std::string(PEERBENCH_SOURCE_DIR) + "/results/examples/h200x2-default.json");
  Result* small = nullptr;
  for (auto& r : d.results) {
    if (r.src < 0 && r.bytes == 1048576 && r.status == ResultStatus::kOk) small = &r;
  }
  ASSERT_NE(small, nullptr);
  GpuInterference g;
  g.rank = 0;
  g.processes.push_back({4242, "other-job"});
  small->interference = std::vector<GpuInterference>{g};
  ReportInput in;
  in.path = "busy.json";
  in.doc = &d;
  in.verdicts = compute_verdicts(d, {});
  // The figure carries its mark in the collectives' table by size.
  const auto doc = report_document({in}, {});
  const Section* by_size = test::section_of(doc, "Over all ranks by size");
  ASSERT_NE(by_size, nullptr);
  bool marked = false;
  for (const auto& row : by_size->table.rows) {
    if (row.front().text != "1 MiB") continue;
    for (const auto& c : row) marked = marked || (!c.text.empty() && c.text.back() == 'c');
  }
  EXPECT_TRUE(marked) << "the 1 MiB figure beside another job is marked c";
  for (auto f : {ReportFormat::kText, ReportFormat::kMarkdown, ReportFormat::kHtml}) {
    const std::string out = test::flat(make_reporter(f)->render({in}, {}));
    EXPECT_NE(out.find("pid 4242 (other-job) on rank 0"), std::string::npos);
    EXPECT_NE(out.find(small->method + " (float) all ranks 1M"), std::string::npos)
        << small->method;
    // The mark is explained where it is read: not the link's figure (an audit).
    EXPECT_NE(out.find("c beside another job"), std::string::npos) << static_cast<int>(f);
    EXPECT_EQ(out.find("ok (beside another job)"), std::string::npos);
  }
}

}  // namespace
}  // namespace peerbench
