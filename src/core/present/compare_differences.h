#pragma once
// What differs between two runs besides their figures (compare_differences.cpp). Internal to the
// compare files.
#include <set>
#include <string>

#include "core/present/compare.h"

namespace peerbench::compare_detail {

// The UUIDs of a run's GPUs ("" for a rank that recorded none).
std::set<std::string> card_uuids(const RunDocument& d);

// What differs between the runs besides the figures: versions, GPUs, hosts, config, environment,
// in c.differences; the hosts of each where they differ (c.hosts_a, hosts_b, other_hosts).
void what_differs(const RunDocument& a, const RunDocument& b, Comparison& c);

}  // namespace peerbench::compare_detail
