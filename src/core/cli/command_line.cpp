#include "core/cli/command_line.h"

#include <algorithm>
#include <cctype>
#include <utility>
#include <vector>

#include <cxxopts.hpp>

#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/cli/flags.h"
#include "core/cli/suggest.h"
#include "core/model/json_in.h"
#include "core/present/text_table.h"

namespace peerbench {
namespace {

constexpr const char* kTagline =
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
    {"import", "import FILE... [-J OUT | --out-dir DIR]",
     "nccl-tests, nvbandwidth, p2pBandwidthLatencyTest and topo -m outputs as results files"},
    {"doctor", "doctor [--json]",
     "what this node says about slow roads: PCIe/ACS, IOMMU, VM, container, NVLinks (no mpirun)"},
    {"help", "help [COMMAND]", "the commands (this help), or the options of one command"},
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
    case Command::kImport:
      return "import";
    case Command::kDoctor:
      return "doctor";
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

// cxxopts' "Option 'minbyte' does not exist" as "unknown flag --minbyte; did you mean
// --minbytes?": it read "peerbench: error: peerbench run: Option ..." with no way on (an audit).
// The flags are the command's own options, so the hint cannot name one it lacks.
std::string unknown_flag_line(const cxxopts::Options& o, const std::string& command,
                              const std::string& message) {
  const std::string tail = "' does not exist";
  const auto open = message.find("Option '");
  const auto close = message.rfind(tail);
  if (open == std::string::npos || close == std::string::npos || close < open + 8) return "";
  const std::string name = message.substr(open + 8, close - open - 8);
  const std::string given = (name.size() == 1 ? "-" : "--") + name;
  std::vector<std::string> flags;
  for (const auto& g : o.groups()) {
    for (const auto& opt : o.group_help(g).options) {
      for (const auto& l : opt.l) flags.push_back("--" + l);
    }
  }
  // A one-letter flag has no near long one ("-Q" was offered "--np").
  const std::string hint = name.size() == 1 ? "" : did_you_mean(given, flags);
  return command + ": unknown flag " + sanitize_for_terminal(given) + hint + " (peerbench " +
         command + " --help lists its flags)";
}

// cxxopts' "Option 'b' is missing an argument" as "-b (--minbytes) needs a value: smallest size
// (K/M/G binary suffixes) (default: 1M)", from the command's own help line; "---x ... incorrect
// syntax" as a word that is not a flag. "" where the message is neither.
std::string flag_syntax_line(const cxxopts::Options& o, const std::string& command,
                             const std::string& message) {
  const std::string see = " (peerbench " + command + " --help lists its flags)";
  const auto quoted = [&](std::size_t open) {
    const auto close = message.find('\'', open + 1);
    return close == std::string::npos ? std::string() : message.substr(open + 1, close - open - 1);
  };
  if (message.find("starts with a - but has incorrect syntax") != std::string::npos) {
    const auto open = message.find('\'');
    const std::string word = quoted(open);
    // "--b": a one-letter flag takes one dash.
    if (word.size() == 3 && word.rfind("--", 0) == 0 && word[2] != '-')
      return command + ": '" + sanitize_for_terminal(word) + "' is not a flag: a one-letter flag " +
             "takes one dash (-" + sanitize_for_terminal(word.substr(2)) + ")" + see;
    return command + ": '" + sanitize_for_terminal(word) +
           "' is not a flag: a flag is -x or --name" + see;
  }
  const auto missing = message.find("' is missing an argument");
  const auto open = message.find("Option '");
  if (missing == std::string::npos || open == std::string::npos) return "";
  const std::string name = quoted(open + 7);
  std::string given = (name.size() == 1 ? "-" : "--") + name, what;
  // The help line of the flag: "  -b, --minbytes arg    smallest size ...".
  const std::string help = o.help();
  const std::string key = name.size() == 1 ? "-" + name + ", --" : "--" + name + " arg";
  const auto trim = [](const std::string& t) {
    const auto b = t.find_first_not_of(' ');
    return b == std::string::npos ? std::string() : t.substr(b, t.find_last_not_of(' ') - b + 1);
  };
  if (const auto at = help.find(key); at != std::string::npos) {
    const auto start = help.rfind('\n', at) + 1;  // npos + 1: the first line
    const auto lines = split(help.substr(start), '\n');
    const std::string& line = lines.front();
    if (name.size() == 1) {
      const auto long_name = at - start + 4;  // past "-b, "
      given += " (" + line.substr(long_name, line.find(' ', long_name) - long_name) + ")";
    }
    const auto arg = line.find(" arg ");
    const auto column = arg == std::string::npos ? arg : line.find_first_not_of(' ', arg + 4);
    if (column != std::string::npos) what = trim(line.substr(column));
    // cxxopts wraps a long description onto lines indented to its column (a wrapped line may
    // start with "-": "(0: use -b's ...").
    for (std::size_t i = 1; i < lines.size() && !what.empty(); ++i) {
      if (lines[i].find_first_not_of(' ') != column) break;
      what += " " + trim(lines[i]);
    }
  }
  return command + ": " + sanitize_for_terminal(given) + " needs a value" +
         (what.empty() ? see : ": " + what);
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

constexpr std::pair<const char*, Command> kCommands[] = {
    {"run", Command::kRun},         {"topo", Command::kTopo},   {"report", Command::kReport},
    {"compare", Command::kCompare}, {"fleet", Command::kFleet}, {"import", Command::kImport},
    {"doctor", Command::kDoctor}};

// "unknown command 'reprot'; did you mean report? ...", for the first word and for help's.
UsageError unknown_command(const std::string& word, const std::string& before) {
  std::vector<std::string> names;
  for (const auto& c : kCommands) names.push_back(c.first);
  names.push_back("help");
  const std::string hint = did_you_mean(word, names);
  return UsageError(before + "unknown command " + quoted_value(word) +
                    (hint.empty() ? "; use " : hint + " (") + or_list(names) +
                    (hint.empty() ? "" : ")"));
}

NamedCommand named_command(int argc, const char* const* argv) {
  if (argc <= 1) return {Command::kRun, 1};
  const std::string sub = argv[1];
  for (const auto& [name, command] : kCommands) {
    if (sub == name) return {command, 2};
  }
  if (!sub.empty() && sub[0] != '-') throw unknown_command(sub, "");
  return {Command::kRun, 1};
}

// `help COMMAND`'s own help, for `peerbench help --help`.
std::string help_of_help() {
  return command_description("help") +
         "\nUsage:\n  peerbench help [COMMAND]\n\n"
         "  COMMAND  run, topo, report, compare, fleet, import or doctor: its options (peerbench "
         "COMMAND "
         "--help);\n"
         "           left out: the commands (peerbench --help)\n";
}

// `peerbench help` is --help, `peerbench help COMMAND` is COMMAND --help.
CommandLine help_command(int argc, const char* const* argv,
                         const std::vector<MethodInfo>& catalog) {
  CommandLine cl;
  if (argc > 3)
    throw UsageError("help: takes one command (got " + quoted_value(argv[2]) + " and " +
                     quoted_value(argv[3]) + "); peerbench help COMMAND");
  const std::string command = argc == 3 ? argv[2] : "";
  if (command.empty() || command == "-h" || command == "--help") {
    cl.command = Command::kHelp;
    cl.help_text = command.empty() ? top_level_help() : help_of_help();
  } else if (std::any_of(std::begin(kCommands), std::end(kCommands),
                         [&](const auto& c) { return command == c.first; })) {
    const char* words[] = {argv[0], argv[2], "--help"};
    cl = parse_command_line(3, words, catalog);
  } else {
    throw unknown_command(command, "help: ");
  }
  cl.argv.assign(argv, argv + argc);
  return cl;
}

// The named command's own flags into `cl` (each command's parse_*_command).
void parse_command_options(cxxopts::Options& o, const Args& args,
                           const std::vector<MethodInfo>& catalog, CommandLine& cl) {
  switch (cl.command) {
    case Command::kRun:
      return parse_run_command(o, args, catalog, cl);
    case Command::kTopo:
      return parse_topo_command(o, args, cl);
    case Command::kReport:
      return parse_report_command(o, args, cl);
    case Command::kCompare:
      return parse_compare_command(o, args, cl);
    case Command::kFleet:
      return parse_fleet_command(o, args, cl);
    case Command::kImport:
      return parse_import_command(o, args, cl);
    case Command::kDoctor:
      return parse_doctor_command(o, args, cl);
    default:
      return;
  }
}

}  // namespace

CommandLine parse_command_line(int argc, const char* const* argv,
                               const std::vector<MethodInfo>& catalog) {
  if (argc >= 2 && std::string(argv[1]) == "help") return help_command(argc, argv, catalog);
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

  cxxopts::Options o(prog, command_description(command_name(cl.command)));
  try {
    parse_command_options(o, args, catalog, cl);
    // Before anything the switches turned on acts: --help=false gave the help.
    reject_switch_values(o, args);
    reject_flags_as_values(o, args);  // fleet's options parse outside parse_args
    if (cl.command != Command::kHelp)
      reject_repeated_flags(o.parse(static_cast<int>(args.size()), args.data()));
  } catch (const cxxopts::exceptions::incorrect_argument_type& e) {
    throw UsageError(command_name(cl.command) + ": " +
                     flag_given_a_value(args, clean_cxxopts_message(e.what())));
  } catch (const cxxopts::exceptions::exception& e) {
    // The clearer line where one applies: -q=false is "Option '=' does not exist" to cxxopts.
    reject_switch_values(o, args);
    if (cl.command == Command::kRun) reject_threads_and_gpus(args);
    const std::string message = clean_cxxopts_message(e.what());
    std::string line = unknown_flag_line(o, command_name(cl.command), message);
    if (line.empty()) line = flag_syntax_line(o, command_name(cl.command), message);
    throw UsageError(!line.empty() ? line : command_name(cl.command) + ": " + message);
  }
  return cl;
}

}  // namespace peerbench
