#pragma once
// What the parsers of the commands share: the argv they read, a flag's value, the checks every
// command makes alike. Internal to core/cli.
#include <string>
#include <vector>

#include <cxxopts.hpp>

#include "core/base/errors.h"
#include "core/cli/command_line.h"

namespace peerbench {

// argv[0] and the words after the command's name.
using Args = std::vector<const char*>;

// A word that is not an option is refused, naming the command's --help.
void reject_positionals(const cxxopts::ParseResult& r, const std::string& command);
// A flag given twice with two values: only the last would count, and the first would be dropped
// without a word (-m a -m b, --expect x --expect y). The same value twice, and words that are
// not options, pass.
void reject_repeated_flags(const cxxopts::ParseResult& r);
// A switch given a value (--inplace=false, -q=0): cxxopts turned it on whatever the value, so
// --dry-run=false ran a dry run (an audit). Refused, naming the switch; `o` holds the options.
void reject_switch_values(const cxxopts::Options& o, const Args& args);
// A flag that takes a value followed by a word that reads as a flag ("-o -q"): cxxopts took
// "-q" as the file name and wrote it (an audit). "--output=-q" and "./-q" still give that name.
void reject_flags_as_values(const cxxopts::Options& o, const Args& args);
// The command's words parsed, switches given a value refused first (above).
cxxopts::ParseResult parse_args(cxxopts::Options& o, const Args& args);
// -t or -g with no value: cxxopts' "missing an argument" hid that they are refused at all.
void reject_threads_and_gpus(const Args& args);
UsageError one_rank_per_gpu(bool threads);  // -t (true) or -g: the one line that refuses them
// The value of a flag that has one (a default or a given one).
std::string get(const cxxopts::ParseResult& r, const std::string& key);
// --fail-on (run and report): all, none, or flag codes and failing states, comma-separated.
void check_fail_on(const std::string& fail_on);

// A flag given for methods none of which was selected would be dropped without a word (-m
// ce-write -d double measured no double; an audit): refused, naming the methods it applies to.
// Reads which flags were given from o.flags_given.
void refuse_flags_that_apply_to_nothing(const RunOptions& o,
                                        const std::vector<MethodInfo>& catalog);

// The --expect file's shape in one line, for the help of every command that reads one; its keys
// are the file's own (core/judge/expectations.cpp; options_test parses the example).
inline constexpr const char* kExpectFileShape =
    "a JSON file: {\"min_gbps\": {\"ce-write\": 380, \"nccl-sendrecv\": {\"nvlink\": 340, "
    "\"pcie\": 20}}, \"max_latency_us\": {\"ce-latency\": 5}, \"expected_fraction\": 0.85, "
    "\"fraction_of_link\": 0.8, \"judge_min_bytes\": \"64M\", ...}";

// run's flags, group by group, and its --help: the groups, then three examples.
void add_run_options(cxxopts::Options& o);
std::string run_help(const cxxopts::Options& o);

// Each command's parser fills its part of `cl`; --help (and run's --version and
// --list-methods) turn cl.command into that request instead.
void parse_run_command(cxxopts::Options& o, const Args& args,
                       const std::vector<MethodInfo>& catalog, CommandLine& cl);
void parse_topo_command(cxxopts::Options& o, const Args& args, CommandLine& cl);
void parse_report_command(cxxopts::Options& o, const Args& args, CommandLine& cl);
void parse_compare_command(cxxopts::Options& o, const Args& args, CommandLine& cl);
void parse_fleet_command(cxxopts::Options& o, const Args& args, CommandLine& cl);
void parse_import_command(cxxopts::Options& o, const Args& args, CommandLine& cl);
void parse_doctor_command(cxxopts::Options& o, const Args& args, CommandLine& cl);

}  // namespace peerbench
