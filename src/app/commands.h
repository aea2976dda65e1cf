#pragma once
// The subcommands of the peerbench executable. Each returns the process exit code.
#include <vector>

#include "core/method_info.h"
#include "core/options.h"

namespace peerbench::app {

int run_command(const CommandLine& cl, int argc, char** argv);
int topo_command(const TopoOptions& o, const std::vector<std::string>& argv);
int report_command(const ReportOptions& o, const std::vector<MethodInfo>& catalog);
int compare_command(const CompareOptions& o);
int history_command(const CompareOptions& o);  // compare of more than two runs
int fleet_command(const FleetOptions& o);
int list_methods_command(const std::vector<MethodInfo>& catalog);
int version_command();

}  // namespace peerbench::app
