#pragma once
// Which peerbench method each figure of another tool's output is: the one table, shown in
// docs/import.md (a CPU test holds the doc to it).
#include <string>
#include <vector>

namespace peerbench {

struct ImportedMethod {
  std::string tool;    // nccl-tests, nvbandwidth, p2pBandwidthLatencyTest
  std::string test;    // the tool's name for the figure: all_reduce_perf, ..._write_ce, ...
  std::string method;  // peerbench's method, "" where none measures the same thing
  std::string why;     // how the two compare, or why none does
};

const std::vector<ImportedMethod>& imported_method_table();
// The row of `tool`'s `test`, or nullptr where the table has none.
const ImportedMethod* imported_method(const std::string& tool, const std::string& test);

}  // namespace peerbench
