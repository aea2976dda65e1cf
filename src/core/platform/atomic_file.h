#pragma once
// Results are never half-written: write a temporary file beside the target, flush it to disk,
// then rename it over the target (rename is atomic within one file system).
//
// Safe for the user's files too: the temporary file gets an unpredictable name and is created
// exclusively (mkostemp: O_CREAT | O_EXCL, so a planted symlink cannot redirect it); a target that
// exists must be a regular file -- a symlink (even to a regular file), a device, a FIFO, a socket
// or a folder is refused, never replaced -- and keeps its permission bits. Every error names the
// user's path, never the temporary one.
#include <stdexcept>
#include <string>

namespace peerbench {

// A file the user asked for cannot be written: bad input (exit code 2), not a measurement problem.
class WriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws WriteError "cannot write PATH: why". `create_dirs`: make missing folders first (mode
// 0755), as run -J and topo --json do.
void write_file_atomically(const std::string& path, const std::string& content,
                           bool create_dirs = false);

// Checks, without leaving anything behind, that `path` could be written: the target is absent or
// a regular file, its folder exists (or, with `create_dirs`, can be created: it is created and
// removed again, so a run that fails before writing leaves no folders), and a file can be created
// there. Returns "" when it can, else the reason.
std::string check_writable(const std::string& path, bool create_dirs);

}  // namespace peerbench
