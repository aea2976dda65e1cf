#pragma once
// Error types of the GPU-free core. Each maps to an exit code at the top level:
// UsageError and InputError -> 2 (the user can fix the command or the file).
#include <stdexcept>
#include <string>

#include "core/base/text.h"

namespace peerbench {

// A flag or value on the command line is wrong. The message names the flag and what is allowed.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A file given to report/compare/--expect is unreadable or not what we expect.
// The message names the file and the field.
class InputError : public std::runtime_error {
 public:
  // Escaped whole (core/base/text.h): a key or value from the file may hold a NUL, which would
  // end what() there and cut the reason from the line.
  InputError(const std::string& file, const std::string& field, const std::string& problem)
      : std::runtime_error(sanitize_for_terminal(
            file + (field.empty() ? "" : ": field '" + field + "'") + ": " + problem)),
        file_(file),
        field_(field) {}
  const std::string& file() const { return file_; }
  const std::string& field() const { return field_; }

 private:
  std::string file_;
  std::string field_;
};

// Process exit codes shared by every subcommand.
enum ExitCode : int {
  kExitOk = 0,
  kExitFlagged = 1,  // report/compare found flags; run found data errors or failures
  kExitUsage = 2,    // bad input: flag, value or file
};

}  // namespace peerbench
