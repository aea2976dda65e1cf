// run's flags as --help lists them: what to measure, how to measure, the output, the launch;
// then three examples.
#include "core/cli/flags.h"

namespace peerbench {
namespace {

// The groups, in the order --help lists them (cxxopts prints a group as " NAME options:").
constexpr const char* kWhat = "What to measure";
constexpr const char* kHow = "How to measure";
constexpr const char* kOutput = "Output";
constexpr const char* kLaunch = "Launch";
constexpr const char* kTesting = "testing";  // not listed

void add_what_flags(cxxopts::Options& o) {
  o.add_options(kWhat)("m,methods",
                       "methods or groups, comma-separated (see --list-methods; nccl-tests' -m "
                       "is agg_iters, which peerbench does not have)",
                       cxxopts::value<std::string>()->default_value("all"))(
      "list-methods", "list the methods and groups, then exit")(
      "pairs", "all | intra-host | inter-host | list like 0-1,2>3 (a-b: both directions)",
      cxxopts::value<std::string>()->default_value("all"))(
      "b,minbytes", "smallest size (K/M/G binary suffixes)",
      cxxopts::value<std::string>()->default_value("1M"))(
      "e,maxbytes", "largest size", cxxopts::value<std::string>()->default_value("1G"))(
      "f,stepfactor", "multiply the size by this (>= 2)",
      cxxopts::value<std::string>()->default_value("4"))(
      "i,stepbytes", "add this to the size instead of multiplying (0: use -f)",
      cxxopts::value<std::string>()->default_value("0"))(
      "d,datatype", "NCCL collectives: element types, comma-separated, or all (nccl-tests' names)",
      cxxopts::value<std::string>()->default_value("float"))(
      "o,op",
      "NCCL reductions, as nccl-tests' -o: sum, prod, min, max, avg, comma-separated, or all "
      "(the results file is -J)",
      cxxopts::value<std::string>()->default_value("sum"))(
      "r,root", "root rank of nccl-broadcast and nccl-reduce",
      cxxopts::value<std::string>()->default_value("0"))("inplace", "run nccl-allreduce in place")(
      "latency-bytes", "transfer size of ce-latency (sm-latency moves 4 bytes)",
      cxxopts::value<std::string>()->default_value("8"));
}

void add_timing_flags(cxxopts::Options& o) {
  o.add_options(kHow)("w,warmup_iters", "untimed iterations before each size",
                      cxxopts::value<std::string>()->default_value("5"))(
      "n,iters", "iterations per timed sample", cxxopts::value<std::string>()->default_value("20"))(
      "s,samples", "timed samples per size (min/median/max over them)",
      cxxopts::value<std::string>()->default_value("5"))(
      "c,check",
      "check the data after every sample: 1 or 0 (nccl-tests' -c N repeats the check N times)",
      cxxopts::value<std::string>()->default_value("1"))(
      "G,cudagraph", "capture the iterations in a CUDA graph and time N replays (0: off)",
      cxxopts::value<std::string>()->default_value("0"))(
      "I,per_iter_timing",
      "1: one more sample with an event after each iteration, for per-iteration p50/p95/p99 "
      "(nccl-tests' -I; its events never time the headline); 0: off",
      cxxopts::value<std::string>()->default_value("1"))(
      "T,timeout", "seconds one sample may take before the watchdog stops the run",
      cxxopts::value<std::string>()->default_value("60"))(
      "latency-iters", "transfers per latency sample",
      cxxopts::value<std::string>()->default_value("200"))(
      "schedule", "serial (one pair at a time) | rounds (disjoint pairs at once)",
      cxxopts::value<std::string>()->default_value("serial"))(
      "staged-chunk", "chunk size of the host-staged pipeline",
      cxxopts::value<std::string>()->default_value("4M"))(
      "staged-slots", "chunks in flight in the host-staged pipeline (2-64)",
      cxxopts::value<std::string>()->default_value("4"));
}

void add_nccl_tests_flags(cxxopts::Options& o) {
  o.add_options(kHow)(
      "a,average",
      "the time of an operation over the ranks: 0 rank 0, 1 average (nccl-tests' default), 2 "
      "minimum, 3 maximum (peerbench's default: the slowest rank)",
      cxxopts::value<std::string>()->default_value("3"))(
      "C,report_cputime", "1: also report the host's CPU time to enqueue one operation",
      cxxopts::value<std::string>()->default_value("0"))(
      "z,blocking",
      "0: back to back behind the start gate; 1: the host waits for each operation and all "
      "ranks meet after it; 2: waits, no meeting (nccl-tests' -z); blocking figures are not judged",
      cxxopts::value<std::string>()->default_value("0"))(
      "R,local_register",
      "NCCL buffer registration: 0 none, 1 ncclCommRegister, 2 symmetric windows "
      "(ncclCommWindowRegister, NCCL 2.27+), as nccl-tests' -R",
      cxxopts::value<std::string>()->default_value("0"))(
      "N,run_cycles",
      "burn-in: repeat the whole suite N times (0 with no --duration: until stopped, SIGINT "
      "ends it cleanly; with --duration: whichever ends first)",
      cxxopts::value<std::string>()->default_value("1"))(
      "duration",
      "burn-in: repeat the suite for this long (90, 90s, 10m, 2h, 1d; above 0, at most a week): "
      "every cycle that starts in it, unless -N ends it first",
      cxxopts::value<std::string>());
}

void add_idle_flags(cxxopts::Options& o) {
  o.add_options(kHow)("confirm",
                      "measure a case that would be flagged (or ran beside another job) again "
                      "this many times at the end, after an idle check; 0: off",
                      cxxopts::value<std::string>()->default_value("1"))(
      "require-idle", "refuse to start while another process uses a GPU of the job")(
      "wait-idle", "wait up to SECONDS for the job's GPUs to be idle before starting",
      cxxopts::value<std::string>())(
      "allow-busy", "with --expect (which requires idle GPUs): start on busy GPUs anyway");
}

void add_output_flags(cxxopts::Options& o) {
  o.add_options(kOutput)("J,json", "results file (default: results/peerbench-HOST-TIME.json)",
                         cxxopts::value<std::string>())(
      "expect", std::string("the bars to judge by, ") + kExpectFileShape,
      cxxopts::value<std::string>())(
      "fail-on",
      "what makes the exit code 1: all | none | comma-separated flag codes and/or incomplete, "
      "contended, throttled, noisy; not-judged only where named (as report --fail-on)",
      cxxopts::value<std::string>()->default_value("all"))(
      "q,quiet", "print only the summary (of a dry run: the plan's totals)")(
      "v,verbose", "print every sample")("h,help", "this help")("version", "print the version");
}

void add_launch_flags(cxxopts::Options& o) {
  o.add_options(kLaunch)("dry-run", "print the plan and its estimated time; touch no GPU")(
      "np", "without a launcher: ranks to start (default: all local GPUs)",
      cxxopts::value<std::string>())(
      "allow-gpu-sharing", "let ranks share a GPU (testing the tool on one GPU; measures no link)")(
      "t,nthreads", "refused: peerbench runs one rank per GPU (nccl-tests' threads per process)",
      cxxopts::value<std::string>())(
      "g,ngpus", "refused: peerbench runs one rank per GPU (nccl-tests' GPUs per thread)",
      cxxopts::value<std::string>());
  o.add_options(kTesting)("inject-fault", "KIND:METHOD[:RANK[:CYCLE]] (testing)",
                          cxxopts::value<std::string>());
}

// Three command lines that cover most uses, after the flags; each described on its own line, so
// the help stays within 80 columns.
constexpr const char* kRunExamples =
    "\nExamples:\n"
    "  peerbench\n"
    "      every method on every pair of this host's GPUs (one GPU: its host link)\n"
    "  peerbench run -m ce-write,h2d -e 256M -J out/run.json\n"
    "      two methods, sizes up to 256 MiB, the results in out/run.json\n"
    "  mpirun -np 8 peerbench run --expect site.json\n"
    "      acceptance: exit code 0 only when every bar of site.json is met\n";

}  // namespace

void add_run_options(cxxopts::Options& o) {
  add_what_flags(o);
  add_timing_flags(o);
  add_nccl_tests_flags(o);
  add_idle_flags(o);
  add_output_flags(o);
  add_launch_flags(o);
}

std::string run_help(const cxxopts::Options& o) {
  std::string text = o.help({kWhat, kHow, kOutput, kLaunch});
  // " What to measure options:" as "What to measure:"
  for (const char* g : {kWhat, kHow, kOutput, kLaunch}) {
    const std::string from = std::string(" ") + g + " options:", to = std::string(g) + ":";
    if (const auto at = text.find(from); at != std::string::npos) text.replace(at, from.size(), to);
  }
  return text + kRunExamples;
}

}  // namespace peerbench
