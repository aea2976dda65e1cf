#pragma once
// Results are never half-written: write a temporary file beside the target, flush it to disk,
// then rename it over the target (rename is atomic within one file system).
#include <string>

namespace peerbench {

// Throws std::runtime_error naming the path and the system error.
void write_file_atomically(const std::string& path, const std::string& content);

// Checks, without leaving anything behind, that `path` could be written: its folder exists
// (or can be created when `create_dirs`) and a file can be created there. Returns "" when it
// can, else the reason.
std::string check_writable(const std::string& path, bool create_dirs);

}  // namespace peerbench
