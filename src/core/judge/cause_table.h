#pragma once
// The one table of causes (DiagnosedCause::code, core/model/diagnosis.h): why a run's figures took
// a slow road. Each row says what the cause is (its kind), the evidence it needs, its words, its
// Next line, the flags it explains, and how `fleet` names a group of nodes that share it.
// diagnose() (diagnosis.h) fills the words' {fields} from what it read; tests/cpu/judge/
// cause_table_test.cpp holds docs/diagnosis.md and results/SCHEMA.md to this table. A new cause is
// one row here, its rule in core/judge/diagnosis_*.cpp, a fixture test, and its docs.
#include <map>
#include <string>
#include <vector>

#include "core/model/diagnosis.h"

namespace peerbench {

// What a cause is, the first suspect first: a setting someone made, the container, the platform
// (PCIe, IOMMU, hypervisor, driver), the hardware itself, another user of the GPUs, a fact that
// changes how GPUs are named, or nothing read.
enum class CauseKind {
  kSetting,
  kContainer,
  kPlatform,
  kHardware,
  kContention,
  kContext,
  kUnknown
};

struct CauseInfo {
  const char* code;
  CauseKind kind;
  const char* needs;               // the evidence it needs, in words (docs/diagnosis.md's column)
  const char* wording;             // the cause in words, with {fields}
  const char* next;                // "Next: ...", with {fields}
  std::vector<const char*> flags;  // the flag codes it can explain (flag_table.h)
  const char* group;               // fleet: "3 nodes: <group>"
};

// Every cause, in the order the report ranks equal ones.
const std::vector<CauseInfo>& cause_table();
// The row of `code`; nullptr for a code this table lacks (a newer file's).
const CauseInfo* find_cause(const std::string& code);
// "setting", "container", ...: as docs/diagnosis.md's kind column says it.
std::string to_string(CauseKind k);
// Whether cause `code` can explain flag `flag` (its row lists it).
bool cause_explains(const std::string& code, const std::string& flag);
// Where no cause is read for a flag, the measurement that would tell (the "unknown" cause's
// {measurement}), with {host}: by flag; nullptr for a flag of no row (the general one then).
struct UnknownMeasurement {
  const char* flag;
  const char* measurement;
};
const std::vector<UnknownMeasurement>& unknown_measurements();
// The row of `flag`, or the general measurement ("run peerbench doctor on {host} ...").
std::string unknown_measurement(const std::string& flag);

// `text` with each {name} replaced by fields[name]; a name with no field is left as it stands
// (tests look for any left).
std::string fill_fields(const std::string& text, const std::map<std::string, std::string>& fields);

// "3", "3 and 7", "1, 3 and 7": a list as a cause's words say it.
std::string join_and(const std::vector<std::string>& items);

// A cause of row `code` (nullptr-safe: a code this table lacks keeps empty words), its summary
// and Next line filled from `fields`, twice (a field's value may name another: {check} holds
// {host}). diagnose() and `peerbench doctor` both make their causes so: one wording per cause.
DiagnosedCause table_cause(const std::string& code, const std::string& strength,
                           const std::map<std::string, std::string>& fields);

}  // namespace peerbench
