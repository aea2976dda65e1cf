#pragma once
// What `peerbench doctor` finds wrong on a node from its evidence alone (node_evidence.h), before
// any measurement. Each finding is a cause of the one cause table (cause_table.h): its code, its
// words and its Next line are that row's, filled from the node's evidence as diagnose() fills
// them from a run's. The rules here say which causes a node's evidence shows on its own: settings
// that turn NCCL's peer-to-peer off, ACS redirecting on a GPU's PCIe path, NVLinks down, the
// fabric not ready or unhealthy, memory faults, consumer cards, a /dev/shm too small for NCCL.
#include <string>
#include <vector>

#include "core/model/diagnosis.h"
#include "core/model/node_evidence.h"

namespace peerbench {

// What the rules see besides the evidence.
struct DoctorContext {
  int ranks = 0;  // the ranks a job would run on this node (its GPUs); /dev/shm is sized for them
};

struct DoctorRule {
  const char* cause;  // its cause table code
  const char* when;   // what on the node shows it, in words (docs/doctor.md's column)
  // The causes it finds on the node, each with its evidence; none: the rule does not hold.
  std::vector<DiagnosedCause> (*check)(const NodeEvidence& e, const DoctorContext& c);
};

// The rules, in the order findings are printed.
const std::vector<DoctorRule>& doctor_rules();
// Every finding that holds: a cause of the cause table, said once for all its evidence.
std::vector<DiagnosedCause> doctor_findings(const NodeEvidence& e, const DoctorContext& c);

}  // namespace peerbench
