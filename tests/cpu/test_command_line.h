#pragma once
// A peerbench command line as the tests write one: the words after "peerbench", parsed as main()
// parses argv, against the method catalog.
#include <string>
#include <vector>

#include "core/base/errors.h"
#include "core/cli/command_line.h"
#include "core/model/method_catalog.h"

namespace peerbench::test {

inline CommandLine command_line_of(std::vector<std::string> args) {
  args.insert(args.begin(), "peerbench");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  return parse_command_line(static_cast<int>(argv.size()), argv.data(), method_catalog());
}

// The UsageError's message, or "" when the command line was accepted.
inline std::string usage_error_of(const std::vector<std::string>& args) {
  try {
    command_line_of(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace peerbench::test
