// Issue 39, the command line: `help [COMMAND]`, "did you mean" for every fixed set of words, run's
// --help in four groups with examples, the --expect file's shape, -o read as an output file, and
// the one-rank fit of the default job.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/base/errors.h"
#include "core/cli/command_line.h"
#include "core/cli/flags.h"
#include "core/cli/suggest.h"
#include "core/judge/verdict.h"
#include "core/model/method_catalog.h"
#include "test_command_line.h"
#include "test_text.h"

namespace peerbench {
namespace {

using test::command_line_of;
using test::contains;
using test::usage_error_of;

TEST(Suggest, OneMeasureForEveryWord) {
  EXPECT_EQ(edit_distance("ce-wrtie", "ce-write"), 1u) << "a swap is one edit";
  EXPECT_EQ(edit_distance("htlm", "html"), 1u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(nearest_word("ce-wrtie", {"ce-read", "ce-write", "sm-write"}), "ce-write");
  EXPECT_EQ(nearest_word("colour", {"format", "output"}), "") << "another word, not a typo";
  EXPECT_EQ(nearest_word("md", {"csv"}), "");
  EXPECT_EQ(nearest_word("html", {"html", "htm"}), "") << "allowed already";
  EXPECT_EQ(did_you_mean("summ", {"sum", "prod"}), "; did you mean sum?");
  EXPECT_EQ(or_list({"a", "b", "c"}), "a, b or c");
}

// "run --dry-run -o run.json" read "-o/--op: unknown value 'run.json'" and never named -J.
TEST(Hints, DashOWithAFileNameSaysItIsTheReductionAndNamesDashJ) {
  for (const char* v : {"run.json", "out/r.html", "report.csv", "-", "results"}) {
    const std::string e = usage_error_of({"run", "--dry-run", "-o", v});
    EXPECT_EQ(e.rfind("-o/--op: ", 0), 0u) << e;
    EXPECT_TRUE(contains(e, "-o is the reduction op")) << e;
    EXPECT_TRUE(contains(e, "as in nccl-tests (sum, prod, min, max, avg or all)")) << e;
    EXPECT_TRUE(contains(e, "results are written with -J PATH")) << e;
  }
  EXPECT_TRUE(contains(usage_error_of({"run", "-o", "sum,prd"}), "did you mean prod?"));
  EXPECT_EQ(usage_error_of({"run", "-o", "sum,max"}), "");
}

TEST(Hints, DidYouMeanForMethodsFlagsFormatsAndCommands) {
  EXPECT_EQ(usage_error_of({"run", "-m", "ce-wrtie", "--dry-run"}),
            "-m/--methods: unknown method 'ce-wrtie'; did you mean ce-write? (peerbench "
            "--list-methods lists the methods and groups)");
  EXPECT_TRUE(contains(usage_error_of({"run", "-m", "h2d,nccl-allreduse"}),
                       "did you mean nccl-allreduce?"));
  EXPECT_TRUE(contains(usage_error_of({"-m", "hots"}), "did you mean host?")) << "groups too";
  // Far from every name: the list, as before.
  EXPECT_TRUE(contains(usage_error_of({"-m", "frobnicate"}), "allowed: ce-write"));
  EXPECT_TRUE(contains(usage_error_of({"run", "--dry-rn"}),
                       "unknown flag --dry-rn; did you mean --dry-run?"));
  EXPECT_TRUE(
      contains(usage_error_of({"report", "a.json", "--format", "htlm"}), "did you mean html?"));
  EXPECT_TRUE(contains(usage_error_of({"compare", "a.json", "b.json", "--format", "markdwon"}),
                       "did you mean markdown?"));
  EXPECT_TRUE(
      contains(usage_error_of({"fleet", "dir", "--format", "junti"}), "did you mean junit?"));
  EXPECT_TRUE(contains(usage_error_of({"fleet", "dir", "--format=opnemetrics"}),
                       "did you mean openmetrics?"));
  EXPECT_EQ(usage_error_of({"reprot", "a.json"}),
            "unknown command 'reprot'; did you mean report? (run, topo, report, compare, fleet, "
            "import, doctor or help)");
  EXPECT_EQ(usage_error_of({"frobnicate"}),
            "unknown command 'frobnicate'; use run, topo, report, compare, fleet, import, doctor "
            "or help");
}

TEST(Help, HelpAndHelpCommandAreTheHelpTexts) {
  const auto top = command_line_of({"help"});
  EXPECT_EQ(top.command, Command::kHelp);
  EXPECT_EQ(top.help_text, command_line_of({"--help"}).help_text);
  EXPECT_TRUE(contains(top.help_text, "peerbench help [COMMAND]"));
  for (const char* c : {"run", "topo", "report", "compare", "fleet", "doctor"}) {
    const auto h = command_line_of({"help", c});
    EXPECT_EQ(h.command, Command::kHelp) << c;
    EXPECT_EQ(h.help_text, command_line_of({c, "--help"}).help_text) << c;
  }
  EXPECT_EQ(command_line_of({"help", "--help"}).help_text.rfind("peerbench help: ", 0), 0u);
  EXPECT_EQ(usage_error_of({"help", "bogus"}),
            "help: unknown command 'bogus'; use run, topo, report, compare, fleet, import, doctor "
            "or help");
  EXPECT_TRUE(contains(usage_error_of({"help", "reprot"}), "did you mean report?"));
  EXPECT_TRUE(contains(usage_error_of({"help", "run", "report"}), "help: takes one command"));
}

// run --help: what to measure, how, the output, the launch (--np and --dry-run sat under "output
// options"), then three examples.
TEST(Help, RunHelpIsGroupedAndEndsWithThreeExamples) {
  const std::string h = command_line_of({"run", "--help"}).help_text;
  std::vector<std::size_t> at;
  for (const char* g : {"\nWhat to measure:\n", "\nHow to measure:\n", "\nOutput:\n", "\nLaunch:\n",
                        "\nExamples:\n"}) {
    at.push_back(h.find(g));
    EXPECT_NE(at.back(), std::string::npos) << g << " missing from\n" << h;
  }
  EXPECT_TRUE(std::is_sorted(at.begin(), at.end()));
  EXPECT_FALSE(contains(h, " options:")) << "cxxopts' group headings are renamed";
  const auto launch = at[3];
  for (const char* f : {"--np arg", "--dry-run", "--allow-gpu-sharing"})
    EXPECT_GT(h.find(f), launch) << f;
  for (const char* f : {"--methods arg", "--minbytes arg", "--op arg", "--pairs arg"})
    EXPECT_LT(h.find(f), at[1]) << f;
  for (const char* f : {"--json arg", "--expect arg", "--quiet"}) {
    EXPECT_GT(h.find(f), at[2]) << f;
    EXPECT_LT(h.find(f), launch) << f;
  }
  EXPECT_FALSE(contains(h, "inject-fault")) << "testing only";
  int examples = 0;
  for (auto p = h.find("\n  ", at[4]); p != std::string::npos; p = h.find("\n  ", p + 1)) {
    if (h.compare(p + 3, 4, "    ") != 0) ++examples;  // not a description line
  }
  EXPECT_EQ(examples, 3) << h.substr(at[4]);
}

// The --expect help said "(see README)": it gives the file's shape, with keys the reader accepts.
TEST(Help, ExpectHelpStatesTheFilesShapeInKeysTheReaderAccepts) {
  for (const char* c : {"run", "report"})
    EXPECT_FALSE(contains(command_line_of({c, "--help"}).help_text, "see README")) << c;
  const std::string shape = kExpectFileShape;
  const auto open = shape.find('{');
  const auto dots = shape.rfind(", ...}");
  ASSERT_NE(open, std::string::npos);
  ASSERT_NE(dots, std::string::npos);
  const auto example = nlohmann::json::parse(shape.substr(open, dots - open) + "}");
  EXPECT_GE(example.size(), 4u);
  EXPECT_NO_THROW(expectations_from_json(example, "--expect help", method_catalog()))
      << example.dump();
  // The same file with a key misspelt is refused: the check above is the real one.
  auto typo = example;
  typo["min_gbsp"] = typo["min_gbps"];
  EXPECT_THROW(expectations_from_json(typo, "--expect help", method_catalog()), InputError);
  const std::string help = command_line_of({"run", "--help"}).help_text;
  EXPECT_TRUE(contains(help, "\"min_gbps\"")) << help;
}

// The flags given are recorded for the checks that wait for the rank count.
TEST(RankFit, FlagsGivenAreCheckedAgainstTheMethodsLeft) {
  auto o = command_line_of({"run", "--dry-run", "-b", "2M"}).run;
  EXPECT_FALSE(o.methods_given);
  EXPECT_TRUE(o.given("minbytes"));
  EXPECT_TRUE(o.given("dry-run"));
  EXPECT_FALSE(o.given("datatype"));
  const std::string note = fit_run_to_ranks(o, 1, method_catalog(), "1 GPU on this host");
  EXPECT_EQ(o.methods, (std::vector<std::string>{"h2d", "d2h"}));
  EXPECT_TRUE(contains(note, "1 GPU on this host: pair methods")) << note;
  // -d applies to the collectives alone: on one GPU it would be dropped without a word.
  auto d = command_line_of({"run", "-d", "double"}).run;
  try {
    fit_run_to_ranks(d, 1, method_catalog(), "1 GPU on this host");
    FAIL() << "-d double accepted for h2d and d2h";
  } catch (const UsageError& e) {
    EXPECT_EQ(
        std::string(e.what()).rfind("-d/--datatype: none of the methods selected (h2d,d2h)", 0), 0u)
        << e.what();
    EXPECT_TRUE(contains(e.what(), "1 GPU on this host")) << e.what();
  }
  auto named = command_line_of({"run", "-m", "ce-write"}).run;
  EXPECT_TRUE(named.methods_given);
  EXPECT_EQ(fit_run_to_ranks(named, 1, method_catalog(), "--np 1"), "");
  EXPECT_EQ(named.methods, (std::vector<std::string>{"ce-write"}));
}

}  // namespace
}  // namespace peerbench
