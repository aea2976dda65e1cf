// The flags of the commands that read results: topo, report, compare, fleet.
#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/cli/flags.h"
#include "core/cli/suggest.h"
#include "core/fleet/fleet_options.h"
#include "core/fleet/fleet_report.h"
#include "core/model/json_in.h"
#include "core/model/sizes.h"

namespace peerbench {
namespace {

ReportFormat parse_format(const std::string& v, const std::string& flag) {
  std::vector<std::string> names{"md"};  // markdown's short name
  for (const auto f :
       {ReportFormat::kText, ReportFormat::kMarkdown, ReportFormat::kHtml, ReportFormat::kCsv}) {
    if (v == to_string(f)) return f;
    names.push_back(to_string(f));
  }
  if (v == "md") return ReportFormat::kMarkdown;
  throw UsageError(flag + ": " + quoted_value(v) +
                   " is not a format; use text, markdown, html or csv" + did_you_mean(v, names));
}

// Plots are embedded (HTML) or linked (Markdown); the other formats have nowhere to put them, and
// the flag was dropped without a word (an audit).
void refuse_plots_unused(const std::string& dir, ReportFormat f, const char* command) {
  if (dir.empty() || f == ReportFormat::kMarkdown || f == ReportFormat::kHtml) return;
  throw UsageError(std::string("--plots: ") + command + " --format " + to_string(f) +
                   " shows no plots; they go into --format markdown or html");
}

}  // namespace

void parse_topo_command(cxxopts::Options& o, const Args& args, CommandLine& cl) {
  o.add_options()("json",
                  "also write the topology as JSON to PATH (-: to standard output, in place of "
                  "the matrix)",
                  cxxopts::value<std::string>())("q,quiet", "do not print the matrix")("h,help",
                                                                                       "this help");
  auto r = parse_args(o, args);
  cl.help_text = o.help();
  if (r.count("help")) {
    cl.command = Command::kHelp;
    return;
  }
  reject_positionals(r, "topo");
  if (r.count("json")) cl.topo.json_path = non_empty_path(get(r, "json"), "--json");
  // "--json -": the JSON alone on standard output, so it can be piped (a file named -: ./-).
  cl.topo.quiet = r.count("quiet") > 0 || cl.topo.json_path == "-";
}

void parse_report_command(cxxopts::Options& o, const Args& args, CommandLine& cl) {
  o.add_options()("inputs", "run JSON files", cxxopts::value<std::vector<std::string>>())(
      "format", "text | markdown | html | csv",
      cxxopts::value<std::string>()->default_value("text"))(
      "o,output", "write here instead of stdout (- is stdout; missing folders are made)",
      cxxopts::value<std::string>())(
      "fail-on",
      "what makes the exit code 1: all | none | comma-separated flag codes and/or incomplete, "
      "contended, throttled, noisy; not-judged only where named (all,not-judged)",
      cxxopts::value<std::string>()->default_value("all"))(
      "expect",
      std::string("the bars to judge by (default: those the run recorded), ") + kExpectFileShape,
      cxxopts::value<std::string>())("plots",
                                     "folder with plots from scripts/plot.py to embed or link",
                                     cxxopts::value<std::string>())("h,help", "this help");
  o.parse_positional({"inputs"});
  o.positional_help("RUN.json [RUN.json ...]");
  auto r = parse_args(o, args);
  cl.help_text = o.help();
  if (r.count("help")) {
    cl.command = Command::kHelp;
    return;
  }
  if (!r.count("inputs")) throw UsageError("report: give at least one run JSON file");
  cl.report.inputs = r["inputs"].as<std::vector<std::string>>();
  cl.report.format = parse_format(get(r, "format"), "--format");
  if (r.count("output")) cl.report.output_path = output_path(get(r, "output"), "-o/--output");
  cl.report.fail_on = get(r, "fail-on");
  check_fail_on(cl.report.fail_on);
  if (r.count("expect")) cl.report.expect_path = non_empty_path(get(r, "expect"), "--expect");
  if (r.count("plots")) cl.report.plots_dir = non_empty_path(get(r, "plots"), "--plots");
  refuse_plots_unused(cl.report.plots_dir, cl.report.format, "report");
}

void add_compare_options(cxxopts::Options& o) {
  o.add_options()("inputs", "baseline and candidate JSON",
                  cxxopts::value<std::vector<std::string>>())(
      "threshold", "relative change to flag, in percent",
      cxxopts::value<std::string>()->default_value("5"))(
      "format", "text | markdown | html | csv",
      cxxopts::value<std::string>()->default_value("text"))(
      "o,output", "write here instead of stdout (- is stdout; missing folders are made)",
      cxxopts::value<std::string>())("match", "match GPUs by host and: pci | uuid | index",
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
  auto r = parse_args(o, args);
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
  if (r.count("plots")) cl.compare.plots_dir = non_empty_path(get(r, "plots"), "--plots");
  if (!cl.compare.plots_dir.empty() && inputs.size() == 2) {
    throw UsageError(
        "--plots: a compare of two runs has no plots to show (its HTML draws its own chart); "
        "it applies to three or more runs");
  }
  cl.compare.threshold = parse_positive_number(get(r, "threshold"), "--threshold") / 100.0;
  if (cl.compare.threshold >= 10) throw UsageError("--threshold: use a percentage below 1000");
  cl.compare.format = parse_format(get(r, "format"), "--format");
  refuse_plots_unused(cl.compare.plots_dir, cl.compare.format, "compare");
  if (r.count("output")) cl.compare.output_path = output_path(get(r, "output"), "-o/--output");
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

namespace {

// fleet --format htlm: the fleet's formats are the words of its own refusal that it accepts, so
// the hint cannot offer one it lacks.
UsageError fleet_format_with_suggestion(const UsageError& e, const Args& args) {
  const std::string message = e.what();
  if (message.rfind("--format: ", 0) != 0) return e;
  std::string given;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string word = args[i];
    if (word == "--format" && i + 1 < args.size()) given = args[i + 1];
    if (word.rfind("--format=", 0) == 0) given = word.substr(9);
  }
  if (given.empty()) return e;
  std::vector<std::string> formats;
  std::string word;
  for (const char c : message + " ") {
    if (c >= 'a' && c <= 'z') {
      word += c;
      continue;
    }
    try {
      if (!word.empty()) (void)parse_fleet_format(word), formats.push_back(word);
    } catch (const UsageError&) {
    }
    word.clear();
  }
  return UsageError(message + did_you_mean(given, formats));
}

}  // namespace

void parse_fleet_command(cxxopts::Options& o, const Args& args, CommandLine& cl) {
  try {
    if (!parse_fleet_command_line(o, static_cast<int>(args.size()), args.data(), cl.fleet,
                                  cl.help_text))
      cl.command = Command::kHelp;
  } catch (const UsageError& e) {
    throw fleet_format_with_suggestion(e, args);
  }
}

}  // namespace peerbench
