#include "core/model/results_file.h"

#include "core/model/json_text.h"
#include "core/model/schema.h"
#include "core/platform/atomic_file.h"

namespace peerbench {

bool ResultsFile::write(const RunDocument& d) {
  try {
    // Folders for the file are made at the first write, not when the path is checked, so a run
    // that fails before writing leaves none behind; a folder that vanishes later is a failure.
    write_file_atomically(path_, json_text(to_json(d), 1) + "\n", /*create_dirs=*/!written_);
    written_ = true;
    if (failing_ && warnings_)
      *warnings_ << "peerbench: results file " << path_ << " is written again\n";
    failing_ = false;
    return true;
  } catch (const std::exception& e) {
    ++failures_;
    if (!failing_ && warnings_) {
      *warnings_ << "peerbench: warning: cannot write results: " << e.what()
                 << "; the run goes on and its summary still reaches stdout\n";
    }
    failing_ = true;
    return false;
  }
}

}  // namespace peerbench
