#include "core/options.h"
#include "core/text.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>
#include <utility>

#include <cxxopts.hpp>

#include "core/errors.h"
#include "core/fleet_options.h"
#include "core/text_table.h"

namespace peerbench {

std::string to_string(Schedule s) {
  return s == Schedule::kSerial ? "serial" : "rounds";
}

std::string to_string(ReportFormat f) {
  switch (f) {
    case ReportFormat::kText:
      return "text";
    case ReportFormat::kMarkdown:
      return "markdown";
    case ReportFormat::kHtml:
      return "html";
    case ReportFormat::kCsv:
      return "csv";
  }
  return "text";
}

namespace {

const char* kTagline =
    "peerbench: what GPU-to-GPU links really deliver, and where traffic takes a slow road.";

// The commands, one line each in the top-level help; a new command adds its line here.
struct CommandHelp {
  const char* name;
  const char* usage;
  const char* summary;
};
const CommandHelp kCommandHelp[] = {
    {"run", "[run] [options]", "measure every pair of GPUs, one rank per GPU (the default)"},
    {"topo", "topo [--json PATH]", "links, PCIe paths and P2P status of this node (no mpirun)"},
    {"report", "report RUN.json [...]",
     "verdicts and tables from a run's JSON: text, Markdown, HTML, CSV"},
    {"compare", "compare A.json B.json [C.json ...]",
     "what changed between runs: regressions, improvements; more than two: a history"},
    {"fleet", "fleet PATH... [--hosts FILE]",
     "one verdict over many nodes' results: outliers, missing nodes, versions"},
};

std::string top_level_help() {
  // Two tables in one set of columns, so no usage runs into its summary however long it is.
  TextTable commands, more;
  for (const auto& c : kCommandHelp)
    commands.add_row({std::string("peerbench ") + c.usage, c.summary});
  more.add_row({"peerbench COMMAND --help", "the options of one command"});
  more.add_row({"peerbench --list-methods", "what run can measure, and the method groups"});
  more.add_row({"peerbench --version"});
  const auto widths = commands.widths(more.widths());
  return std::string(kTagline) + "\n\nUsage: peerbench [COMMAND] [options]\n\nCommands:\n" +
         commands.render("  ", "  ", widths) + "\n" + more.render("  ", "  ", widths);
}

// "peerbench report: verdicts and tables ...", the first line of a command's own --help.
std::string command_description(const std::string& name) {
  for (const auto& c : kCommandHelp) {
    if (name == c.name) return std::string("peerbench ") + c.name + ": " + c.summary;
  }
  return kTagline;
}

bool asks_for_help(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") return true;
  }
  return false;
}

ReportFormat parse_format(const std::string& v, const std::string& flag, bool allow_html) {
  if (v == "text") return ReportFormat::kText;
  if (v == "markdown" || v == "md") return ReportFormat::kMarkdown;
  if (v == "csv") return ReportFormat::kCsv;
  if (v == "html" && allow_html) return ReportFormat::kHtml;
  throw UsageError(flag + ": '" + v + "' is not a format; use " +
                   (allow_html ? "text, markdown, html or csv" : "text, markdown or csv"));
}

void reject_positionals(const cxxopts::ParseResult& r, const std::string& command) {
  if (!r.unmatched().empty()) {
    throw UsageError(command + ": unexpected argument '" + r.unmatched().front() +
                     "'; options start with - (see peerbench " + command + " --help)");
  }
}

std::string get(const cxxopts::ParseResult& r, const std::string& key) {
  return r[key].as<std::string>();
}

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

void add_run_options(cxxopts::Options& o) {
  o.add_options("sizes")("b,minbytes", "smallest size (K/M/G binary suffixes)",
                         cxxopts::value<std::string>()->default_value("1M"))(
      "e,maxbytes", "largest size", cxxopts::value<std::string>()->default_value("1G"))(
      "f,stepfactor", "multiply the size by this (>= 2)",
      cxxopts::value<std::string>()->default_value("4"))(
      "i,stepbytes", "add this to the size instead of multiplying (0: use -f)",
      cxxopts::value<std::string>()->default_value("0"));
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
      "latency-bytes", "transfer size of ce-latency and sm-latency",
      cxxopts::value<std::string>()->default_value("8"))(
      "latency-iters", "transfers per latency sample",
      cxxopts::value<std::string>()->default_value("200"));
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
      "ends it cleanly)",
      cxxopts::value<std::string>()->default_value("1"))(
      "duration", "burn-in: repeat the suite for this long (90s, 10m, 2h; 0: no limit)",
      cxxopts::value<std::string>())(
      "t,nthreads", "refused: peerbench runs one rank per GPU (nccl-tests' threads per process)",
      cxxopts::value<std::string>())(
      "g,ngpus", "refused: peerbench runs one rank per GPU (nccl-tests' GPUs per thread)",
      cxxopts::value<std::string>());
  o.add_options("verdicts")(
      "fail-on",
      "what makes the exit code 1: all | none | comma-separated flag codes and/or incomplete, "
      "contended, throttled, noisy (as report --fail-on)",
      cxxopts::value<std::string>()->default_value("all"))(
      "confirm",
      "measure a case that would be flagged (or ran beside another job) again this "
      "many times at the end, after an idle check; 0: off",
      cxxopts::value<std::string>()->default_value("1"))(
      "require-idle", "refuse to start while another process uses a GPU of the job")(
      "wait-idle", "wait up to SECONDS for the job's GPUs to be idle before starting",
      cxxopts::value<std::string>())(
      "allow-busy", "with --expect (which requires idle GPUs): start on busy GPUs anyway");
  o.add_options("testing")("inject-fault", "KIND:METHOD[:RANK[:CYCLE]] (testing)",
                           cxxopts::value<std::string>());
}

// --fail-on (run and report): all, none, or flag codes and failing states, comma-separated.
void check_fail_on(const std::string& fail_on) {
  if (fail_on == "all" || fail_on == "none") return;
  auto codes = known_flag_codes();
  for (const auto& s : failing_states()) codes.push_back(s);
  for (const auto& c : split(fail_on, ',')) {
    if (std::find(codes.begin(), codes.end(), c) == codes.end()) {
      throw UsageError("--fail-on: unknown flag or state '" + c +
                       "'; use all, none or: " + join(codes));
    }
  }
}

// "90", "90s", "10m", "2h", "1d": seconds, from 0 to a week.
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
  double v = 0;
  try {
    v = parse_number_in(number, flag, 0, 7 * 86400 / unit);
  } catch (const UsageError&) {
    throw UsageError(flag + ": '" + text + "' is not a duration up to a week" + allowed);
  }
  return v * unit;
}

void parse_nccl_tests_options(const cxxopts::ParseResult& r, RunOptions& o) {
  for (const char* k : {"nthreads", "ngpus"}) {
    if (r.count(k)) {
      throw UsageError(std::string(k[0] == 'n' && k[1] == 't' ? "-t/--nthreads" : "-g/--ngpus") +
                       ": peerbench runs one rank per GPU; start one rank per GPU with mpirun -np "
                       "N (or without a launcher: every local GPU)");
    }
  }
  o.average = static_cast<int>(parse_integer(get(r, "average"), "-a/--average", 0, 3));
  o.report_cputime = parse_integer(get(r, "report_cputime"), "-C/--report_cputime", 0, 1) == 1;
  o.blocking = static_cast<int>(parse_integer(get(r, "blocking"), "-z/--blocking", 0, 2));
  o.register_buffers =
      static_cast<int>(parse_integer(get(r, "local_register"), "-R/--local_register", 0, 2));
  o.cycles = static_cast<int>(parse_integer(get(r, "run_cycles"), "-N/--run_cycles", 0, 1 << 20));
  if (r.count("duration")) o.duration_s = parse_duration(get(r, "duration"), "--duration");
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

RunOptions parse_run(const cxxopts::ParseResult& r, const std::vector<MethodInfo>& catalog) {
  RunOptions o;
  o.sweep.min_bytes = parse_size(get(r, "minbytes"), "-b/--minbytes");
  o.sweep.max_bytes = parse_size(get(r, "maxbytes"), "-e/--maxbytes");
  const std::string stepbytes = get(r, "stepbytes");
  o.sweep.step_bytes = stepbytes == "0" ? 0 : parse_size(stepbytes, "-i/--stepbytes");
  o.sweep.step_factor = static_cast<std::uint64_t>(
      parse_integer(get(r, "stepfactor"), "-f/--stepfactor", 2, 1 << 20));
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
  parse_nccl_tests_options(r, o);
  parse_verdict_options(r, o);
  if (r.count("inject-fault")) {
    o.fault = parse_fault(get(r, "inject-fault"));
    if (!find_method(catalog, o.fault.method)) {
      throw UsageError("--inject-fault: unknown method '" + o.fault.method + "'");
    }
  }
  return o;
}

std::string command_name(Command c) {
  switch (c) {
    case Command::kTopo:
      return "topo";
    case Command::kReport:
      return "report";
    case Command::kCompare:
      return "compare";
    case Command::kFleet:
      return "fleet";
    default:
      return "run";
  }
}

// cxxopts' own messages name the option; strip its decorations into one plain line.
std::string clean_cxxopts_message(std::string m) {
  m.erase(std::remove(m.begin(), m.end(), '\n'), m.end());
  for (const char* q : {"\u2018", "\u2019"}) {
    for (auto p = m.find(q); p != std::string::npos; p = m.find(q)) m.replace(p, 3, "'");
  }
  return m;
}

// cxxopts says "Argument 'yes' failed to parse" without the flag; a switch given a value
// (--inplace=yes) is the case that reaches here, so name the word that carried the value.
std::string flag_given_a_value(const std::vector<const char*>& args, const std::string& message) {
  const auto open = message.find('\'');
  const auto close = open == std::string::npos ? open : message.find('\'', open + 1);
  if (close == std::string::npos) return message;
  const std::string value = message.substr(open + 1, close - open - 1);
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string word = args[i];
    const auto eq = word.find('=');
    if (word.size() > 1 && word[0] == '-' && eq != std::string::npos &&
        word.substr(eq + 1) == value)
      return sanitize_for_terminal(word.substr(0, eq)) + ": takes no value (got '" +
             sanitize_for_terminal(value) + "'); give the switch alone to turn it on";
  }
  return message;
}

// The command named first, and where its options start; none named means run.
struct NamedCommand {
  Command command;
  int first_option;
};

NamedCommand named_command(int argc, const char* const* argv) {
  if (argc <= 1) return {Command::kRun, 1};
  const std::string sub = argv[1];
  const std::pair<const char*, Command> commands[] = {{"run", Command::kRun},
                                                      {"topo", Command::kTopo},
                                                      {"report", Command::kReport},
                                                      {"compare", Command::kCompare},
                                                      {"fleet", Command::kFleet}};
  for (const auto& [name, command] : commands) {
    if (sub == name) return {command, 2};
  }
  if (!sub.empty() && sub[0] != '-') {
    throw UsageError("unknown command '" + sub + "'; use run, topo, report, compare or fleet");
  }
  return {Command::kRun, 1};
}

// Each command's parser fills its part of `cl`; --help (and run's --version and
// --list-methods) turn cl.command into that request instead.
using Args = std::vector<const char*>;

void parse_run_command(cxxopts::Options& o, const Args& args,
                       const std::vector<MethodInfo>& catalog, CommandLine& cl) {
  add_run_options(o);
  auto r = o.parse(static_cast<int>(args.size()), args.data());
  cl.help_text = o.help({"sizes", "timing", "selection", "nccl-tests", "output", "verdicts"});
  if (r.count("help")) {
    cl.command = Command::kHelp;
    return;
  }
  if (r.count("version")) {
    cl.command = Command::kVersion;
    return;
  }
  if (r.count("list-methods")) {
    cl.command = Command::kListMethods;
    return;
  }
  reject_positionals(r, "run");
  cl.run = parse_run(r, catalog);
}

void parse_topo_command(cxxopts::Options& o, const Args& args, CommandLine& cl) {
  o.add_options()("json", "also write the topology as JSON to PATH", cxxopts::value<std::string>())(
      "q,quiet", "do not print the matrix")("h,help", "this help");
  auto r = o.parse(static_cast<int>(args.size()), args.data());
  cl.help_text = o.help();
  if (r.count("help")) {
    cl.command = Command::kHelp;
    return;
  }
  reject_positionals(r, "topo");
  if (r.count("json")) cl.topo.json_path = non_empty_path(get(r, "json"), "--json");
  cl.topo.quiet = r.count("quiet") > 0;
}

void parse_report_command(cxxopts::Options& o, const Args& args, CommandLine& cl) {
  o.add_options()("inputs", "run JSON files", cxxopts::value<std::vector<std::string>>())(
      "format", "text | markdown | html | csv",
      cxxopts::value<std::string>()->default_value("text"))(
      "o,output", "write here instead of stdout", cxxopts::value<std::string>())(
      "fail-on",
      "what makes the exit code 1: all | none | comma-separated flag codes and/or incomplete, "
      "contended, throttled, noisy",
      cxxopts::value<std::string>()->default_value("all"))("expect", "acceptance thresholds file",
                                                           cxxopts::value<std::string>())(
      "plots", "folder with plots from scripts/plot.py to embed or link",
      cxxopts::value<std::string>())("h,help", "this help");
  o.parse_positional({"inputs"});
  o.positional_help("RUN.json [RUN.json ...]");
  auto r = o.parse(static_cast<int>(args.size()), args.data());
  cl.help_text = o.help();
  if (r.count("help")) {
    cl.command = Command::kHelp;
    return;
  }
  if (!r.count("inputs")) throw UsageError("report: give at least one run JSON file");
  cl.report.inputs = r["inputs"].as<std::vector<std::string>>();
  cl.report.format = parse_format(get(r, "format"), "--format", true);
  if (r.count("output")) cl.report.output_path = non_empty_path(get(r, "output"), "-o/--output");
  cl.report.fail_on = get(r, "fail-on");
  check_fail_on(cl.report.fail_on);
  if (r.count("expect")) cl.report.expect_path = non_empty_path(get(r, "expect"), "--expect");
  if (r.count("plots")) cl.report.plots_dir = non_empty_path(get(r, "plots"), "--plots");
}

void add_compare_options(cxxopts::Options& o) {
  o.add_options()("inputs", "baseline and candidate JSON",
                  cxxopts::value<std::vector<std::string>>())(
      "threshold", "relative change to flag, in percent",
      cxxopts::value<std::string>()->default_value("5"))(
      "format", "text | markdown | html | csv",
      cxxopts::value<std::string>()->default_value("text"))(
      "o,output", "write here instead of stdout", cxxopts::value<std::string>())(
      "match", "match GPUs by host and: pci | uuid | index",
      cxxopts::value<std::string>()->default_value("pci"))(
      "fail-on", "regressions | any | none",
      cxxopts::value<std::string>()->default_value("regressions"))(
      "plots", "more than two runs: folder of plots from scripts/plot_fleet.py history",
      cxxopts::value<std::string>())("h,help", "this help");
  o.parse_positional({"inputs"});
  o.positional_help("A.json B.json [C.json ...]");
}

void parse_compare_command(cxxopts::Options& o, const Args& args, CommandLine& cl) {
  add_compare_options(o);
  auto r = o.parse(static_cast<int>(args.size()), args.data());
  cl.help_text = o.help();
  if (r.count("help")) {
    cl.command = Command::kHelp;
    return;
  }
  const auto inputs =
      r.count("inputs") ? r["inputs"].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (inputs.size() < 2) {
    throw UsageError("compare: give two or more run JSON files (baseline first), got " +
                     std::to_string(inputs.size()));
  }
  cl.compare.baseline = inputs[0];
  cl.compare.candidate = inputs[1];
  cl.compare.runs = inputs;
  if (r.count("plots")) cl.compare.plots_dir = get(r, "plots");
  cl.compare.threshold = parse_positive_number(get(r, "threshold"), "--threshold") / 100.0;
  if (cl.compare.threshold >= 10) throw UsageError("--threshold: use a percentage below 1000");
  cl.compare.format = parse_format(get(r, "format"), "--format", true);
  if (r.count("output")) cl.compare.output_path = non_empty_path(get(r, "output"), "-o/--output");
  cl.compare.match = get(r, "match");
  if (cl.compare.match != "index" && cl.compare.match != "pci" && cl.compare.match != "uuid") {
    throw UsageError("--match: '" + cl.compare.match + "'; use pci, uuid or index");
  }
  cl.compare.fail_on = get(r, "fail-on");
  if (cl.compare.fail_on != "regressions" && cl.compare.fail_on != "any" &&
      cl.compare.fail_on != "none") {
    throw UsageError("--fail-on: '" + cl.compare.fail_on + "'; use regressions, any or none");
  }
}

void parse_fleet_command(cxxopts::Options& o, const Args& args, CommandLine& cl) {
  if (!parse_fleet_command_line(o, static_cast<int>(args.size()), args.data(), cl.fleet,
                                cl.help_text))
    cl.command = Command::kHelp;
}

}  // namespace

bool PairFilter::measures_gpu(int r) const {
  if (kind != Kind::kExplicit) return true;
  return std::any_of(pairs.begin(), pairs.end(),
                     [&](const std::pair<int, int>& p) { return p.first == r || p.second == r; });
}

PairFilter parse_pair_filter(const std::string& text) {
  PairFilter f;
  f.text = text;
  if (text == "all") return f;
  if (text == "intra-host") {
    f.kind = PairFilter::Kind::kIntraHost;
    return f;
  }
  if (text == "inter-host") {
    f.kind = PairFilter::Kind::kInterHost;
    return f;
  }
  f.kind = PairFilter::Kind::kExplicit;
  const std::string allowed = "; use all, intra-host, inter-host or a list like 0-1,2>3";
  if (text.empty()) throw UsageError("--pairs: empty" + allowed);
  std::set<std::pair<int, int>> seen;
  for (const auto& item : split(text, ',')) {
    const auto sep = item.find_first_of("->");
    if (sep == std::string::npos || sep == 0 || sep + 1 >= item.size()) {
      throw UsageError("--pairs: '" + item + "' is not a pair" + allowed);
    }
    const int a = static_cast<int>(parse_integer(item.substr(0, sep), "--pairs", 0, 1 << 20));
    const int b = static_cast<int>(parse_integer(item.substr(sep + 1), "--pairs", 0, 1 << 20));
    if (a == b) throw UsageError("--pairs: '" + item + "' pairs a rank with itself");
    auto add = [&](int s, int d) {
      if (seen.insert({s, d}).second) f.pairs.emplace_back(s, d);
    };
    add(a, b);
    if (item[sep] == '-') add(b, a);
  }
  return f;
}

CommandLine parse_command_line(int argc, const char* const* argv,
                               const std::vector<MethodInfo>& catalog) {
  CommandLine cl;
  for (int i = 0; i < argc; ++i) cl.argv.emplace_back(argv[i]);
  const NamedCommand named = named_command(argc, argv);
  cl.command = named.command;
  if (named.first_option == 1 && asks_for_help(argc, argv)) {  // no command named: the commands
    cl.command = Command::kHelp;
    cl.help_text = top_level_help();
    return cl;
  }
  Args args;
  args.push_back(argv[0]);
  for (int i = named.first_option; i < argc; ++i) args.push_back(argv[i]);
  const std::string prog = "peerbench " + command_name(cl.command);

  try {
    cxxopts::Options o(prog, command_description(command_name(cl.command)));
    switch (cl.command) {
      case Command::kRun:
        parse_run_command(o, args, catalog, cl);
        break;
      case Command::kTopo:
        parse_topo_command(o, args, cl);
        break;
      case Command::kReport:
        parse_report_command(o, args, cl);
        break;
      case Command::kCompare:
        parse_compare_command(o, args, cl);
        break;
      case Command::kFleet:
        parse_fleet_command(o, args, cl);
        break;
      default:
        break;
    }
  } catch (const cxxopts::exceptions::incorrect_argument_type& e) {
    throw UsageError(prog + ": " + flag_given_a_value(args, clean_cxxopts_message(e.what())));
  } catch (const cxxopts::exceptions::exception& e) {
    throw UsageError(prog + ": " + clean_cxxopts_message(e.what()));
  }
  return cl;
}

nlohmann::json run_options_to_json(const RunOptions& o) {
  nlohmann::json j;
  j["minbytes"] = o.sweep.min_bytes;
  j["maxbytes"] = o.sweep.max_bytes;
  j["stepfactor"] = o.sweep.step_factor;
  j["stepbytes"] = o.sweep.step_bytes;
  j["sizes"] = make_sweep(o.sweep);
  j["warmup_iters"] = o.warmup_iters;
  j["iters"] = o.iters;
  j["samples"] = o.samples;
  j["check"] = o.check;
  j["cudagraph_replays"] = o.cudagraph_replays;
  j["per_iteration"] = o.per_iteration;
  j["methods"] = o.methods;
  j["methods_spec"] = o.methods_spec;
  j["timeout_s"] = o.timeout_s;
  j["schedule"] = to_string(o.schedule);
  j["pairs"] = o.pairs.text;
  j["latency_bytes"] = o.latency_bytes;
  j["latency_iters"] = o.latency_iters;
  j["staged_chunk"] = o.staged_chunk;
  j["staged_slots"] = o.staged_slots;
  j["allreduce_inplace"] = o.allreduce_inplace;
  nlohmann::json types = nlohmann::json::array(), ops = nlohmann::json::array();
  for (auto t : o.datatypes) types.push_back(to_string(t));
  for (auto x : o.ops) ops.push_back(to_string(x));
  j["datatypes"] = types;
  j["ops"] = ops;
  j["root"] = o.root;
  j["allow_gpu_sharing"] = o.allow_gpu_sharing;
  j["expect"] = o.expect_path.empty() ? nlohmann::json() : nlohmann::json(o.expect_path);
  j["confirm"] = o.confirm;
  j["require_idle"] = o.idle_required();
  j["wait_idle_s"] = o.wait_idle_s;
  j["fail_on"] = o.fail_on;
  j["average"] = o.average;
  j["report_cputime"] = o.report_cputime;
  j["blocking"] = o.blocking;
  j["local_register"] = o.register_buffers;
  j["run_cycles"] = o.cycles;
  j["duration_s"] = o.duration_s;
  j["fault_injection"] = o.fault.kind.empty() ? nlohmann::json()
                                              : nlohmann::json{{"kind", o.fault.kind},
                                                               {"method", o.fault.method},
                                                               {"rank", o.fault.rank}};
  return j;
}

}  // namespace peerbench
