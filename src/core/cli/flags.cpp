#include "core/cli/flags.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/judge/verdict.h"
#include "core/model/flag_table.h"
#include "core/model/json_in.h"

namespace peerbench {

void reject_positionals(const cxxopts::ParseResult& r, const std::string& command) {
  if (!r.unmatched().empty()) {
    throw UsageError(command + ": unexpected argument '" + r.unmatched().front() +
                     "'; options start with - (see peerbench " + command + " --help)");
  }
}

void reject_repeated_flags(const cxxopts::ParseResult& r) {
  std::map<std::string, std::string> first;
  for (const auto& kv : r.arguments()) {
    const std::string& k = kv.key();
    if (k == "inputs" || k == "paths") continue;  // the positional words
    const auto [it, added] = first.emplace(k, kv.value());
    if (added || it->second == kv.value()) continue;
    const std::string flag = (k.size() == 1 ? "-" : "--") + k;
    const bool list = k == "methods" || k == "pairs" || k == "datatype" || k == "op" ||
                      k == "fail-on" || k == "confirm";
    throw UsageError(flag + ": given twice (" + quoted_value(it->second) + ", then " +
                     quoted_value(kv.value()) + "); give it once" +
                     (list ? " (its values comma-separated: " + flag + " a,b)" : ""));
  }
}

void reject_switch_values(const cxxopts::Options& o, const Args& args) {
  std::set<std::string> switches;
  for (const auto& g : o.groups()) {
    for (const auto& opt : o.group_help(g).options) {
      if (!opt.is_boolean) continue;
      if (!opt.s.empty()) switches.insert("-" + opt.s);
      for (const auto& l : opt.l) switches.insert("--" + l);
    }
  }
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string word = args[i];
    if (word == "--") break;
    const auto eq = word.find('=');
    if (word.size() < 2 || word[0] != '-' || eq == std::string::npos) continue;
    const std::string name = word.substr(0, eq);
    if (!switches.count(name)) continue;
    throw UsageError(name + ": takes no value (got " + quoted_value(word.substr(eq + 1)) +
                     "); give the switch alone to turn it on, leave it out to keep it off");
  }
}

void reject_flags_as_values(const cxxopts::Options& o, const Args& args) {
  // "-o" and "--output" -> {"-o (--output)", "--output"}
  std::map<std::string, std::pair<std::string, std::string>> takes_value;
  for (const auto& g : o.groups()) {
    for (const auto& opt : o.group_help(g).options) {
      if (opt.is_boolean || opt.l.empty()) continue;
      const std::string named =
          opt.s.empty() ? "--" + opt.l.front() : "-" + opt.s + " (--" + opt.l.front() + ")";
      const std::pair<std::string, std::string> v{named, "--" + opt.l.front()};
      if (!opt.s.empty()) takes_value["-" + opt.s] = v;
      for (const auto& l : opt.l) takes_value["--" + l] = v;
    }
  }
  for (std::size_t i = 1; i + 1 < args.size(); ++i) {
    const std::string word = args[i], next = args[i + 1];
    if (word == "--") break;
    const auto flag = takes_value.find(word);
    // A negative number is a value; "-q", "--format" and "-x" read as flags.
    if (flag == takes_value.end() || next.size() < 2 || next[0] != '-' ||
        std::isdigit(static_cast<unsigned char>(next[1])) || next[1] == '.')
      continue;
    throw UsageError(
        flag->second.first + ": needs a value; the word after it, " + quoted_value(next) +
        ", reads as a flag (a value that starts with -: " + flag->second.second + "=" + next + ")");
  }
}

cxxopts::ParseResult parse_args(cxxopts::Options& o, const Args& args) {
  reject_switch_values(o, args);
  reject_flags_as_values(o, args);
  return o.parse(static_cast<int>(args.size()), args.data());
}

UsageError one_rank_per_gpu(bool threads) {
  return UsageError(std::string(threads ? "-t/--nthreads" : "-g/--ngpus") +
                    ": peerbench runs one rank per GPU; start one rank per GPU with mpirun -np N "
                    "(or without a launcher: every local GPU)");
}

void reject_threads_and_gpus(const Args& args) {
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string word = args[i];
    if (word == "--") break;
    const bool threads = word == "-t" || word == "--nthreads";
    if (threads || word == "-g" || word == "--ngpus") throw one_rank_per_gpu(threads);
  }
}

std::string get(const cxxopts::ParseResult& r, const std::string& key) {
  return r[key].as<std::string>();
}

void check_fail_on(const std::string& fail_on) {
  if (fail_on == "all" || fail_on == "none") return;
  auto codes = known_flag_codes();
  for (const auto& s : failing_states()) codes.push_back(s);
  // What "all" leaves out and may name beside it: the opt-in states, and any flag that does not
  // fail by default (core/model/flag_table.h).
  auto opt_in = opt_in_failing_states();
  for (const auto& c : known_flag_codes()) {
    if (!find_flag(c)->fails_by_default) opt_in.push_back(c);
  }
  for (const auto& s : opt_in_failing_states()) codes.push_back(s);
  const auto given = split(fail_on, ',');
  // "all," read "'all' stands alone": the empty item is the fault (a hostile audit).
  if (std::any_of(given.begin(), given.end(), [](const std::string& c) { return c.empty(); }))
    throw UsageError("--fail-on: an empty item in '" + fail_on +
                     "'; give all, none or a comma-separated list of: " + join(codes));
  // "all" goes with the states it leaves out ("all,not-judged"), with nothing else.
  const bool all_with_opt_in = std::all_of(given.begin(), given.end(), [&](const std::string& c) {
    return c == "all" || std::find(opt_in.begin(), opt_in.end(), c) != opt_in.end();
  });
  for (const auto& c : given) {
    if ((c == "all" && !all_with_opt_in) || c == "none") {
      // "all,none" read "unknown flag or state 'all'" (an audit)
      throw UsageError("--fail-on: '" + c + "' stands alone" +
                       (c == "all" ? " (or with " + join(opt_in) + ")" : "") +
                       "; give it by itself, or a list of: " + join(codes));
    }
    if (c == "all") continue;
    if (std::find(codes.begin(), codes.end(), c) == codes.end()) {
      throw UsageError("--fail-on: unknown flag or state '" + c +
                       "'; use all, none or: " + join(codes));
    }
  }
}

}  // namespace peerbench
