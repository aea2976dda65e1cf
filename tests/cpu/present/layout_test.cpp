// Issue 19.3 and 19.4, issue 18's live table: text that lines up (every text table through
// core/text_table, columns never touching at any width of value, long names fed in), compare's
// metric as report's, Markdown links that resolve from the document, and fleet saying what it
// read.
#include <gtest/gtest.h>

#include <sstream>

#include "core/base/text.h"
#include "core/cli/command_line.h"
#include "core/fleet/fleet.h"
#include "core/fleet/fleet_report.h"
#include "core/judge/verdict.h"
#include "core/model/schema.h"
#include "core/plan/plan.h"
#include "core/present/compare.h"
#include "core/present/history.h"
#include "core/present/plan_text.h"
#include "core/present/relative_link.h"
#include "core/present/report.h"
#include "core/present/text_table.h"
#include "test_docs.h"
#include "test_fixtures.h"

namespace peerbench {
namespace {

using test::example_run;
using test::lines_of;

// The cells appear in this order on the line, each after at least two spaces.
::testing::AssertionResult apart(const std::string& line, const std::vector<std::string>& cells) {
  std::size_t from = 0;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const auto at = line.find(cells[i], from);
    if (at == std::string::npos)
      return ::testing::AssertionFailure() << "'" << cells[i] << "' not in order in: " << line;
    if (i > 0 && (at < from + 2 || line.compare(at - 2, 2, "  ") != 0))
      return ::testing::AssertionFailure()
             << "'" << cells[i] << "' touches its neighbour: " << line;
    from = at + cells[i].size();
  }
  return ::testing::AssertionSuccess();
}

// The first line holding every one of `needles`.
std::string line_with_all(const std::string& text, const std::vector<std::string>& needles) {
  for (const auto& l : lines_of(text)) {
    bool all = true;
    for (const auto& n : needles) all = all && l.find(n) != std::string::npos;
    if (all) return l;
  }
  return "(no line with '" + needles.front() + "')";
}
std::string line_with(const std::string& text, const std::string& needle) {
  return line_with_all(text, {needle});
}

TEST(TextTable, ColumnsNeverTouchWhateverTheValues) {
  TextTable t({Align::kLeft, Align::kRight, Align::kLeft});
  t.add_row({"method", "busbw", "status"});
  t.add_row({std::string(70, 'm'), "1.0", "ok"});
  t.add_row({"x", std::string(40, '9'), "timeout"});
  const auto lines = lines_of(t.render());
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_TRUE(apart(lines[1], {std::string(70, 'm'), "1.0", "ok"}));
  EXPECT_TRUE(apart(lines[2], {"x", std::string(40, '9'), "timeout"}));
  // The right-aligned column ends in one place on every line.
  EXPECT_EQ(lines[0].find("busbw") + 5, lines[1].find("1.0") + 3);
  EXPECT_EQ(lines[1].find("1.0") + 3, lines[2].find(std::string(40, '9')) + 40);
}

TEST(TextTable, WidthsAreWhatATerminalShows) {
  EXPECT_EQ(display_width("ce-write"), 8u);
  EXPECT_EQ(display_width("n\xC3\xBC"
                          "de"),
            4u);                                             // "nüde": 4 characters, 5 bytes
  EXPECT_EQ(display_width("\xE6\x9D\xB1\xE4\xBA\xAC"), 4u);  // two wide characters
  TextTable t;
  t.add_row(
      {"n\xC3\xBC"
       "de",
       "a"});
  t.add_row({"node", "b"});
  const auto lines = lines_of(t.render());
  EXPECT_EQ(lines[0].size() - 1, lines[1].size()) << "one more byte, the same column";
  // A control character is escaped before it is measured: the columns still line up.
  TextTable c;
  c.add_row({"a\x1b[2Jb", "X"});
  c.add_row({"plain", "Y"});
  const auto cl = lines_of(c.render());
  EXPECT_EQ(cl[0].find('\x1b'), std::string::npos);
  EXPECT_EQ(cl[0].find('X'), cl[1].find('Y'));
}

TEST(TextTable, FixedColumnsGiveAWideCellRoomAndKeepTheGap) {
  const std::vector<Align> align{Align::kLeft, Align::kRight, Align::kLeft};
  const auto line = format_columns({"nccl-sendrecv-bidir-and-more", "21", "ok"}, {18, 5, 0}, align);
  EXPECT_TRUE(apart(line, {"nccl-sendrecv-bidir-and-more", "21", "ok"})) << line;
}

// The three cases issue 19 found, and long names fed to each table.
TEST(Layout, HelpKeepsEveryUsageApartFromItsSummary) {
  const char* argv[] = {"peerbench", "--help"};
  const auto cl = parse_command_line(2, argv, method_catalog());
  EXPECT_TRUE(apart(line_with(cl.help_text, "compare A.json"),
                    {"peerbench compare A.json B.json [C.json ...]", "what changed"}));
  EXPECT_TRUE(apart(line_with(cl.help_text, "fleet PATH"),
                    {"peerbench fleet PATH... [--hosts FILE]", "one verdict"}));
}

TEST(Layout, DryRunKeepsLongMethodNamesApartFromTheRound) {
  PlanInput in;
  in.world_size = 2;
  in.host_of_rank.assign(2, "node");
  for (const auto& m : method_catalog()) {
    if (m.name == "nccl-sendrecv-bidir" || m.name == "ce-write") in.methods.push_back(m);
  }
  in.methods.back().name = "nccl-sendrecv-bidir-with-a-much-longer-name";
  in.sizes = {1 << 20, 1 << 30};
  const auto text = format_plan(make_plan(in), in, false);
  EXPECT_TRUE(apart(line_with(text, "nccl-sendrecv-bidir-with"),
                    {"nccl-sendrecv-bidir-with-a-much-longer-name", "0", "1M..1G (2)", "0->1"}))
      << text;
  EXPECT_TRUE(apart(line_with(text, "  ce-write"), {"ce-write", "0", "1M..1G (2)"})) << text;
}

TEST(Layout, CompareKeepsTheVariantApartAndShowsBusbwAsReportDoes) {
  const RunDocument a = example_run("h200x2-default.json");
  const RunDocument b = example_run("h200x2-collectives.json");
  CompareOptions o;
  const Comparison c = compare_runs(a, "a.json", b, "b.json", o);
  const CompareRow* gather = nullptr;
  for (const auto& r : c.rows) {
    if (r.method == "nccl-allgather float" && r.bytes == (1u << 30)) gather = &r;
  }
  ASSERT_NE(gather, nullptr);
  EXPECT_EQ(gather->metric, "busbw_gbps");
  for (const auto& r : a.results) {
    if (r.method == "nccl-allgather" && r.bytes == (1u << 30)) {
      EXPECT_DOUBLE_EQ(gather->a.median, r.busbw_gbps->median) << "report's figure, 266.1";
      EXPECT_NE(gather->a.median, r.algbw_gbps->median);
    }
  }
  const std::string text = render_comparison(c, "a.json", "b.json", o);
  EXPECT_TRUE(apart(line_with_all(text, {"nccl-allgather float", " 1G "}),
                    {"nccl-allgather float", "all", "1G", "busbw GB/s", "266."}))
      << text;
  EXPECT_TRUE(
      apart(line_with(text, "nccl-allreduce float/sum"), {"nccl-allreduce float/sum", "all"}));
  o.format = ReportFormat::kCsv;
  EXPECT_NE(render_comparison(c, "a.json", "b.json", o).find(",busbw_gbps,"), std::string::npos);
  o.format = ReportFormat::kHtml;
  const std::string html = render_comparison(c, "a.json", "b.json", o);
  EXPECT_NE(html.find("<svg class=\"chart\""), std::string::npos);
  EXPECT_NE(html.find("<th>B/A</th>"), std::string::npos);
}

TEST(Layout, ReportWithLongNamesKeepsEveryColumnApart) {
  RunDocument d = test::clean_h200_pair();
  const std::string long_name = "ce-write-with-a-name-longer-than-any-column-would-be";
  for (auto& m : d.methods) {
    if (m.name == "ce-write") m.name = long_name;
  }
  for (auto& r : d.results) {
    if (r.method == "ce-write") r.method = long_name;
  }
  for (auto& r : d.system.ranks) r.host = "a-host-name-of-forty-characters-or-so-x";
  ReportInput in;
  in.path = "long.json";
  in.doc = &d;
  in.verdicts = compute_verdicts(d, {});
  const auto text = make_reporter(ReportFormat::kText)->render({in}, {});
  // Every line fits the terminal, the long name's matrix among its neighbours.
  for (const auto& l : lines_of(text)) EXPECT_LE(l.size(), kTextWidth) << l;
  const std::string head = line_with(text, long_name + ", GB/s at 1 GiB:");
  ASSERT_FALSE(head.empty()) << text;
  // Under the long title, its matrix: the figures stay apart from each other and from the
  // tile beside it.
  const auto lines = lines_of(text);
  for (std::size_t i = 0; i + 3 < lines.size(); ++i) {
    if (lines[i] != head) continue;
    EXPECT_TRUE(apart(lines[i + 2], {"0", "-", "395.0"})) << lines[i + 2];
    EXPECT_TRUE(apart(lines[i + 3], {"1", "384.0", "-"})) << lines[i + 3];
  }
  EXPECT_TRUE(apart(line_with(text, "0000:00:00.0"),
                    {"0000:00:00.0", "not recorded", "a-host-name-of-forty"}));
  // A flag's evidence was one long JSON word in a cell: it widened the verdict table past a
  // 1280-pixel window (an audit's screenshot). Evidence is words now, in lines that wrap.
  const auto html = make_reporter(ReportFormat::kHtml)->render({in}, {});
  EXPECT_EQ(html.find("{&quot;"), std::string::npos);
  EXPECT_EQ(html.find("<code>"), std::string::npos);
}

// Issue 18: nccl-tests' columns where they apply, its footer, and whose time the table shows.
TEST(LiveTable, NcclTestsColumnsHeaderNoteAndFooter) {
  const RunDocument d = example_run("h200x2-default.json");
  std::ostringstream out;
  LiveReporter live(out, 1);
  live.header();
  for (const auto& r : d.results) live.result(d, find_method(d.methods, r.method), r);
  live.footer(d);
  const std::string text = out.str();
  EXPECT_NE(text.find("the slowest rank's"), std::string::npos);
  EXPECT_NE(text.find("nccl-tests defaults to the average of the ranks' times (its -a 1)"),
            std::string::npos);
  EXPECT_TRUE(apart(line_with(text, "# method"),
                    {"method", "pair", "size", "count", "type", "redop", "root", "round",
                     "time(us)", "algbw", "busbw", "min-max%", "#wrong", "status"}));
  // 1 GiB of floats: 268435456 elements; all-gather has no reduction, broadcast a root.
  EXPECT_TRUE(apart(line_with_all(text, {"nccl-allreduce", " 1048576 "}),
                    {"nccl-allreduce", "all", "1048576", "262144", "float", "sum", "-1"}));
  EXPECT_TRUE(apart(line_with_all(text, {"nccl-allgather", "1073741824"}),
                    {"nccl-allgather", "all", "1073741824", "268435456", "float", "none", "-1"}));
  EXPECT_TRUE(apart(line_with_all(text, {"nccl-broadcast", "1073741824"}),
                    {"nccl-broadcast", "1073741824", "268435456", "float", "none", "0"}));
  EXPECT_TRUE(apart(line_with(text, "  ce-write"), {"ce-write", "0->1", "1048576", "-", "-"}));
  EXPECT_TRUE(apart(line_with(text, "nccl-sendrecv-bidir"), {"nccl-sendrecv-bidir", "0->1"}));
  EXPECT_NE(text.find("# Out of bounds values : 0 OK\n"), std::string::npos);
  // The average over the sizes of the busbw medians, as nccl-tests averages its lines.
  double sum = 0;
  int n = 0;
  for (const auto& r : d.results) {
    if (r.method == "nccl-allreduce" && r.busbw_gbps) sum += r.busbw_gbps->median, ++n;
  }
  ASSERT_GT(n, 1);
  EXPECT_NE(text.find("# Avg bus bandwidth    : " + format_fixed(sum / n, 4) +
                      "  (nccl-allreduce (float/sum), GB/s, " + std::to_string(n) + " sizes)"),
            std::string::npos)
      << text.substr(text.find("# Out of bounds"));
}

// Issue 18: -C puts the host's CPU time per operation beside the GPU time, and -a is named.
TEST(LiveTable, CpuTimeColumnAndTheRankTimeChosen) {
  RunDocument d = example_run("h200x2-default.json");
  Result r = d.results.front();
  r.enqueue = EnqueueInfo{};
  r.enqueue->host_us_per_op = 1.234;
  std::ostringstream out;
  LiveReporter live(out, 1);
  live.show_cpu_time(true);
  live.header(LiveReporter::rank_time_words(1));
  live.result(d, find_method(d.methods, r.method), r);
  const std::string text = out.str();
  EXPECT_NE(
      text.find("# time: the average of the ranks', median of the samples (nccl-tests' -a 1)"),
      std::string::npos)
      << text;
  EXPECT_TRUE(apart(line_with(text, "# method"), {"time(us)", "cpu(us)", "algbw"})) << text;
  EXPECT_TRUE(apart(line_with(text, "  " + r.method), {format_fixed(r.time_us->median, 2), "1.23"}))
      << text;
  std::ostringstream plain;
  LiveReporter without(plain, 1);
  without.header();
  EXPECT_EQ(plain.str().find("cpu(us)"), std::string::npos);
}

TEST(RelativeLink, FromTheDocumentsFolder) {
  EXPECT_EQ(relative_link("out/plots/bw.png", "out/report.md"), "plots/bw.png");
  EXPECT_EQ(relative_link("out/plots/bw.png", ""), "out/plots/bw.png");
  EXPECT_EQ(relative_link("out/plots/bw.png", "report.md"), "out/plots/bw.png");
  EXPECT_EQ(relative_link("out/plots/bw.png", "docs/r.md"), "../out/plots/bw.png");
  EXPECT_EQ(relative_link("/srv/plots/bw.png", "/srv/reports/r.md"), "../plots/bw.png");
  EXPECT_EQ(relative_link("out/my plots/a(1).png", "out/r.md"), "my%20plots/a%281%29.png");
  EXPECT_EQ(relative_link("./out//plots/x.png", "out/./r.md"), "plots/x.png");
}

// Issue 19.4: a folder of one host's runs is its history, not a fleet of one, and fleet says so.
TEST(FleetHonesty, SeveralRunsOfOneHostAreSaidAndPointToCompare) {
  FleetOptions o;
  o.paths = {std::string(PEERBENCH_SOURCE_DIR) + "/results/examples/"};
  const FleetReport r = build_fleet(o, method_catalog());
  ASSERT_EQ(r.nodes.size(), 1u);
  ASSERT_EQ(r.earlier_runs.count("vm"), 1u);
  EXPECT_EQ(r.earlier_runs.at("vm").size(), 6u);
  for (const auto& f : r.inputs) EXPECT_EQ(f.find("//"), std::string::npos) << f;
  const auto text = make_fleet_reporter(FleetFormat::kText)->render(r, {});
  // The verdict, wrapped to the terminal's width, up to the first section.
  const std::string verdict = test::flat(text.substr(0, text.find("\n\n")));
  EXPECT_NE(verdict.find("6 earlier runs of 1 host not counted (2 of them flagged or incomplete)"),
            std::string::npos)
      << verdict;
  EXPECT_NE(verdict.find("peerbench compare A.json B.json C.json"), std::string::npos);
  // The latest (host copies) shares no case with the others: compare would refuse them (exit
  // 2), so no command is offered (an audit ran the one offered).
  EXPECT_EQ(text.find("vm's history, oldest first"), std::string::npos);
  // Flattened: where the line wraps depends on the length of the checkout's path.
  EXPECT_NE(test::flat(text).find("h200x2-nccl-shm.json (9 flags)"),
            std::string::npos);  // 6 below-expected
  EXPECT_EQ(text.find("//"), std::string::npos);
  // Runs that share cases: the command names those compare can lay side by side, and it runs.
  o.paths = {std::string(PEERBENCH_SOURCE_DIR) + "/tests/fixtures/runs/h200x2/"};
  const FleetReport shared = build_fleet(o, method_catalog());
  const auto t2 = test::flat(make_fleet_reporter(FleetFormat::kText)->render(shared, {}));
  const auto at = t2.find("vm's history, oldest first");
  ASSERT_NE(at, std::string::npos) << t2;
  // The command's files: the words after it that name a run (the text wraps it over lines).
  const std::string line = t2.substr(at, t2.find(" Versions:", at) - at);
  EXPECT_EQ(line.find("topo.json"), std::string::npos) << line;
  std::vector<RunDocument> runs;
  std::vector<std::string> files;
  for (const auto& word : split(line.substr(line.find("peerbench compare ") + 18), ' ')) {
    if (word.size() < 5 || word.substr(word.size() - 5) != ".json") break;
    files.push_back(word);
    runs.push_back(load_run_file(word));
  }
  ASSERT_GE(runs.size(), 2u) << line;
  EXPECT_NO_THROW(build_history(runs, files, {})) << line;
}

}  // namespace
}  // namespace peerbench
