#pragma once
// Whether a launcher (mpirun, srun, a PMI/PMIx job) started this process, and the command that
// starts peerbench under mpirun when none did.
#include <functional>
#include <string>
#include <vector>

namespace peerbench {

struct LaunchInfo {
  bool under_launcher = false;
  std::string launcher;  // "Open MPI", "PMIx", "PMI", "Slurm", ""
  int rank = -1;         // world rank when the launcher says it, else -1
  int size = -1;
};

using EnvLookup = std::function<const char*(const char*)>;

LaunchInfo detect_launcher(const EnvLookup& env);
LaunchInfo detect_launcher();  // from the process environment

// Only rank 0 (or a process with no launcher) prints usage errors, so a job prints them once.
bool is_printing_rank(const LaunchInfo& l);

// mpirun command line that re-executes `argv` on `np` ranks. `as_root` adds
// --allow-run-as-root, which Open MPI requires when started by root.
std::vector<std::string> reexec_command(const std::string& mpirun, int np,
                                        const std::vector<std::string>& argv, bool as_root);

// Shell-quoted command for printing.
std::string shell_join(const std::vector<std::string>& argv);

// Variable set in re-executed children so that a failed launcher detection cannot loop.
inline constexpr const char* kReexecMarker = "PEERBENCH_REEXEC";

// Set in re-executed children to the rank count as the user gave it ("1 GPU on this host",
// "--np 1"), for the line a one-rank job prints about what it leaves out.
inline constexpr const char* kRankCountSourceVar = "PEERBENCH_RANK_COUNT_FROM";

// Set in re-executed children to "1" when the re-executing peerbench's stdout is a terminal, else
// "0". A rank cannot tell by itself: Open MPI gives every rank a pseudo-terminal as stdout, also
// when mpirun's own output goes to a file or a pipe.
inline constexpr const char* kStdoutTerminalVar = "PEERBENCH_STDOUT_TERMINAL";

// Whether the live progress may be redrawn in place (carriage return, erase line): stdout is a
// terminal and, under a launcher, the re-executing peerbench said its own stdout was one.
bool progress_may_redraw(bool stdout_isatty, const LaunchInfo& l, const EnvLookup& env);

}  // namespace peerbench
