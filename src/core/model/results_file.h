#pragma once
// The run's results file, rewritten after every step through a temporary file and a rename. A
// failed write (disk full, folder gone) is reported once and the run goes on; the next write
// tries again.
#include <ostream>
#include <string>

#include "core/model/results.h"

namespace peerbench {

class ResultsFile {
 public:
  ResultsFile(std::string path, std::ostream* warnings)
      : path_(std::move(path)), warnings_(warnings) {}
  // Returns whether the file now holds `d`.
  bool write(const RunDocument& d);
  const std::string& path() const { return path_; }
  int failures() const { return failures_; }

 private:
  std::string path_;
  std::ostream* warnings_;
  bool failing_ = false;
  bool written_ = false;
  int failures_ = 0;
};

}  // namespace peerbench
