// peerbench: what GPU-to-GPU links really deliver, and where traffic takes a slow road.
#include <cstdio>
#include <exception>

#include "app/commands.h"
#include "core/errors.h"
#include "core/launcher.h"
#include "gpu/method.h"

int main(int argc, char** argv) {
  using namespace peerbench;
  const LaunchInfo launch = detect_launcher();
  const bool printing = is_printing_rank(launch);
  CommandLine cl;
  try {
    cl = parse_command_line(argc, argv, gpu::method_catalog());
  } catch (const UsageError& e) {
    // Every rank parses the same argv and fails alike; one of them says why.
    if (printing) std::fprintf(stderr, "peerbench: error: %s\n", e.what());
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
        return app::report_command(cl.report);
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
  } catch (const std::exception& e) {
    std::fprintf(stderr, "peerbench: error: %s\n", e.what());
    return kExitFlagged;
  }
  return kExitOk;
}
