#pragma once
// The one table of flag codes (Flag::code, results.h): each code's family, where it stands,
// what it says of a machine, whether it fails the exit code by default, and its short words.
// The verdicts' code list (known_flag_codes, core/judge/verdict.h), --fail-on, the fleet's grouping
// and compare's burn-in findings read it; tests/cpu/model/flag_table_test.cpp holds
// results/SCHEMA.md, scripts/completion.bash and docs/verdicts.md to it. A new flag is one row here
// (and its rule, docs and completion: the test names what is missing).
#include <string>
#include <vector>

namespace peerbench {

// Which rule raises the flag: core/judge/verdict_<family>.cpp for a run's flags (kData: the data
// check in verdict.cpp); kFleet: `peerbench fleet`, on a node measured against the others, never
// in a results file.
enum class FlagFamily { kPath, kBars, kData, kHealth, kBurnIn, kFleet };

// Where a flag stands. kGpu: a GPU's own (its links' health), on every pair of that GPU and
// counted once. kPair: between two GPUs (the path, one direction against the other). kCase: on
// its method's case: a pair, a GPU (h2d, d2h) or all ranks (collectives).
enum class FlagScope { kGpu, kPair, kCase };

// What a flag says of the machine, the first suspect first (fleet orders nodes and words its
// advice by it): evidence against the hardware itself (wrong data, link error counters, a
// downtrained or degraded link), traffic that left the link (NCCL over SHM or sockets, host
// staging: settings and peer access are the first suspects), or a figure under its bar.
enum class FlagKind { kHardware, kPath, kFigure };

struct FlagInfo {
  const char* code;
  FlagFamily family;
  FlagScope scope;
  FlagKind kind;
  bool fails_by_default;  // the default --fail-on (all) counts it; else only where named
  const char* summary;    // what a headline or digest says of it, a few words
};

// Every flag: the run's (in the order --fail-on's help lists them), then the fleet's.
const std::vector<FlagInfo>& flag_table();
// The row of `code`; nullptr for a code no version of this table has (a newer file's).
const FlagInfo* find_flag(const std::string& code);
// "path", "bars", ...: as docs/verdicts.md's family column says it.
std::string to_string(FlagFamily f);
// "per GPU", "per pair", "per case": as docs/verdicts.md's "stands on" column says it.
std::string scope_words(FlagScope s);
// What flags of a kind say of a node: "evidence against the hardware", ...
std::string kind_words(FlagKind k);

}  // namespace peerbench
