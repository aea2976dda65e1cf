// run's flags into RunOptions: what to measure, how, the output, the launch (declared, with
// their help, in run_help.cpp).
#include <algorithm>
#include <cctype>

#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/cli/flags.h"
#include "core/cli/suggest.h"
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

// -m's names, with the nearest method or group where one is mistyped (ce-wrtie: ce-write).
std::vector<std::string> methods_with_suggestion(const std::string& spec,
                                                 const std::vector<MethodInfo>& catalog) {
  try {
    return resolve_methods(spec, catalog);
  } catch (const UsageError&) {
    std::vector<std::string> names;
    for (const auto& m : catalog) names.push_back(m.name);
    for (const auto& g : method_groups()) names.push_back(g.name);
    for (const auto& item : split(spec, ',')) {
      if (item.empty() || std::find(names.begin(), names.end(), item) != names.end()) continue;
      const std::string near = nearest_word(item, names);
      if (!near.empty())
        throw UsageError("-m/--methods: unknown method " + quoted_value(item) + "; did you mean " +
                         near + "? (peerbench --list-methods lists the methods and groups)");
    }
    throw;
  }
}

// -o is nccl-tests' reduction op, and people reach for it to name an output file (run.json): an
// unknown value says what -o is and where results go.
std::vector<ReduceOp> reduce_ops_or_why(const std::string& spec) {
  try {
    return parse_reduce_ops(spec, "-o/--op");
  } catch (const UsageError&) {
    std::vector<std::string> names;
    for (const auto op : all_reduce_ops()) names.push_back(to_string(op));
    names.push_back("all");
    std::string hint;
    for (const auto& item : split(spec, ',')) {
      if (std::find(names.begin(), names.end(), item) == names.end() && hint.empty())
        hint = did_you_mean(item, names);
    }
    throw UsageError("-o/--op: " + quoted_value(spec) +
                     " is not a reduction: -o is the reduction op of the NCCL collectives, as in "
                     "nccl-tests (" +
                     or_list(names) + "); results are written with -J PATH" + hint);
  }
}

// -m, --pairs, --schedule, the NCCL collectives' types, reductions and root, the staged pipeline.
void parse_selection_flags(const cxxopts::ParseResult& r, const std::vector<MethodInfo>& catalog,
                           RunOptions& o) {
  o.methods_spec = get(r, "methods");
  o.methods = methods_with_suggestion(o.methods_spec, catalog);
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
  o.ops = reduce_ops_or_why(get(r, "op"));
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
  for (const auto& kv : r.arguments()) o.flags_given.push_back(kv.key());
  o.methods_given = r.count("methods") > 0;
  refuse_flags_that_apply_to_nothing(o, catalog);
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
  cl.help_text = run_help(o);
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
