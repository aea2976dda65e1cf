#pragma once
// The fleet's verdict in words (fleet_verdict_words.cpp): the verdict line, one line per node that
// does not pass, and a node's flags and problems in one cell. Internal to the fleet reporters;
// fleet_report.h is the public side.
#include <string>
#include <vector>

#include "core/fleet/fleet.h"

namespace peerbench::fleet_detail {

// "FAIL: 1 flagged, 2 incomplete (...), 0 missing, 5 pass, of 8 nodes; ..." or "PASS: ...".
std::string verdict_line(const FleetReport& r);

// One line per node that does not pass, in the nodes' order, the first 10 ("node: why").
std::vector<std::string> node_digest(const FleetReport& r);

// The nodes grouped by the causes of their flags, most nodes first: "3 nodes: ACS enabled on
// their PCIe switches (a, b, c)", then that cause's Next line (fleet_causes.cpp); none where no
// node has a cause.
std::vector<std::string> cause_lines(const FleetReport& r);

// A node's flag codes by count and its first problem; for an incomplete node with neither, why.
std::string flag_summary(const FleetNode& n);

}  // namespace peerbench::fleet_detail
