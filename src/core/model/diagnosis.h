#pragma once
// Why a run's figures took a slow road, and what to do next: the causes diagnose()
// (core/judge/diagnosis.h) finds from a run's verdicts, environment, pair facts, NCCL's log and
// node evidence, as plain structs. Each cause's code is a row of the cause table
// (core/judge/cause_table.h); results/SCHEMA.md documents the JSON form (`diagnosis`).
#include <string>
#include <vector>

namespace peerbench {

// One thing read that supports a cause: where it was read and what it said.
struct CauseEvidence {
  std::string source;  // "environment", "nccl log", "pairs 0->1 peer_access", "node evidence ..."
  std::string fact;    // "NCCL_P2P_DISABLE=1", "'NCCL_P2P_DISABLE set by environment to 1'"
};

// How strongly the evidence read holds a cause, strongest first (the report ranks by it).
namespace cause_strength {
inline constexpr const char* kConfirmed = "confirmed";  // a setting or state read that does this
inline constexpr const char* kLikely = "likely";        // a condition read that commonly does it
inline constexpr const char* kSuspected = "suspected";  // consistent, not shown to act here
inline constexpr const char* kUnknown = "unknown";      // no cause read: the next measurement
}  // namespace cause_strength

// One cause, said once for every figure it explains.
struct DiagnosedCause {
  std::string code;      // a cause table code ("nccl-p2p-disabled-by-env", ..., "unknown")
  std::string strength;  // a cause_strength
  std::string host;      // "" where the run is of one host or the cause is not a host's
  std::vector<std::string> pairs;   // "0->1", "all ranks"; the verdicts it explains
  std::vector<std::string> gpus;    // "GPU 0 0000:00:06.0": the GPUs it is about
  std::vector<std::string> flags;   // flag codes it explains (flag_table.h)
  std::vector<std::string> states;  // verdict states it explains (contended, throttled, ...)
  std::string summary;              // the cause in words, its facts filled in
  std::string next;                 // "Next: ...": the check to run or the setting to change
  std::vector<CauseEvidence> evidence;
};

}  // namespace peerbench
