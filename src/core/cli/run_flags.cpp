// run's flags: sizes, timing, selection, nccl-tests' options, output, verdicts.
#include <algorithm>
#include <cctype>

#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/cli/flags.h"
#include "core/model/json_in.h"
#include "core/model/sizes.h"

namespace peerbench {
namespace {

FaultInjection parse_fault(const std::string& text) {
  FaultInjection f;
  const auto parts = split(text, ':');
  if (parts.size() < 2 || parts.size() > 4) {
    throw UsageError("--inject-fault: '" + text +
                     "'; use KIND:METHOD[:RANK[:CYCLE]] with KIND one of "
                     "corrupt, hang, die");
  }
  f.kind = parts[0];
  if (f.kind != "corrupt" && f.kind != "hang" && f.kind != "die") {
    throw UsageError("--inject-fault: unknown kind '" + f.kind + "'; use corrupt, hang or die");
  }
  f.method = parts[1];
  if (parts.size() >= 3)
    f.rank = static_cast<int>(parse_integer(parts[2], "--inject-fault rank", 0, 1 << 20));
  if (parts.size() == 4)
    f.cycle = static_cast<int>(parse_integer(parts[3], "--inject-fault cycle", 1, 1 << 20));
  return f;
}

void add_size_flags(cxxopts::Options& o) {
  o.add_options("sizes")("b,minbytes", "smallest size (K/M/G binary suffixes)",
                         cxxopts::value<std::string>()->default_value("1M"))(
      "e,maxbytes", "largest size", cxxopts::value<std::string>()->default_value("1G"))(
      "f,stepfactor", "multiply the size by this (>= 2)",
      cxxopts::value<std::string>()->default_value("4"))(
      "i,stepbytes", "add this to the size instead of multiplying (0: use -f)",
      cxxopts::value<std::string>()->default_value("0"));
}

void add_timing_flags(cxxopts::Options& o) {
  o.add_options("timing")("w,warmup_iters", "untimed iterations before each size",
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
      "latency-bytes", "transfer size of ce-latency (sm-latency moves 4 bytes)",
      cxxopts::value<std::string>()->default_value("8"))(
      "latency-iters", "transfers per latency sample",
      cxxopts::value<std::string>()->default_value("200"));
}

void add_selection_flags(cxxopts::Options& o) {
  o.add_options("selection")("m,methods",
                             "methods or groups, comma-separated (see --list-methods; nccl-tests' "
                             "-m is agg_iters, which peerbench does not have)",
                             cxxopts::value<std::string>()->default_value("all"))(
      "list-methods", "list the methods and groups, then exit")(
      "pairs", "all | intra-host | inter-host | list like 0-1,2>3 (a-b: both directions)",
      cxxopts::value<std::string>()->default_value("all"))(
      "schedule", "serial (one pair at a time) | rounds (disjoint pairs at once)",
      cxxopts::value<std::string>()->default_value("serial"))("inplace",
                                                              "run nccl-allreduce in place")(
      "d,datatype", "NCCL collectives: element types, comma-separated, or all (nccl-tests' names)",
      cxxopts::value<std::string>()->default_value("float"))(
      "o,op", "NCCL reductions: sum, prod, min, max, avg, comma-separated, or all",
      cxxopts::value<std::string>()->default_value("sum"))(
      "r,root", "root rank of nccl-broadcast and nccl-reduce",
      cxxopts::value<std::string>()->default_value("0"))(
      "staged-chunk", "chunk size of the host-staged pipeline",
      cxxopts::value<std::string>()->default_value("4M"))(
      "staged-slots", "chunks in flight in the host-staged pipeline (2-64)",
      cxxopts::value<std::string>()->default_value("4"));
}

void add_output_flags(cxxopts::Options& o) {
  o.add_options("output")("J,json", "results file (default: results/peerbench-HOST-TIME.json)",
                          cxxopts::value<std::string>())(
      "expect", "acceptance thresholds file for the verdicts (see README)",
      cxxopts::value<std::string>())("dry-run",
                                     "print the plan and its estimated time; touch no GPU")(
      "np", "without a launcher: ranks to start (default: all local GPUs)",
      cxxopts::value<std::string>())("q,quiet", "print only the summary")("v,verbose",
                                                                          "print every sample")(
      "allow-gpu-sharing", "let ranks share a GPU (testing the tool on one GPU; measures no link)")(
      "h,help", "this help")("version", "print the version");
}

void add_nccl_tests_flags(cxxopts::Options& o) {
  o.add_options("nccl-tests")(
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
      cxxopts::value<std::string>())(
      "t,nthreads", "refused: peerbench runs one rank per GPU (nccl-tests' threads per process)",
      cxxopts::value<std::string>())(
      "g,ngpus", "refused: peerbench runs one rank per GPU (nccl-tests' GPUs per thread)",
      cxxopts::value<std::string>());
}

void add_verdict_flags(cxxopts::Options& o) {
  o.add_options("verdicts")(
      "fail-on",
      "what makes the exit code 1: all | none | comma-separated flag codes and/or incomplete, "
      "contended, throttled, noisy; not-judged only where named (as report --fail-on)",
      cxxopts::value<std::string>()->default_value("all"))(
      "confirm",
      "measure a case that would be flagged (or ran beside another job) again this "
      "many times at the end, after an idle check; 0: off",
      cxxopts::value<std::string>()->default_value("1"))(
      "require-idle", "refuse to start while another process uses a GPU of the job")(
      "wait-idle", "wait up to SECONDS for the job's GPUs to be idle before starting",
      cxxopts::value<std::string>())(
      "allow-busy", "with --expect (which requires idle GPUs): start on busy GPUs anyway");
}

void add_testing_flags(cxxopts::Options& o) {
  o.add_options("testing")("inject-fault", "KIND:METHOD[:RANK[:CYCLE]] (testing)",
                           cxxopts::value<std::string>());
}

// run's flags, group by group in the order --help lists them.
void add_run_options(cxxopts::Options& o) {
  add_size_flags(o);
  add_timing_flags(o);
  add_selection_flags(o);
  add_output_flags(o);
  add_nccl_tests_flags(o);
  add_verdict_flags(o);
  add_testing_flags(o);
}

// "90", "90s", "10m", "2h", "1d": seconds, above 0 and up to a week.
double parse_duration(const std::string& text, const std::string& flag) {
  const std::string allowed = "; use seconds, or a number with s, m, h or d (10m, 2h)";
  if (text.empty()) throw UsageError(flag + ": empty" + allowed);
  double unit = 1;
  std::string number = text;
  switch (text.back()) {
    case 's':
      number.pop_back();
      break;
    case 'm':
      unit = 60;
      number.pop_back();
      break;
    case 'h':
      unit = 3600;
      number.pop_back();
      break;
    case 'd':
      unit = 86400;
      number.pop_back();
      break;
    default:
      break;
  }
  // Plain decimals only (no sign, exponent or hex): "1e2m" is more likely a typo than a wish.
  const bool plain = !number.empty() &&
                     number.find_first_not_of("0123456789.") == std::string::npos &&
                     number.find_first_of("0123456789") != std::string::npos &&
                     number.find('.') == number.rfind('.');
  double v = 0;
  try {
    if (!plain) throw UsageError("");
    v = parse_number_in(number, flag, 0, 7 * 86400 / unit);
  } catch (const UsageError&) {
    throw UsageError(flag + ": " + quoted_value(text) +
                     " is not a duration above 0 and up to a week" + allowed);
  }
  return v * unit;
}

void parse_nccl_tests_options(const cxxopts::ParseResult& r, RunOptions& o) {
  o.average = static_cast<int>(parse_integer(get(r, "average"), "-a/--average", 0, 3));
  o.report_cputime = parse_integer(get(r, "report_cputime"), "-C/--report_cputime", 0, 1) == 1;
  o.blocking = static_cast<int>(parse_integer(get(r, "blocking"), "-z/--blocking", 0, 2));
  o.register_buffers =
      static_cast<int>(parse_integer(get(r, "local_register"), "-R/--local_register", 0, 2));
  o.cycles = static_cast<int>(parse_integer(get(r, "run_cycles"), "-N/--run_cycles", 0, 1 << 20));
  if (r.count("duration")) {
    o.duration_s = parse_duration(get(r, "duration"), "--duration");
    // --duration alone is the whole bound: -N's default of one cycle would end a 2 h burn-in
    // after its first cycle.
    if (!r.count("run_cycles")) o.cycles = 0;
  }
}

void parse_verdict_options(const cxxopts::ParseResult& r, RunOptions& o) {
  o.fail_on = get(r, "fail-on");
  check_fail_on(o.fail_on);
  o.confirm = static_cast<int>(parse_integer(get(r, "confirm"), "--confirm", 0, kMaxConfirm));
  o.require_idle = r.count("require-idle") > 0;
  o.allow_busy = r.count("allow-busy") > 0;
  if (r.count("wait-idle"))
    o.wait_idle_s = parse_number_in(get(r, "wait-idle"), "--wait-idle", 0, kMaxTimeoutS);
  if (o.allow_busy && o.require_idle)
    throw UsageError("--allow-busy and --require-idle: choose one");
}

// -b -e -f -i, -w -n -s -c -G -I -T and the latency transfers.
void parse_size_and_timing_flags(const cxxopts::ParseResult& r, RunOptions& o) {
  o.sweep.min_bytes = parse_size(get(r, "minbytes"), "-b/--minbytes");
  o.sweep.max_bytes = parse_size(get(r, "maxbytes"), "-e/--maxbytes");
  const std::string stepbytes = get(r, "stepbytes");
  o.sweep.step_bytes = stepbytes == "0" ? 0 : parse_size(stepbytes, "-i/--stepbytes");
  o.sweep.step_factor = static_cast<std::uint64_t>(
      parse_integer(get(r, "stepfactor"), "-f/--stepfactor", 2, 1 << 20));
  // Before the sweep's size count: "-f 2 -i 8" read as too many sizes, not as the two ways of
  // stepping given at once (an audit).
  if (r.count("stepfactor") && r.count("stepbytes") && o.sweep.step_bytes != 0) {
    throw UsageError("-f/--stepfactor and -i/--stepbytes: -i adds a step, -f multiplies; give one");
  }
  count_sweep_sizes(o.sweep);  // validates without building the list
  o.warmup_iters =
      static_cast<int>(parse_integer(get(r, "warmup_iters"), "-w/--warmup_iters", 0, 100000));
  o.iters = static_cast<int>(parse_integer(get(r, "iters"), "-n/--iters", 1, 100000));
  o.samples = static_cast<int>(parse_integer(get(r, "samples"), "-s/--samples", 1, 10000));
  o.check = parse_integer(get(r, "check"), "-c/--check", 0, 1) == 1;
  o.cudagraph_replays =
      static_cast<int>(parse_integer(get(r, "cudagraph"), "-G/--cudagraph", 0, 100000));
  o.per_iteration = parse_integer(get(r, "per_iter_timing"), "-I/--per_iter_timing", 0, 1) == 1;
  o.timeout_s = parse_number_in(get(r, "timeout"), "-T/--timeout", kMinTimeoutS, kMaxTimeoutS);
  o.latency_bytes = parse_size(get(r, "latency-bytes"), "--latency-bytes");
  if (o.latency_bytes > (1ull << 20)) {
    throw UsageError("--latency-bytes: at most 1M; latency is about small transfers");
  }
  o.latency_iters =
      static_cast<int>(parse_integer(get(r, "latency-iters"), "--latency-iters", 1, 100000));
}

// -m, --pairs, --schedule, the NCCL collectives' types, reductions and root, the staged pipeline.
void parse_selection_flags(const cxxopts::ParseResult& r, const std::vector<MethodInfo>& catalog,
                           RunOptions& o) {
  o.methods_spec = get(r, "methods");
  o.methods = resolve_methods(o.methods_spec, catalog);
  o.pairs = parse_pair_filter(get(r, "pairs"));
  const std::string schedule = get(r, "schedule");
  if (schedule == "serial") {
    o.schedule = Schedule::kSerial;
  } else if (schedule == "rounds") {
    o.schedule = Schedule::kRounds;
  } else {
    throw UsageError("--schedule: '" + schedule + "'; use serial or rounds");
  }
  o.allreduce_inplace = r.count("inplace") > 0;
  o.datatypes = parse_data_types(get(r, "datatype"), "-d/--datatype");
  o.ops = parse_reduce_ops(get(r, "op"), "-o/--op");
  o.root = static_cast<int>(parse_integer(get(r, "root"), "-r/--root", 0, 1 << 20));
  o.staged_chunk = parse_size(get(r, "staged-chunk"), "--staged-chunk");
  if (o.staged_chunk < 4096 || o.staged_chunk > (256ull << 20)) {
    throw UsageError("--staged-chunk: use a size from 4K to 256M");
  }
  o.staged_slots = static_cast<int>(parse_integer(get(r, "staged-slots"), "--staged-slots", 2, 64));
}

// -J, --expect, --dry-run, --np, -q/-v, --allow-gpu-sharing.
void parse_output_flags(const cxxopts::ParseResult& r, RunOptions& o) {
  if (r.count("json")) {
    o.json_path = non_empty_path(get(r, "json"), "-J/--json");
    o.json_path_given = true;
    if (o.json_path.empty()) throw UsageError("-J/--json: empty path");
  }
  if (r.count("expect")) o.expect_path = non_empty_path(get(r, "expect"), "--expect");
  o.dry_run = r.count("dry-run") > 0;
  if (r.count("np")) o.np = static_cast<int>(parse_integer(get(r, "np"), "--np", 1, kMaxNp));
  if (r.count("quiet") && r.count("verbose")) {
    throw UsageError("-q/--quiet and -v/--verbose: choose one");
  }
  if (r.count("quiet")) o.verbosity = 0;
  if (r.count("verbose")) o.verbosity = 2;
  o.allow_gpu_sharing = r.count("allow-gpu-sharing") > 0;
}

// --pairs with only collectives (over all ranks) or host<->GPU methods, which a filter other than a
// list of pairs does not select (README), measured what it would without it.
void refuse_pairs_that_apply_to_nothing(const cxxopts::ParseResult& r,
                                        const std::vector<MethodInfo>& catalog,
                                        const RunOptions& o) {
  if (!r.count("pairs") || o.pairs.kind == PairFilter::Kind::kAll) return;
  const bool list = o.pairs.kind == PairFilter::Kind::kExplicit;
  bool collectives = false, host = false;
  for (const auto& name : o.methods) {
    const MethodInfo* m = find_method(catalog, name);
    if (!m) continue;
    if (m->scope == MethodScope::kPair || (list && m->scope == MethodScope::kPerGpu)) return;
    collectives = collectives || m->scope == MethodScope::kAllRanks;
    host = host || m->scope == MethodScope::kPerGpu;
  }
  // Why, for what was selected (the message named collectives to a -m host run; a review).
  throw UsageError(
      "--pairs: none of the methods selected (" + join(o.methods, ",") + ") runs on pairs" +
      (collectives ? "; collectives run over all ranks" : std::string()) +
      (host ? "; host<->GPU methods take only a list of pairs (0-1,2>3)" : std::string()) +
      "; leave --pairs out or select pair methods");
}

// The methods a size sweep (-b -e -f -i) and -n apply to: not the latency methods, which run at
// one size, ce-latency for --latency-iters transfers.
bool sweeps(const MethodInfo& m) {
  return !m.fixed_size;
}

struct FlagScope {
  const char* key;
  const char* flag;
  const char* what;
  bool (*applies)(const MethodInfo&);
  bool (*changed)(const RunOptions&,
                  const RunOptions&);  // given, default: a default drops nothing
};
// Each flag that applies to some methods only, and whether a value drops something.
constexpr FlagScope kFlagScopes[] = {
    {"datatype", "-d/--datatype", "element types", [](const MethodInfo& m) { return m.typed; },
     [](const RunOptions& g, const RunOptions& d) { return g.datatypes != d.datatypes; }},
    {"op", "-o/--op", "reductions", [](const MethodInfo& m) { return m.reduces; },
     [](const RunOptions& g, const RunOptions& d) { return g.ops != d.ops; }},
    {"root", "-r/--root", "a root", [](const MethodInfo& m) { return m.rooted; },
     [](const RunOptions& g, const RunOptions& d) { return g.root != d.root; }},
    {"inplace", "--inplace", "in-place all-reduce",
     [](const MethodInfo& m) { return m.collective == Collective::kAllReduce; },
     [](const RunOptions&, const RunOptions&) { return true; }},
    {"local_register", "-R/--local_register", "NCCL buffer registration",
     [](const MethodInfo& m) { return m.uses_nccl; },
     [](const RunOptions& g, const RunOptions& d) {
       return g.register_buffers != d.register_buffers;
     }},
    {"staged-chunk", "--staged-chunk", "the staged pipeline",
     [](const MethodInfo& m) { return m.family == "staged"; },
     [](const RunOptions& g, const RunOptions& d) { return g.staged_chunk != d.staged_chunk; }},
    {"staged-slots", "--staged-slots", "the staged pipeline",
     [](const MethodInfo& m) { return m.family == "staged"; },
     [](const RunOptions& g, const RunOptions& d) { return g.staged_slots != d.staged_slots; }},
    {"latency-bytes", "--latency-bytes", "a latency size",
     [](const MethodInfo& m) { return m.fixed_size && m.fixed_bytes == 0; },
     [](const RunOptions& g, const RunOptions& d) { return g.latency_bytes != d.latency_bytes; }},
    {"latency-iters", "--latency-iters", "latency transfers",
     [](const MethodInfo& m) { return m.metric == Metric::kLatency; },
     [](const RunOptions& g, const RunOptions& d) { return g.latency_iters != d.latency_iters; }},
    // -G on staged or sm-latency alone captured nothing, yet labelled the run "-G N" (an audit).
    {"cudagraph", "-G/--cudagraph", "a CUDA graph",
     [](const MethodInfo& m) { return m.graph_capturable; },
     [](const RunOptions& g, const RunOptions& d) {
       return g.cudagraph_replays != d.cudagraph_replays;
     }},
    // One rank times a one-sided copy: there are no ranks' times to combine.
    {"average", "-a/--average", "the times of several ranks",
     [](const MethodInfo& m) { return m.workers != 1; },
     [](const RunOptions& g, const RunOptions& d) { return g.average != d.average; }},
    // -I 1 is the default: only asking for it explicitly asks for something to drop.
    {"per_iter_timing", "-I/--per_iter_timing", "a per-iteration sample",
     [](const MethodInfo& m) { return m.start_gated; },
     [](const RunOptions& g, const RunOptions&) { return g.per_iteration; }},
    {"minbytes", "-b/--minbytes", "a size sweep", sweeps,
     [](const RunOptions& g, const RunOptions& d) {
       return g.sweep.min_bytes != d.sweep.min_bytes;
     }},
    {"maxbytes", "-e/--maxbytes", "a size sweep", sweeps,
     [](const RunOptions& g, const RunOptions& d) {
       return g.sweep.max_bytes != d.sweep.max_bytes;
     }},
    {"stepfactor", "-f/--stepfactor", "a size sweep", sweeps,
     [](const RunOptions& g, const RunOptions& d) {
       return g.sweep.step_factor != d.sweep.step_factor;
     }},
    {"stepbytes", "-i/--stepbytes", "a size sweep", sweeps,
     [](const RunOptions& g, const RunOptions& d) {
       return g.sweep.step_bytes != d.sweep.step_bytes;
     }},
    {"iters", "-n/--iters", "iterations per sample (the latency methods: --latency-iters)", sweeps,
     [](const RunOptions& g, const RunOptions& d) { return g.iters != d.iters; }},
};

// A flag given for methods none of which was selected would be dropped without a word (-m
// ce-write -d double measured no double; an audit): refused, naming the methods it applies to.
void refuse_flags_that_apply_to_nothing(const cxxopts::ParseResult& r,
                                        const std::vector<MethodInfo>& catalog,
                                        const RunOptions& o) {
  const RunOptions defaults;
  for (const auto& sc : kFlagScopes) {
    if (!r.count(sc.key) || !sc.changed(o, defaults)) continue;
    bool any = false;
    for (const auto& name : o.methods) {
      const MethodInfo* m = find_method(catalog, name);
      any = any || (m && sc.applies(*m));
    }
    if (any) continue;
    std::vector<std::string> takers, others;
    for (const auto& m : catalog) (sc.applies(m) ? takers : others).push_back(m.name);
    // The shorter list: -G's twenty takers read better as the two it does not apply to.
    throw UsageError(std::string(sc.flag) + ": none of the methods selected (" +
                     join(o.methods, ",") + ") takes " + sc.what + "; it applies to " +
                     (others.size() < takers.size() ? "every method but " + join(others, ", ")
                                                    : join(takers, ", ")));
  }
  refuse_pairs_that_apply_to_nothing(r, catalog, o);
  // The per-iteration sample runs its iterations back to back; -z waits after each one.
  if (r.count("per_iter_timing") && o.per_iteration && o.blocking != 0) {
    throw UsageError("-I/--per_iter_timing 1 and -z/--blocking " + std::to_string(o.blocking) +
                     ": the per-iteration sample runs back to back behind the start gate (-z 0); "
                     "give one");
  }
}

// --version and --list-methods take no words ("peerbench --version extra" dropped the word).
void refuse_words_after(const cxxopts::ParseResult& r, const std::string& flag) {
  if (r.unmatched().empty()) return;
  throw UsageError(flag + ": takes no arguments (got '" + r.unmatched().front() + "')");
}

RunOptions parse_run(const cxxopts::ParseResult& r, const std::vector<MethodInfo>& catalog) {
  RunOptions o;
  parse_size_and_timing_flags(r, o);
  parse_selection_flags(r, catalog, o);
  parse_output_flags(r, o);
  parse_nccl_tests_options(r, o);
  parse_verdict_options(r, o);
  refuse_flags_that_apply_to_nothing(r, catalog, o);
  if (r.count("inject-fault")) {
    o.fault = parse_fault(get(r, "inject-fault"));
    if (!find_method(catalog, o.fault.method)) {
      throw UsageError("--inject-fault: unknown method '" + o.fault.method + "'");
    }
  }
  return o;
}

}  // namespace

void parse_run_command(cxxopts::Options& o, const Args& args,
                       const std::vector<MethodInfo>& catalog, CommandLine& cl) {
  add_run_options(o);
  // -t and -g are refused whatever follows them, by their own line, before any other check.
  reject_threads_and_gpus(args);
  auto r = parse_args(o, args);
  cl.help_text = o.help({"sizes", "timing", "selection", "nccl-tests", "output", "verdicts"});
  if (r.count("help")) {
    cl.command = Command::kHelp;
    return;
  }
  if (r.count("version")) {
    refuse_words_after(r, "--version");
    cl.command = Command::kVersion;
    return;
  }
  if (r.count("list-methods")) {
    refuse_words_after(r, "--list-methods");
    cl.command = Command::kListMethods;
    return;
  }
  // Before the positional check: "-g -m ce-write" made -m -g's value and read "unexpected
  // argument 'ce-write'" (a review).
  if (r.count("nthreads")) throw one_rank_per_gpu(true);
  if (r.count("ngpus")) throw one_rank_per_gpu(false);
  reject_positionals(r, "run");
  cl.run = parse_run(r, catalog);
}

}  // namespace peerbench
