#pragma once
// Command line of every subcommand, parsed and validated without touching a GPU or MPI, so that
// every rank of a job reaches the same verdict on the same argv.
#include <string>
#include <vector>

#include "core/fleet/fleet.h"
#include "core/model/method_info.h"
#include "core/plan/run_options.h"
#include "core/present/view_options.h"

namespace peerbench {

enum class Command { kRun, kTopo, kReport, kCompare, kFleet, kListMethods, kVersion, kHelp };

struct CommandLine {
  Command command = Command::kRun;
  RunOptions run;
  TopoOptions topo;
  ReportOptions report;
  CompareOptions compare;
  FleetOptions fleet;
  std::string help_text;
  std::vector<std::string> argv;  // as given, for the results' tool.command_line
};

// Parses argv. `catalog` lists the methods the binary has. Throws UsageError with a one-line
// message naming the flag and what is allowed.
CommandLine parse_command_line(int argc, const char* const* argv,
                               const std::vector<MethodInfo>& catalog);

}  // namespace peerbench
