#pragma once
// The subcommands of the peerbench executable. Each returns the process exit code.
#include <vector>

#include "core/cli/command_line.h"
#include "core/model/method_info.h"
#include "core/platform/launcher.h"
#include "gpu/nccl_comm.h"

namespace peerbench::app {

// `run` under a launcher, before MPI starts: what this rank refuses ("" when nothing: --np under
// a launcher, an --expect file this host cannot read or that has a typo), and where NCCL's log
// goes (decided once per process, before MPI and NCCL start threads that read the environment).
struct RunStart {
  std::string refusal;
  gpu::NcclLogCapture capture;
};
RunStart prepare_run(const RunOptions& o, const LaunchInfo& launch);

// Under a launcher, MPI is started and the ranks have agreed to start (main) before this runs.
int run_command(const CommandLine& cl, int argc, char** argv, const LaunchInfo& launch,
                gpu::NcclLogCapture& capture);
int topo_command(const TopoOptions& o, const std::vector<std::string>& argv);
int report_command(const ReportOptions& o, const std::vector<MethodInfo>& catalog);
int compare_command(const CompareOptions& o);
int history_command(const CompareOptions& o);  // compare of more than two runs
int fleet_command(const FleetOptions& o);
int import_command(const ImportOptions& o);
int doctor_command(const DoctorOptions& o);
int list_methods_command(const std::vector<MethodInfo>& catalog);
int version_command();

}  // namespace peerbench::app
