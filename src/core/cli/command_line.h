#pragma once
// Command line of every subcommand, parsed and validated without touching a GPU or MPI, so that
// every rank of a job reaches the same verdict on the same argv.
#include <string>
#include <vector>

#include "core/fleet/fleet.h"
#include "core/import/import.h"
#include "core/model/method_info.h"
#include "core/plan/run_options.h"
#include "core/present/view_options.h"

namespace peerbench {

enum class Command {
  kRun,
  kTopo,
  kReport,
  kCompare,
  kFleet,
  kImport,
  kDoctor,
  kListMethods,
  kVersion,
  kHelp
};

// `peerbench doctor`: the node's evidence and what it finds wrong, without MPI or a launcher.
struct DoctorOptions {
  std::string root = "/";  // --root: read sysfs and procfs under this folder (tests' fixtures)
  bool json = false;       // --json: the evidence as JSON on standard output, then no page
};

struct CommandLine {
  Command command = Command::kRun;
  RunOptions run;
  TopoOptions topo;
  ReportOptions report;
  CompareOptions compare;
  FleetOptions fleet;
  ImportOptions import;
  DoctorOptions doctor;
  std::string help_text;
  std::vector<std::string> argv;  // as given, for the results' tool.command_line
};

// Parses argv. `catalog` lists the methods the binary has. Throws UsageError with a one-line
// message naming the flag and what is allowed.
CommandLine parse_command_line(int argc, const char* const* argv,
                               const std::vector<MethodInfo>& catalog);

// The run of a job of `ranks` ranks, once that count is known (the local GPUs, --np, the
// launcher's): core/plan's fit_methods_to_ranks applied to `o` (-m left out on one rank: the host
// link's methods), and the flags given checked again against the methods left, so none is dropped
// without a word (UsageError). Returns the one line that says what changed, "" when nothing did.
// `where`: the rank count as the user knows it ("1 GPU on this host", "--np 1").
std::string fit_run_to_ranks(RunOptions& o, int ranks, const std::vector<MethodInfo>& catalog,
                             const std::string& where);

}  // namespace peerbench
