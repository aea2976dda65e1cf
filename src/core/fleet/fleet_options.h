#pragma once
// The command line of `peerbench fleet`, declared and read here so the shared parser only
// dispatches to it.
#include <string>

#include <cxxopts.hpp>

#include "core/fleet/fleet.h"

namespace peerbench {

// Declares fleet's options on `o` and parses argv into `out`; `help` gets the help text.
// Returns false when --help was asked. Throws UsageError (or cxxopts' own exceptions) on bad
// input.
bool parse_fleet_command_line(cxxopts::Options& o, int argc, const char* const* argv,
                              FleetOptions& out, std::string& help);

}  // namespace peerbench
