// peerbench: what GPU-to-GPU links really deliver, and where traffic takes a slow road.
#include <cerrno>
#include <cstdio>
#include <exception>
#include <iostream>
#include <new>
#include <optional>
#include <string>

#include "app/commands.h"
#include "app/output.h"
#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/build_info.h"
#include "core/platform/atomic_file.h"
#include "core/platform/launcher.h"
#include "gpu/method.h"
#include "gpu/mpi_context.h"

namespace {

// One line on stderr whatever the message quotes: file text, paths and option values may hold
// newlines or escape sequences, shown escaped (core/base/text.h).
void print_error(const std::string& what) {
  std::fprintf(stderr, "peerbench: error: %s\n", peerbench::error_line(what).c_str());
}

// What every rank must share to run one job: the peerbench build and its arguments.
std::string identity(int argc, char** argv) {
  std::string s =
      std::string(peerbench::build_info::kVersion) + " " + peerbench::build_info::kGitRevision;
  for (int i = 1; i < argc; ++i) s += std::string(1, '\0') + argv[i];
  return s;
}

// Runs the parsed command; a refusal it throws is one line on the printing rank and exit code 2.
int run_command_line(const peerbench::CommandLine& cl, int argc, char** argv,
                     const peerbench::LaunchInfo& launch, peerbench::app::RunStart& run,
                     bool printing) {
  using namespace peerbench;
  try {
    switch (cl.command) {
      case Command::kHelp:
        std::fputs(cl.help_text.c_str(), stdout);
        return kExitOk;
      case Command::kVersion:
        return app::version_command();
      case Command::kListMethods:
        return app::list_methods_command(gpu::method_catalog());
      case Command::kReport:
        return app::report_command(cl.report, gpu::method_catalog());
      case Command::kCompare:
        return app::compare_command(cl.compare);
      case Command::kFleet:
        return app::fleet_command(cl.fleet);
      case Command::kImport:
        return app::import_command(cl.import);
      case Command::kDoctor:
        return app::doctor_command(cl.doctor);
      case Command::kTopo:
        return app::topo_command(cl.topo, cl.argv);
      case Command::kRun:
        return app::run_command(cl, argc, argv, launch, run.capture);
    }
  } catch (const UsageError& e) {
    if (printing) print_error(e.what());
    return kExitUsage;
  } catch (const InputError& e) {
    if (printing) print_error(e.what());
    return kExitUsage;
  } catch (const WriteError& e) {  // an output path the user gave cannot be written
    if (printing) print_error(e.what());
    return kExitUsage;
  }
  return kExitOk;
}

int run_peerbench(int argc, char** argv, const peerbench::LaunchInfo& launch) {
  using namespace peerbench;
  const bool printing = is_printing_rank(launch);
  CommandLine cl;
  std::string refusal;
  try {
    cl = parse_command_line(argc, argv, gpu::method_catalog());
  } catch (const UsageError& e) {
    refusal = e.what();
  }
  // Under a launcher every rank meets the others first, whatever its command: an early exit
  // with an error would make the launcher kill the rank still writing why, and ranks started
  // differently would never meet in the same collectives.
  app::RunStart run;  // before MPI: run's own refusals and where NCCL's log goes
  if (launch.under_launcher && refusal.empty() && cl.command == Command::kRun) {
    run = app::prepare_run(cl.run, launch);
    refusal = run.refusal;
  }
  std::optional<gpu::MpiSession> mpi;
  if (launch.under_launcher) {
    try {
      mpi.emplace(&argc, &argv);
      if (gpu::agree_to_start(refusal, identity(argc, argv))) return kExitUsage;
    } catch (const std::exception& e) {
      if (refusal.empty()) throw;
      refusal += std::string(" (and MPI could not start: ") + e.what() + ")";
    }
  }
  if (!refusal.empty()) {
    print_error(refusal);
    return kExitUsage;
  }
  // Commands other than run are one rank's work; the others have nothing to add.
  if (cl.command != Command::kRun && !printing) return kExitOk;
  return run_command_line(cl, argc, argv, launch, run, printing);
}

// Standard output redirected to a full disk or a closed descriptor fails at the flush, and the
// flush at exit is silent: a CI job took a CSV cut mid-row with exit code 0 (an audit).
int stdout_checked(int code) {
  errno = 0;
  std::cout.flush();
  const int flush_errno = errno;
  const bool failed = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout);
  // An exit code of 2 has said why already (emit names the failed write itself).
  if (!failed || code == peerbench::kExitUsage) return code;
  const int why = flush_errno ? flush_errno : errno;
  print_error(peerbench::app::stdout_write_failed(why));
  return peerbench::kExitUsage;
}

}  // namespace

// Exit codes, for every command: 0 fine, 1 measured problems, 2 bad input or a launch that
// cannot work. Nothing escapes main: whatever is thrown ends as one line and a code.
int main(int argc, char** argv) {
  using namespace peerbench;
  try {
    const LaunchInfo launch = detect_launcher();
    return stdout_checked(run_peerbench(argc, argv, launch));
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "peerbench: error: out of memory; the input asks for more than fits\n");
    return kExitUsage;
  } catch (const std::exception& e) {
    print_error(e.what());
    return kExitFlagged;
  } catch (...) {
    std::fprintf(stderr, "peerbench: error: unexpected failure\n");
    return kExitFlagged;
  }
}
