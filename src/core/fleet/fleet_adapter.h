#pragma once
// The fleet's only contact with the per-run core: reading a results file, its verdicts, headline
// figures and links. When the verdict or schema code changes, this adapter follows and the
// fleet's analysis and reporters stay as they are.
#include <string>
#include <vector>

#include "core/fleet/fleet.h"
#include "core/judge/verdict.h"

namespace peerbench {

struct FleetExpectations {
  Expectations verdicts;  // the per-run thresholds
  double outlier_tolerance = 0.10;
  std::string source = "built-in defaults";
};

// Reads an --expect file: the verdict keys, plus "fleet_outlier_tolerance" (0-1, default 0.1),
// which the fleet takes out before the verdict reader sees the rest. "" gives the defaults.
// Method names in it are checked against `catalog` where the verdict reader does so.
FleetExpectations load_fleet_expectations(const std::string& path,
                                          const std::vector<MethodInfo>& catalog);

// One node per host of the run in `file`, with its pairs, flags, measurements and versions.
// Throws InputError (or another std::exception) when the file cannot be read as a run.
std::vector<FleetNode> read_fleet_nodes(const std::string& file, const FleetExpectations& e);

}  // namespace peerbench
