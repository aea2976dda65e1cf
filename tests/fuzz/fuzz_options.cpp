// libFuzzer target: any command line (the input split at NUL bytes into arguments) through the
// options parser, then, when it is a run, the plan for a small job. Only UsageError may come out;
// anything else (std::out_of_range, bad_alloc, a crash, a hang) is a bug.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "core/base/errors.h"
#include "core/cli/command_line.h"
#include "core/model/json_text.h"
#include "core/model/method_catalog.h"
#include "core/plan/plan.h"
#include "core/present/plan_text.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace peerbench;
  std::vector<std::string> args{"peerbench"};
  std::string current;
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      args.push_back(current);
      current.clear();
    } else {
      current += static_cast<char>(data[i]);
    }
  }
  if (!current.empty()) args.push_back(current);
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  static const auto catalog = method_catalog();
  try {
    const CommandLine cl = parse_command_line(static_cast<int>(argv.size()), argv.data(), catalog);
    if (cl.command != Command::kRun) return 0;
    (void)json_text(run_options_to_json(cl.run));  // as the results file writes it
    // A small job (the rank count from the input's length), hosts of two GPUs each.
    const int n = 2 + static_cast<int>(size % 7);
    std::vector<std::string> hosts;
    for (int r = 0; r < n; ++r) hosts.push_back("h" + std::to_string(r / 2));
    const PlanInput in = make_plan_input(cl.run, n, hosts, catalog);
    std::ostringstream out;
    write_plan(out, in, cl.run.verbosity >= 2);
  } catch (const UsageError&) {
  }
  return 0;
}
