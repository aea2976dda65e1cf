// peerbench: what GPU-to-GPU links really deliver, and where traffic takes a slow road.
#include <cstdio>
#include <exception>
#include <new>

#include "app/commands.h"
#include "core/atomic_file.h"
#include "core/errors.h"
#include "core/launcher.h"
#include "gpu/method.h"
#include "gpu/mpi_context.h"

namespace {

int run_peerbench(int argc, char** argv, const peerbench::LaunchInfo& launch) {
  using namespace peerbench;
  const bool printing = is_printing_rank(launch);
  CommandLine cl;
  try {
    cl = parse_command_line(argc, argv, gpu::method_catalog());
  } catch (const UsageError& e) {
    if (launch.under_launcher) return app::refuse_with_peers(argc, argv, e.what());
    std::fprintf(stderr, "peerbench: error: %s\n", e.what());
    return kExitUsage;
  }
  try {
    switch (cl.command) {
      case Command::kHelp:
        if (printing) std::fputs(cl.help_text.c_str(), stdout);
        return kExitOk;
      case Command::kVersion:
        return printing ? app::version_command() : kExitOk;
      case Command::kListMethods:
        return printing ? app::list_methods_command(gpu::method_catalog()) : kExitOk;
      case Command::kReport:
        return app::report_command(cl.report, gpu::method_catalog());
      case Command::kCompare:
        return app::compare_command(cl.compare);
      case Command::kFleet:
        return app::fleet_command(cl.fleet);
      case Command::kTopo:
        return app::topo_command(cl.topo, cl.argv);
      case Command::kRun:
        return app::run_command(cl, argc, argv);
    }
  } catch (const UsageError& e) {
    if (printing) std::fprintf(stderr, "peerbench: error: %s\n", e.what());
    return kExitUsage;
  } catch (const InputError& e) {
    if (printing) std::fprintf(stderr, "peerbench: error: %s\n", e.what());
    return kExitUsage;
  } catch (const WriteError& e) {  // an output path the user gave cannot be written
    if (printing) std::fprintf(stderr, "peerbench: error: %s\n", e.what());
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace

// Exit codes, for every command: 0 fine, 1 measured problems, 2 bad input or a launch that
// cannot work. Nothing escapes main: whatever is thrown ends as one line and a code.
int main(int argc, char** argv) {
  using namespace peerbench;
  try {
    const LaunchInfo launch = detect_launcher();
    return run_peerbench(argc, argv, launch);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "peerbench: error: out of memory; the input asks for more than fits\n");
    return kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "peerbench: error: %s\n", e.what());
    return kExitFlagged;
  } catch (...) {
    std::fprintf(stderr, "peerbench: error: unexpected failure\n");
    return kExitFlagged;
  }
}
