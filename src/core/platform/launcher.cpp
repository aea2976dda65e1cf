#include "core/platform/launcher.h"

#include <cstdlib>

namespace peerbench {
namespace {

int to_int(const char* v) {
  if (!v || !*v) return -1;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  return (end && *end == '\0' && x >= 0 && x < (1 << 30)) ? static_cast<int>(x) : -1;
}

}  // namespace

LaunchInfo detect_launcher(const EnvLookup& env) {
  LaunchInfo l;
  struct Probe {
    const char* name;
    const char* rank;
    const char* size;
  };
  // Order matters: Open MPI also sets PMIX_RANK; Slurm's srun may set PMI_RANK.
  const Probe probes[] = {
      {"Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
      {"PMIx", "PMIX_RANK", "PMIX_SIZE"},
      {"PMI", "PMI_RANK", "PMI_SIZE"},
  };
  for (const auto& p : probes) {
    if (env(p.rank)) {
      l.under_launcher = true;
      l.launcher = p.name;
      l.rank = to_int(env(p.rank));
      l.size = to_int(env(p.size));
      return l;
    }
  }
  // Inside an sbatch script SLURM_PROCID is set too; only a job step (srun) has SLURM_STEP_ID
  // with a task count.
  if (env("SLURM_PROCID") && env("SLURM_STEP_ID") && env("SLURM_STEP_NUM_TASKS")) {
    l.under_launcher = true;
    l.launcher = "Slurm";
    l.rank = to_int(env("SLURM_PROCID"));
    l.size = to_int(env("SLURM_STEP_NUM_TASKS"));
  }
  return l;
}

LaunchInfo detect_launcher() {
  return detect_launcher([](const char* n) { return std::getenv(n); });
}

bool progress_may_redraw(bool stdout_isatty, const LaunchInfo& l, const EnvLookup& env) {
  if (!stdout_isatty) return false;
  if (!l.under_launcher) return true;
  const char* v = env(kStdoutTerminalVar);
  return v && std::string(v) == "1";
}

bool is_printing_rank(const LaunchInfo& l) {
  return !l.under_launcher || l.rank <= 0;
}

std::vector<std::string> reexec_command(const std::string& mpirun, int np,
                                        const std::vector<std::string>& argv, bool as_root) {
  std::vector<std::string> cmd{mpirun, "-np", std::to_string(np)};
  if (as_root) cmd.push_back("--allow-run-as-root");
  // One rank per GPU needs no binding by core count; leave placement to the GPU choice.
  cmd.insert(cmd.end(), {"--bind-to", "none"});
  cmd.insert(cmd.end(), argv.begin(), argv.end());
  return cmd;
}

std::string shell_join(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    const bool plain =
        !a.empty() &&
        a.find_first_not_of(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") ==
            std::string::npos;
    if (plain) {
      out += a;
    } else {
      out += '\'';
      for (char c : a) {
        if (c == '\'') {
          out += "'\\''";
        } else {
          out += c;
        }
      }
      out += '\'';
    }
  }
  return out;
}

}  // namespace peerbench
