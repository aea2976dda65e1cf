#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/base/errors.h"
#include "core/cli/command_line.h"
#include "core/model/method_catalog.h"
#include "core/model/sizes.h"
#include "test_command_line.h"
#include "test_time.h"

namespace peerbench {
namespace {

using test::command_line_of;
using test::usage_error_of;

TEST(Options, DefaultsAreTheDocumentedOnes) {
  const auto cl = command_line_of({});
  EXPECT_EQ(cl.command, Command::kRun);
  const auto& o = cl.run;
  EXPECT_EQ(o.sweep.min_bytes, 1u << 20);
  EXPECT_EQ(o.sweep.max_bytes, 1u << 30);
  EXPECT_EQ(o.sweep.step_factor, 4u);
  EXPECT_EQ(o.warmup_iters, 5);
  EXPECT_EQ(o.iters, 20);
  EXPECT_EQ(o.samples, 5);
  EXPECT_TRUE(o.check);
  EXPECT_EQ(o.methods.size(), method_catalog().size());
  EXPECT_EQ(o.schedule, Schedule::kSerial);
  EXPECT_FALSE(o.json_path_given);
}

TEST(Options, NcclTestsFlagsParse) {
  const auto o = command_line_of({"run", "-b", "8",    "-e",         "8G",     "-f", "2",
                                  "-w",  "3",  "-n",   "10",         "-c",     "0",  "-G",
                                  "20",  "-m", "nccl", "--schedule", "rounds", "-J", "x.json"})
                     .run;
  EXPECT_EQ(o.sweep.min_bytes, 8u);
  EXPECT_EQ(o.sweep.max_bytes, 8ull << 30);
  EXPECT_EQ(o.sweep.step_factor, 2u);
  EXPECT_EQ(o.warmup_iters, 3);
  EXPECT_EQ(o.iters, 10);
  EXPECT_FALSE(o.check);
  EXPECT_EQ(o.cudagraph_replays, 20);
  EXPECT_EQ(o.methods,
            (std::vector<std::string>{"nccl-sendrecv", "nccl-sendrecv-bidir", "nccl-allreduce",
                                      "nccl-allgather", "nccl-reducescatter", "nccl-broadcast",
                                      "nccl-reduce", "nccl-alltoall", "nccl-sendrecv-ring"}));
  EXPECT_EQ(o.schedule, Schedule::kRounds);
  EXPECT_EQ(o.json_path, "x.json");
}

struct BadCase {
  std::vector<std::string> args;
  std::string must_mention;
};

TEST(Options, EveryBadValueIsOneLineNamingTheFlag) {
  const std::vector<BadCase> cases = {
      {{"-b", "0"}, "-b/--minbytes"},
      {{"-b", "12X"}, "-b/--minbytes"},
      {{"-e", "-3"}, "maxbytes"},
      {{"-b", "1G", "-e", "1M"}, "larger than -e/--maxbytes"},
      {{"-f", "1"}, "-f/--stepfactor"},
      {{"-f", "x"}, "-f/--stepfactor"},
      {{"-i", "abc"}, "-i/--stepbytes"},
      {{"-w", "-1"}, "warmup_iters"},
      {{"-n", "0"}, "-n/--iters"},
      {{"-n", "many"}, "-n/--iters"},
      {{"-s", "0"}, "-s/--samples"},
      {{"-c", "2"}, "-c/--check"},
      {{"-G", "-1"}, "cudagraph"},
      {{"-m", "ce-writ"}, "unknown method 'ce-writ'"},
      {{"-m", ""}, "-m/--methods"},
      {{"-m", "ce-write,,sm-read"}, "empty name"},
      {{"--timeout", "0"}, "--timeout"},
      {{"--timeout", "soon"}, "--timeout"},
      {{"--schedule", "random"}, "--schedule"},
      {{"--pairs", "0-0"}, "--pairs"},
      {{"--pairs", "0:1"}, "--pairs"},
      {{"--pairs", "a-b"}, "--pairs"},
      {{"--latency-bytes", "2M"}, "--latency-bytes"},
      {{"--latency-iters", "0"}, "--latency-iters"},
      {{"--staged-chunk", "1K"}, "--staged-chunk"},
      {{"--staged-slots", "1"}, "--staged-slots"},
      {{"--np", "0"}, "--np"},
      {{"-q", "-v"}, "-q/--quiet"},
      {{"--bogus"}, "bogus"},
      {{"stray"}, "unknown command 'stray'"},
      {{"run", "stray"}, "unexpected argument 'stray'"},
      {{"-J", ""}, "-J/--json"},
      {{"--inject-fault", "melt:ce-write"}, "--inject-fault"},
      {{"--inject-fault", "corrupt:nope"}, "--inject-fault"},
      {{"report"}, "report"},
      {{"report", "a.json", "--format", "pdf"}, "--format"},
      {{"report", "a.json", "--fail-on", "slow"}, "--fail-on"},
      {{"compare", "a.json"}, "two or more"},
      {{"compare", "a.json", "b.json", "--threshold", "-1"}, "--threshold"},
      {{"compare", "a.json", "b.json", "--match", "serial"}, "--match"},
      {{"compare", "a.json", "b.json", "--format", "junit"}, "--format"},
      {{"topo", "extra"}, "unexpected argument"},
  };
  for (const auto& c : cases) {
    try {
      command_line_of(c.args);
      std::string joined;
      for (const auto& a : c.args) joined += a + " ";
      ADD_FAILURE() << "accepted: " << joined;
    } catch (const UsageError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(c.must_mention), std::string::npos)
          << "message '" << m << "' lacks '" << c.must_mention << "'";
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
  }
}

// From an audit: a flag given twice kept its last value, so `-m ce-write -m sm-write` measured
// sm-write alone and `report --expect site.json --expect other.json` dropped the site's bars,
// each with exit 0. Two values are refused; the same value twice and a switch twice pass.
TEST(Options, AFlagGivenTwiceWithTwoValuesIsRefused) {
  EXPECT_EQ(usage_error_of({"run", "-m", "ce-write", "-m", "sm-write"}),
            "--methods: given twice ('ce-write', then 'sm-write'); give it once (its values "
            "comma-separated: --methods a,b)");
  EXPECT_EQ(usage_error_of({"run", "-T", "5", "--timeout", "7"}),
            "--timeout: given twice ('5', then '7'); give it once");
  EXPECT_NE(usage_error_of({"run", "-N", "3", "--duration", "1h", "-N", "5"}).find("--run_cycles"),
            std::string::npos);
  EXPECT_NE(usage_error_of({"report", "a.json", "--expect", "x.json", "--expect", "y.json"})
                .find("--expect: given twice"),
            std::string::npos);
  EXPECT_NE(usage_error_of(
                {"fleet", "a.json", "--write-baseline", "x.json", "--write-baseline", "y.json"})
                .find("--write-baseline: given twice"),
            std::string::npos);
  EXPECT_EQ(usage_error_of({"run", "-N", "3", "-N", "3"}), "");
  EXPECT_EQ(usage_error_of({"run", "-v", "-v"}), "");
  EXPECT_EQ(usage_error_of({"report", "a.json", "b.json", "c.json"}), "");
}

TEST(Options, MethodGroupsExpandInCatalogOrder) {
  EXPECT_EQ(command_line_of({"-m", "latency"}).run.methods,
            (std::vector<std::string>{"ce-latency", "sm-latency"}));
  EXPECT_EQ(command_line_of({"-m", "sm-read,ce-write,ce-write"}).run.methods,
            (std::vector<std::string>{"ce-write", "sm-read"}));
  EXPECT_EQ(command_line_of({"-m", "bidir"}).run.methods,
            (std::vector<std::string>{"ce-bidir", "sm-bidir", "nccl-sendrecv-bidir"}));
  EXPECT_EQ(command_line_of({"-m", "p2p"}).run.methods.size(), 8u);
}

TEST(Options, PairFilters) {
  EXPECT_EQ(parse_pair_filter("all").kind, PairFilter::Kind::kAll);
  EXPECT_EQ(parse_pair_filter("intra-host").kind, PairFilter::Kind::kIntraHost);
  EXPECT_EQ(parse_pair_filter("inter-host").kind, PairFilter::Kind::kInterHost);
  const auto f = parse_pair_filter("0-1,2>3,1-0");
  EXPECT_EQ(f.kind, PairFilter::Kind::kExplicit);
  EXPECT_EQ(f.pairs, (std::vector<std::pair<int, int>>{{0, 1}, {1, 0}, {2, 3}}));
}

TEST(Options, SubcommandsAndInfoFlags) {
  EXPECT_EQ(command_line_of({"--help"}).command, Command::kHelp);
  EXPECT_EQ(command_line_of({"run", "--help"}).command, Command::kHelp);
  EXPECT_EQ(command_line_of({"--version"}).command, Command::kVersion);
  EXPECT_EQ(command_line_of({"--list-methods"}).command, Command::kListMethods);
  const auto r = command_line_of({"report", "a.json", "b.json", "--format", "html", "-o", "r.html",
                                  "--fail-on", "nccl-shm,below-link"});
  EXPECT_EQ(r.command, Command::kReport);
  EXPECT_EQ(r.report.inputs, (std::vector<std::string>{"a.json", "b.json"}));
  EXPECT_EQ(r.report.format, ReportFormat::kHtml);
  EXPECT_EQ(r.report.output_path, "r.html");
  const auto c = command_line_of({"compare", "a.json", "b.json", "--threshold", "3"});
  EXPECT_EQ(c.command, Command::kCompare);
  EXPECT_DOUBLE_EQ(c.compare.threshold, 0.03);
  const auto t = command_line_of({"topo", "--json", "t.json"});
  EXPECT_EQ(t.command, Command::kTopo);
  EXPECT_EQ(t.topo.json_path, "t.json");
}

TEST(Options, TopLevelHelpListsTheCommandsAndEachHasItsOwn) {
  const auto top = command_line_of({"--help"}).help_text;
  for (const char* c : {"peerbench [run] [options]", "peerbench topo", "peerbench report",
                        "peerbench compare", "peerbench COMMAND --help"}) {
    EXPECT_NE(top.find(c), std::string::npos) << c << " missing from:\n" << top;
  }
  EXPECT_EQ(top.find("--maxbytes"), std::string::npos) << "run's options belong to run --help";
  EXPECT_EQ(command_line_of({"-b", "1M", "-h"}).help_text, top);
  const auto run = command_line_of({"run", "--help"}).help_text;
  EXPECT_NE(run.find("--maxbytes"), std::string::npos);
  EXPECT_EQ(run.find("peerbench run: measure every pair"), 0u) << run.substr(0, 100);
  EXPECT_NE(command_line_of({"report", "--help"}).help_text.find("--fail-on"), std::string::npos);
}

TEST(Options, ConfigJsonRecordsWhatRan) {
  const auto o =
      command_line_of({"-b", "1K", "-e", "4K", "-f", "2", "--inject-fault", "corrupt:ce-write:1"})
          .run;
  const auto j = run_options_to_json(o);
  EXPECT_EQ(j["sizes"].size(), 3u);
  EXPECT_EQ(j["fault_injection"]["kind"], "corrupt");
  EXPECT_EQ(j["fault_injection"]["rank"], 1);
}

// ---- Issue 12: bounded work for any command line.

TEST(Options, HugeSweepsAreRefusedNamingTheStepFlag) {
  const test::CpuStopwatch cpu;
  const std::string e = usage_error_of({"run", "--dry-run", "-b", "1", "-e", "1T", "-i", "1"});
  EXPECT_LT(cpu.seconds(), test::time_bound(1.0));
  EXPECT_NE(e.find("-i/--stepbytes"), std::string::npos) << e;
  EXPECT_NE(e.find(std::to_string(kMaxSweepSizes)), std::string::npos) << e;
  EXPECT_NE(usage_error_of({"-b", "1", "-e", "2K", "-i", "1"}), "");    // 2048 sizes
  EXPECT_EQ(usage_error_of({"-b", "1K", "-e", "1M", "-i", "1K"}), "");  // 1024 sizes: the limit
  EXPECT_THROW(make_sweep({1, 1ull << 40, 0, 1}), UsageError);
}

TEST(Options, IntegersBeyondLongLongAreUsageErrors) {
  EXPECT_THROW(parse_integer("9999999999999999999", "-n", 1, 100), UsageError);
  EXPECT_THROW(parse_integer("-99999999999999999999999", "-n", 1, 100), UsageError);
  EXPECT_NE(usage_error_of({"-n", "99999999999999999999"}).find("-n/--iters"), std::string::npos);
}

TEST(Options, NpIsBoundedForDryRuns) {
  EXPECT_EQ(usage_error_of({"--dry-run", "--np", "1024"}), "");
  EXPECT_NE(usage_error_of({"--dry-run", "--np", "4096"}).find("--np"), std::string::npos);
}

TEST(Options, EmptyOutputPathsAreRefused) {
  EXPECT_NE(usage_error_of({"report", "r.json", "-o", ""}).find("-o/--output"), std::string::npos);
  EXPECT_NE(usage_error_of({"compare", "a.json", "b.json", "-o", ""}).find("-o/--output"),
            std::string::npos);
  EXPECT_NE(usage_error_of({"topo", "--json", ""}).find("--json"), std::string::npos);
  EXPECT_NE(usage_error_of({"run", "--expect", ""}).find("--expect"), std::string::npos);
  EXPECT_NE(usage_error_of({"run", "-J", ""}).find("-J/--json"), std::string::npos);
}

// strtod would take these; a person never means them as a number of seconds or a percent.
TEST(Options, NumbersArePlainDecimal) {
  for (const char* bad : {"0x1p-3", "0X10", "inf", "nan", " 5", "5 ", "1e", ".", "+-1"}) {
    EXPECT_NE(usage_error_of({"--timeout", bad}).find("--timeout"), std::string::npos) << bad;
    EXPECT_NE(
        usage_error_of({"compare", "a.json", "b.json", "--threshold", bad}).find("--threshold"),
        std::string::npos)
        << bad;
  }
  EXPECT_DOUBLE_EQ(command_line_of({"--timeout", ".5"}).run.timeout_s, 0.5);
  EXPECT_DOUBLE_EQ(command_line_of({"--timeout", "5."}).run.timeout_s, 5);
  EXPECT_DOUBLE_EQ(command_line_of({"--timeout", "1e1"}).run.timeout_s, 10);
  EXPECT_DOUBLE_EQ(command_line_of({"--timeout", "+2"}).run.timeout_s, 2);
}

// "-o=x" gives the short option the value "=x": refused rather than writing a file "=x".
TEST(Options, ShortOptionWithEqualsIsNamed) {
  const std::string e = usage_error_of({"report", "r.json", "-o=out.txt"});
  EXPECT_NE(e.find("-o/--output"), std::string::npos) << e;
  EXPECT_NE(e.find("'=out.txt'"), std::string::npos) << e;
  EXPECT_NE(usage_error_of({"-J=r.json"}).find("-J/--json"), std::string::npos);
  EXPECT_NE(usage_error_of({"fleet", "r", "-o=x"}).find("-o/--output"), std::string::npos);
  EXPECT_EQ(command_line_of({"report", "r.json", "-o", "./=x"}).report.output_path, "./=x");
}

TEST(Options, SwitchGivenAValueIsNamed) {
  const std::string e = usage_error_of({"--inplace=yes"});
  EXPECT_NE(e.find("--inplace: takes no value (got 'yes')"), std::string::npos) << e;
  EXPECT_EQ(e.find('\a'), std::string::npos);
  EXPECT_EQ(usage_error_of({"--allow-busy=\ax"}).find('\a'), std::string::npos);
}

TEST(Options, TimeoutIsBoundedAndTheErrorSaysTheBounds) {
  for (const char* bad : {"1e308", "1e-300", "0.01", "86401"}) {
    const std::string e = usage_error_of({"--timeout", bad});
    EXPECT_NE(e.find("--timeout"), std::string::npos) << bad;
    EXPECT_NE(e.find("0.1"), std::string::npos) << e;
    EXPECT_NE(e.find("86400"), std::string::npos) << e;
  }
  EXPECT_DOUBLE_EQ(command_line_of({"--timeout", "0.1"}).run.timeout_s, 0.1);
  EXPECT_DOUBLE_EQ(command_line_of({"--timeout", "86400"}).run.timeout_s, 86400);
}

}  // namespace
}  // namespace peerbench

namespace peerbench {
namespace {

// Issue 18: nccl-tests' language where it means something, refused with one line where it
// does not (peerbench runs one rank per GPU).
TEST(NcclTestsLanguage, FlagsParseAndRecord) {
  const auto cl = command_line_of({"run", "-a", "1", "-C", "1", "-z", "2", "-R", "2", "-T", "7"});
  EXPECT_EQ(cl.run.average, 1);
  EXPECT_TRUE(cl.run.report_cputime);
  EXPECT_EQ(cl.run.blocking, 2);
  EXPECT_EQ(cl.run.register_buffers, 2);
  EXPECT_DOUBLE_EQ(cl.run.timeout_s, 7);
  const auto j = run_options_to_json(cl.run);
  EXPECT_EQ(j["average"], 1);
  EXPECT_EQ(j["local_register"], 2);
  EXPECT_EQ(j["blocking"], 2);
  const auto d = command_line_of({"run"}).run;
  EXPECT_EQ(d.average, 3) << "peerbench's default: the slowest rank";
  EXPECT_EQ(d.register_buffers, 0);
}

// --duration alone repeats the suite until the time is up; -N with it bounds the cycles as
// well. (--duration 10m once ran one cycle: -N's default of 1 ended it.)
TEST(NcclTestsLanguage, DurationAloneRunsUntilItsTimeIsUp) {
  const auto d = command_line_of({"run", "--duration", "10m"}).run;
  EXPECT_DOUBLE_EQ(d.duration_s, 600);
  EXPECT_EQ(d.cycles, 0) << "no bound on cycles but the duration";
  EXPECT_TRUE(d.burn_in());
  const auto both = command_line_of({"run", "-N", "5", "--duration", "2h"}).run;
  EXPECT_EQ(both.cycles, 5);
  EXPECT_DOUBLE_EQ(both.duration_s, 7200);
  const auto plain = command_line_of({"run"}).run;
  EXPECT_EQ(plain.cycles, 1);
  EXPECT_FALSE(plain.burn_in());
  EXPECT_EQ(command_line_of({"run", "-N", "0"}).run.cycles, 0) << "until stopped";
  // Plain decimals with an optional unit, above 0 and up to a week (--help once offered 0).
  EXPECT_DOUBLE_EQ(command_line_of({"run", "--duration", "1.5h"}).run.duration_s, 5400);
  EXPECT_DOUBLE_EQ(command_line_of({"run", "--duration", "90"}).run.duration_s, 90);
  for (const char* bad : {"0", "0s", "1e2s", "+5m", "0x10", "1.2.3m", ".", "8d", "-1"}) {
    EXPECT_EQ(usage_error_of({"run", "--duration", bad}),
              "--duration: '" + std::string(bad) +
                  "' is not a duration above 0 and up to a week; use seconds, or a number with s, "
                  "m, h or d (10m, 2h)")
        << bad;
  }
}

TEST(NcclTestsLanguage, ThreadsAndGpusPerProcessAreRefused) {
  for (const char* f : {"-t", "--nthreads", "-g", "--ngpus"}) {
    const std::string e = usage_error_of({"run", f, "2"});
    EXPECT_NE(e.find("one rank per GPU"), std::string::npos) << f << ": " << e;
    EXPECT_EQ(e.find('\n'), std::string::npos);
  }
  EXPECT_NE(usage_error_of({"run", "-a", "4"}).find("-a/--average"), std::string::npos);
  EXPECT_NE(usage_error_of({"run", "-R", "3"}).find("-R/--local_register"), std::string::npos);
  EXPECT_NE(usage_error_of({"run", "-z", "-1"}).find("-z/--blocking"), std::string::npos);
}

}  // namespace
}  // namespace peerbench

namespace peerbench {
namespace {

// From an audit: a flag for methods none of which was selected was dropped without a word (-m
// ce-write -d double measured no double; -f 8 beside -i 4M was ignored). Refused, naming the
// methods it applies to; a flag given at its default drops nothing and passes.
TEST(Options, AFlagThatAppliesToNoSelectedMethodIsRefused) {
  const std::string d = usage_error_of({"-m", "ce-write", "-d", "double"});
  EXPECT_EQ(d,
            "-d/--datatype: none of the methods selected (ce-write) takes element types; it "
            "applies to nccl-allreduce, nccl-allgather, nccl-reducescatter, nccl-broadcast, "
            "nccl-reduce, nccl-alltoall, nccl-sendrecv-ring");
  EXPECT_NE(usage_error_of({"-m", "nccl-allgather", "-o", "max"}).find("-o/--op: none of the"),
            std::string::npos);
  EXPECT_NE(usage_error_of({"-m", "ce-write", "-r", "1"})
                .find("it applies to nccl-broadcast, "
                      "nccl-reduce"),
            std::string::npos);
  EXPECT_NE(usage_error_of({"-m", "sm-write", "--inplace"}).find("--inplace: none"),
            std::string::npos);
  EXPECT_NE(usage_error_of({"-m", "ce", "-R", "2"}).find("-R/--local_register: none"),
            std::string::npos);
  EXPECT_NE(usage_error_of({"-m", "ce-write", "--staged-slots", "8"}).find("--staged-slots: none"),
            std::string::npos);
  EXPECT_NE(usage_error_of({"-m", "sm-latency", "--latency-bytes", "64"})
                .find("it applies to ce-latency"),
            std::string::npos);
  EXPECT_EQ(usage_error_of({"-m", "ce-write", "-f", "8", "-i", "4M"}),
            "-f/--stepfactor and -i/--stepbytes: -i adds a step, -f multiplies; give one");
  // A small -i that would make too many sizes is still the conflict first (an audit).
  EXPECT_EQ(usage_error_of({"-f", "2", "-i", "8"}),
            "-f/--stepfactor and -i/--stepbytes: -i adds a step, -f multiplies; give one");
  const auto ok =
      command_line_of({"-m", "ce-write,nccl-allreduce", "-d", "double", "-o", "max", "-R", "0"});
  EXPECT_EQ(ok.run.datatypes, std::vector<DataType>{DataType::kDouble});
  EXPECT_NO_THROW(command_line_of({"-m", "ce-write", "-R", "0", "-d", "float", "-r", "0"}));
  EXPECT_NO_THROW(
      command_line_of({"-m", "latency", "--latency-bytes", "64", "--latency-iters", "50"}));
}

// From a hostile-flags audit: -G on staged alone captured nothing yet labelled the run "-G 5"; -a
// on a one-sided copy combined one rank's time; -b/-n with only the latency methods and --pairs
// with only collectives changed nothing. Each is refused; beside one method it applies to, taken.
TEST(Options, SweepGraphAverageAndPairsFlagsThatApplyToNothingAreRefused) {
  EXPECT_EQ(usage_error_of({"-m", "staged", "-G", "5"}),
            "-G/--cudagraph: none of the methods selected (staged) takes a CUDA graph; it applies "
            "to every method but staged, sm-latency");
  EXPECT_NE(usage_error_of({"-m", "sm-latency", "-G", "2"}).find("-G/--cudagraph: none"),
            std::string::npos);
  EXPECT_NO_THROW(command_line_of({"-m", "staged,ce-write", "-G", "5"}));
  for (const char* m : {"ce-write", "h2d", "ce-latency", "sm-read"}) {
    EXPECT_NE(
        usage_error_of({"-m", m, "-a", "1"}).find("-a/--average: none of the methods selected"),
        std::string::npos)
        << m;
  }
  for (const char* m : {"ce-bidir", "nccl-sendrecv", "nccl-allreduce", "sm-latency", "staged"})
    EXPECT_NO_THROW(command_line_of({"-m", m, "-a", "1"})) << m;
  EXPECT_NO_THROW(command_line_of({"-m", "ce-write", "-a", "3"})) << "the default drops nothing";
  for (const char* f : {"-b", "-e"}) {
    EXPECT_NE(usage_error_of({"-m", "latency", f, "2M"}).find("takes a size sweep"),
              std::string::npos)
        << f;
  }
  EXPECT_NE(usage_error_of({"-m", "ce-latency", "-n", "5000"}).find("--latency-iters"),
            std::string::npos);
  EXPECT_NE(usage_error_of({"-m", "sm-latency", "-f", "8"}).find("-f/--stepfactor: none"),
            std::string::npos);
  EXPECT_NO_THROW(command_line_of({"-m", "latency,ce-write", "-b", "2M", "-n", "50"}));
  const std::string p = usage_error_of({"--np", "4", "-m", "nccl-allreduce", "--pairs", "0>1"});
  EXPECT_NE(p.find("--pairs: none of the methods selected (nccl-allreduce) runs on pairs"),
            std::string::npos)
      << p;
  const std::string host = usage_error_of({"-m", "host", "--pairs", "inter-host"});
  EXPECT_NE(host.find("a list of pairs"), std::string::npos) << host;
  EXPECT_EQ(host.find("collectives"), std::string::npos) << "none were selected: " << host;
  EXPECT_NO_THROW(command_line_of({"-m", "host", "--pairs", "0-1"}));
  EXPECT_NO_THROW(command_line_of({"-m", "nccl-allreduce", "--pairs", "all"}));
}

// -I 1 asked for a per-iteration sample that staged (paced by itself) and -z 1/2 (a wait after
// each operation) never take; both were accepted and dropped (an audit).
TEST(Options, PerIterationSampleAskedWhereNoneIsTakenIsRefused) {
  EXPECT_EQ(usage_error_of({"-m", "staged", "-I", "1"}),
            "-I/--per_iter_timing: none of the methods selected (staged) takes a per-iteration "
            "sample; it applies to every method but staged");
  EXPECT_NO_THROW(command_line_of({"-m", "staged"})) << "the default asks for nothing";
  EXPECT_NO_THROW(command_line_of({"-m", "staged", "-I", "0"}));
  EXPECT_NO_THROW(command_line_of({"-m", "staged,ce-write", "-I", "1"}));
  EXPECT_EQ(usage_error_of({"-m", "ce-write", "-z", "1", "-I", "1"}),
            "-I/--per_iter_timing 1 and -z/--blocking 1: the per-iteration sample runs back to "
            "back behind the start gate (-z 0); give one");
  EXPECT_NE(usage_error_of({"-z", "2", "-I", "1"}).find("-z/--blocking 2"), std::string::npos);
  EXPECT_NO_THROW(command_line_of({"-z", "1"})) << "the default -I with -z";
  EXPECT_NO_THROW(command_line_of({"-z", "2", "-I", "0"}));
}

TEST(Options, VersionAndListMethodsTakeNoWords) {
  EXPECT_EQ(usage_error_of({"--version", "extra"}), "--version: takes no arguments (got 'extra')");
  EXPECT_EQ(usage_error_of({"--list-methods", "ce"}),
            "--list-methods: takes no arguments (got 'ce')");
  EXPECT_EQ(command_line_of({"run", "--version"}).command, Command::kVersion);
}

// --dry-run=false ran a dry run; --inplace=false turned in-place on (an audit): a switch given a
// value, any value, is refused before it acts; -t with no value says why -t is refused.
TEST(Options, ASwitchGivenFalseIsRefusedNotTurnedOn) {
  for (const std::vector<std::string>& a :
       std::vector<std::vector<std::string>>{{"--dry-run=false"},
                                             {"-m", "nccl-allreduce", "--inplace=false"},
                                             {"-q=0"},
                                             {"--help=false"},
                                             {"--version=0"},
                                             {"--list-methods=f"},
                                             {"report", "r.json", "--help=0"},
                                             {"fleet", "r", "--help=false"},
                                             {"topo", "-q=1"}}) {
    const std::string e = usage_error_of(a);
    EXPECT_NE(e.find(": takes no value (got '"), std::string::npos) << a.back() << ": " << e;
  }
  const std::string q = usage_error_of({"-q=false"});
  EXPECT_EQ(q.rfind("-q: takes no value", 0), 0u) << q;
  for (const char* f : {"-t", "-g"}) {
    EXPECT_NE(usage_error_of({f}).find("one rank per GPU"), std::string::npos) << f;
    EXPECT_NE(usage_error_of({f, "-m", "ce-write"}).find("one rank per GPU"), std::string::npos)
        << f;
  }
}

// "all,none" read "unknown flag or state 'all'; use all, none or: ..." (an audit).
TEST(Options, AllAndNoneStandAloneInFailOn) {
  EXPECT_EQ(usage_error_of({"report", "a.json", "--fail-on", "all,none"})
                .rfind("--fail-on: 'all' stands alone (or with not-judged); give it by itself, "
                       "or a list of: ",
                       0),
            0u);
  EXPECT_NE(
      usage_error_of({"report", "a.json", "--fail-on", "nccl-shm,none"}).find("'none' stands"),
      std::string::npos);
  // An empty item is named as such ("all," read "'all' stands alone"; a hostile audit).
  EXPECT_EQ(
      usage_error_of({"report", "a.json", "--fail-on", "all,"})
          .rfind(
              "--fail-on: an empty item in 'all,'; give all, none or a comma-separated list of: ",
              0),
      0u);
  // The opt-in state goes with all, or alone.
  EXPECT_EQ(usage_error_of({"report", "a.json", "--fail-on", "all,not-judged"}), "");
  EXPECT_EQ(usage_error_of({"report", "a.json", "--fail-on", "not-judged"}), "");
  EXPECT_NE(usage_error_of({"report", "a.json", "--fail-on", "all,nccl-shm"}).find("'all' stands"),
            std::string::npos);
}

// From an audit: a misspelt flag read "peerbench: error: peerbench run: Option 'minbyte' does not
// exist": the program named twice, cxxopts' words, and no way on.
TEST(Options, AnUnknownFlagIsNamedWithTheNearestOne) {
  EXPECT_EQ(usage_error_of({"run", "--minbyte", "1M"}),
            "run: unknown flag --minbyte; did you mean --minbytes? (peerbench run --help lists "
            "its flags)");
  EXPECT_EQ(usage_error_of({"report", "a.json", "--fail_on", "all"}),
            "report: unknown flag --fail_on; did you mean --fail-on? (peerbench report --help "
            "lists its flags)");
  EXPECT_EQ(usage_error_of({"compare", "a.json", "b.json", "--colour"}),
            "compare: unknown flag --colour (peerbench compare --help lists its flags)");
  EXPECT_EQ(usage_error_of({"run", "-Q"}),
            "run: unknown flag -Q (peerbench run --help lists its flags)");
}

// cxxopts' "Option 'b' is missing an argument" and "Argument '---x' starts with a - but has
// incorrect syntax" read as cxxopts' words: the flag's long name and its help say what it takes.
TEST(Options, AFlagWithoutItsValueSaysWhatItTakes) {
  EXPECT_EQ(usage_error_of({"run", "-b"}),
            "run: -b (--minbytes) needs a value: smallest size (K/M/G binary suffixes) (default: "
            "1M)");
  EXPECT_EQ(usage_error_of({"compare", "a.json", "b.json", "--threshold"}),
            "compare: --threshold needs a value: relative change to flag, in percent (default: 5)");
  // A description cxxopts wrapped onto further lines is whole.
  const auto wrapped = usage_error_of({"fleet", "dir", "--hosts"});
  EXPECT_EQ(wrapped.find('\n'), std::string::npos) << wrapped;
  EXPECT_NE(wrapped.find("--hosts needs a value: expected nodes, one name per line: absent ones "
                         "are listed as missing"),
            std::string::npos)
      << wrapped;
  // A description wrapped onto a line that starts with "-" is whole too.
  EXPECT_NE(usage_error_of({"run", "-i"}).find("(0: use -f)"), std::string::npos)
      << usage_error_of({"run", "-i"});
  EXPECT_NE(usage_error_of({"run", "--b"}).find("a one-letter flag takes one dash (-b)"),
            std::string::npos);
  EXPECT_EQ(usage_error_of({"run", "---x"}),
            "run: '---x' is not a flag: a flag is -x or --name (peerbench run --help lists its "
            "flags)");
}

// From an audit: "fleet DIR -o -q" wrote the report to a file named "-q", exit 0: cxxopts took
// the next flag as -o's value. A value that starts with - is given with "=".
TEST(Options, AFlagIsNotTakenAsTheValueOfTheOneBefore) {
  EXPECT_EQ(usage_error_of({"fleet", "dir", "-o", "-q"}),
            "-o (--output): needs a value; the word after it, '-q', reads as a flag (a value that "
            "starts with -: --output=-q)");
  EXPECT_NE(usage_error_of({"run", "-b", "-e", "1G"}).find("-b (--minbytes): needs a value"),
            std::string::npos);
  EXPECT_NE(usage_error_of({"report", "a.json", "-o", "--format", "html"}).find("'--format'"),
            std::string::npos);
  EXPECT_EQ(usage_error_of({"fleet", "dir", "--output=-q"}), "") << "given with =: a value";
  EXPECT_EQ(usage_error_of({"fleet", "dir", "-o", "./-q"}), "");
  EXPECT_EQ(usage_error_of({"compare", "a", "b", "--threshold", "-5"}).find("reads as a flag"),
            std::string::npos)
      << "a negative number is a value, judged by the flag itself";
}

}  // namespace
}  // namespace peerbench
