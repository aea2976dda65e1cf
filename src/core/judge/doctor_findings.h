#pragma once
// What `peerbench doctor` finds wrong on a node from its evidence alone (node_evidence.h), before
// any measurement: settings that turn NCCL's fast transports off, ACS redirecting on a GPU's
// PCIe path, NVLinks down, the fabric not ready, memory faults, consumer cards, a small /dev/shm.
// One table (doctor_findings.cpp) declares each finding: its code, what it says, its Next step
// and its rule. The diagnosis's cause table may take these rules over; the codes stay.
#include <string>
#include <vector>

#include "core/model/node_evidence.h"

namespace peerbench {

struct DoctorFinding {
  std::string code;      // "acs-redirect", ...
  std::string evidence;  // what on this node says so, in one line
  std::string next;      // the check to run or the setting to change, in one line
};

// What the rules see besides the evidence.
struct DoctorContext {
  int ranks = 0;  // the ranks a job would run on this node (its GPUs); /dev/shm is sized for them
};

struct DoctorRule {
  const char* code;
  const char* summary;  // what the finding says of a node, a few words
  const char* next;     // the Next step, without the evidence
  // The evidence lines it finds on the node; none: the finding does not hold.
  std::vector<std::string> (*check)(const NodeEvidence& e, const DoctorContext& c);
};

// The rules, in the order findings are printed.
const std::vector<DoctorRule>& doctor_rules();
// Every finding that holds, one per evidence line.
std::vector<DoctorFinding> doctor_findings(const NodeEvidence& e, const DoctorContext& c);

// /dev/shm below this is a finding where two ranks or more share the node: NCCL's troubleshooting
// guide ("Shared memory", Docker) asks for --shm-size=1g.
inline constexpr unsigned long long kNcclShmBytes = 1ull << 30;

}  // namespace peerbench
