#pragma once
// The steps that make a fleet of nodes read from results files (build_fleet, assemble_fleet in
// fleet.cpp), each defined in the file of its concern. Internal to the fleet files; fleet.h is the
// public side.
#include <map>
#include <string>
#include <vector>

#include "core/fleet/fleet.h"
#include "core/fleet/fleet_adapter.h"

namespace peerbench::fleet_detail {

// fleet_inputs.cpp: a node for a results file that could not be read, named for the file; what
// a *.json the run reader refused (`why`) is, where peerbench writes it beside runs ("" otherwise);
// and the
// nodes of the files found. A file found in a folder that peerbench wrote beside runs is left
// out with a note in `skipped`; one named on the command line that is no run (a topology, a
// baseline, JSON of another kind) is refused (UsageError); any other file that cannot be read is
// an unreadable node.
FleetNode unreadable_node(const std::string& file, const std::string& reason);
std::string other_peerbench_file(const std::string& path, const std::exception& why);
std::vector<FleetNode> read_result_files(const ResultFiles& found, const FleetExpectations& e,
                                         std::vector<std::string>& skipped);

// fleet_hosts.cpp: one node per host, the later run counting (the earlier ones in `earlier`);
// the hosts of the --hosts list no file names, as missing nodes; the nodes naming one GPU.
std::vector<FleetNode> resolve_duplicates(
    std::vector<FleetNode> nodes, std::vector<std::string>& notes,
    std::map<std::string, std::vector<FleetReport::EarlierRun>>& earlier);
void add_expected_hosts(std::vector<FleetNode>& nodes, const std::vector<std::string>& hosts,
                        std::vector<std::string>& notes);
// Sets FleetNode::shares_gpus_with, notes each set of nodes naming the same GPUs, and returns
// how many nodes do.
int note_shared_gpus(std::vector<FleetNode>& nodes, std::vector<std::string>& notes);

// fleet_outliers.cpp: the fleet's groups (method, GPU model, link) at their judged size, each
// pair's position in its group and the fleet-outlier flags.
std::vector<FleetGroup> place_in_fleet(std::vector<FleetNode>& nodes, double tolerance);
// A group's spread of `values`, its members' figures (sorted here): pairs, nodes, min, quartiles,
// max, and whether it has pairs enough to judge (fleet_outliers.cpp; fleet_short.cpp too).
void set_spread(FleetGroup& g, std::vector<double> values, std::size_t nodes);

// fleet_coverage.cpp: what a node did not measure that the fleet did, as its problems; the cases
// it lacks at the fleet's sizes, one problem per size.
void add_coverage_problems(std::vector<FleetNode>& nodes);
void say_sizes_not_measured(FleetNode& n);

// fleet_versions.cpp: the nodes by driver, CUDA and NCCL version.
std::vector<VersionSpread> version_spreads(const std::vector<FleetNode>& nodes);

// "a, b, c and 4 more"
std::string some_of(const std::vector<std::string>& names, std::size_t shown = 6);

}  // namespace peerbench::fleet_detail
