#include "core/cli/command_line.h"

#include <algorithm>
#include <cctype>
#include <utility>
#include <vector>

#include <cxxopts.hpp>

#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/cli/flags.h"
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

// Edit distance of two short words (flag names), for "did you mean".
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// cxxopts' "Option 'minbyte' does not exist" as "unknown flag --minbyte; did you mean
// --minbytes?": it read "peerbench: error: peerbench run: Option ..." with no way on (an audit).
// The flags come from the command's own help text, so the hint cannot name one it lacks.
std::string unknown_flag_line(const cxxopts::Options& o, const std::string& command,
                              const std::string& message) {
  const std::string tail = "' does not exist";
  const auto open = message.find("Option '");
  const auto close = message.rfind(tail);
  if (open == std::string::npos || close == std::string::npos || close < open + 8) return "";
  const std::string name = message.substr(open + 8, close - open - 8);
  const std::string given = (name.size() == 1 ? "-" : "--") + name;
  std::string best;
  // A typo or two; farther is another word. A one-letter flag has no near long one ("-Q" was
  // offered "--np").
  std::size_t best_distance = name.size() == 1 ? 0 : 3;
  const std::string help = o.help();
  for (auto p = help.find("--"); p != std::string::npos; p = help.find("--", p + 2)) {
    auto e = p + 2;
    while (e < help.size() &&
           (std::isalnum(static_cast<unsigned char>(help[e])) || help[e] == '-' || help[e] == '_'))
      ++e;
    const std::string flag = help.substr(p + 2, e - p - 2);
    if (flag.size() < 2) continue;
    const std::size_t d = edit_distance(name, flag);
    if (d < best_distance) best_distance = d, best = flag;
  }
  return command + ": unknown flag " + sanitize_for_terminal(given) +
         (best.empty() ? "" : "; did you mean --" + best + "?") + " (peerbench " + command +
         " --help lists its flags)";
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

}  // namespace

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

  cxxopts::Options o(prog, command_description(command_name(cl.command)));
  try {
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
