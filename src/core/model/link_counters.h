#pragma once
// NVLink error counters read twice (before and after a run, or a burn-in cycle): which grew.
#include <string>
#include <vector>

#include "core/model/results.h"

namespace peerbench {

// Counters that grew between the two readings, as "link 3 replay +2". The data CRC counter is
// left out: on NVLink 4 (H100/H200) it rises with traffic on healthy links (62-232 a link in one
// default run on 2 x H200 at full bandwidth, zero replays), counting what the link corrected.
// Replays, recoveries and flit CRC errors mean retransmission or retraining. Both readings stay
// in the results file either way.
std::vector<std::string> grown_counters(const std::vector<NvLinkErrorCounts>& before,
                                        const std::vector<NvLinkErrorCounts>& after);

}  // namespace peerbench
