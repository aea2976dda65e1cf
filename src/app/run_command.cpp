#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>

#include "app/commands.h"
#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/judge/verdict.h"
#include "core/model/sizes.h"
#include "core/plan/plan.h"
#include "core/platform/atomic_file.h"
#include "core/platform/host_name.h"
#include "core/platform/input_file.h"
#include "core/platform/launcher.h"
#include "core/present/plan_text.h"
#include "gpu/check.h"
#include "gpu/job.h"
#include "gpu/method.h"
#include "gpu/mpi_context.h"
#include "gpu/nccl_comm.h"
#include "gpu/nvml.h"
#include "gpu/stop_request.h"
#include "gpu/topology_probe.h"

namespace peerbench::app {
namespace {

std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::istringstream in(path ? path : "");
  std::string dir;
  while (std::getline(in, dir, ':')) {
    if (dir.empty()) continue;
    const std::string p = dir + "/" + name;
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

// -J, checked before any GPU is touched and in dry runs too, so a bad path is reported as such
// (--expect is checked, with its methods, before anything starts). Returns the reason or "".
std::string check_run_inputs(const std::string& json_path, const std::string& expect_path) {
  if (!json_path.empty()) {
    try {
      refuse_output_over_inputs(json_path, "-J/--json", {expect_path});
    } catch (const UsageError& e) {
      return e.what();
    }
    const std::string why = check_writable(json_path, true);
    if (!why.empty()) return "-J/--json: cannot write results to " + json_path + ": " + why;
  }
  return "";
}

std::string too_few_ranks(int np) {
  return "--np " + std::to_string(np) + ": " + too_few_ranks_text();
}

// The rank count as the user knows it, for the line that says what a one-rank job leaves out.
std::string rank_count_source(int np_given, int ranks) {
  const std::string n = std::to_string(ranks);
  return np_given ? "--np " + n : n + (ranks == 1 ? " GPU" : " GPUs") + " on this host";
}

// A dry run's plan: the table, or with -q its totals in one line; then its notes.
void print_plan(const PlanInput& in, const RunOptions& o, const std::string& fit_note) {
  if (!fit_note.empty()) std::cout << "# " << fit_note << "\n";
  if (o.verbosity == 0) {
    std::cout << plan_summary_line(in, summarize_plan(in)) << "\n";
  } else {
    write_plan(std::cout, in, o.verbosity >= 2);
  }
  write_plan_notes(std::cout, in);
}

// No launcher: plan for --np ranks (or the local GPUs) on this host, touching no GPU beyond
// counting them.
int dry_run_local(RunOptions o) {
  const std::string why = check_run_inputs(o.json_path, o.expect_path);
  if (!why.empty()) throw UsageError(why);
  int np = o.np;
  if (np == 0) {
    try {
      np = gpu::cuda_device_count();
    } catch (const gpu::CudaError&) {
      np = 0;
    }
  }
  const auto catalog = gpu::method_catalog();
  const std::string note = fit_run_to_ranks(o, np, catalog, rank_count_source(o.np, np));
  if (np < minimum_ranks(o.methods, catalog)) {
    throw UsageError(o.np ? too_few_ranks(np)
                          : "--dry-run: no launcher and " + std::to_string(np) +
                                " local GPU(s) to count; give --np N to plan for N ranks");
  }
  const auto in = make_plan_input(
      o, np, std::vector<std::string>(static_cast<std::size_t>(np), logical_host_name()), catalog);
  print_plan(in, o, note);
  return kExitOk;
}

// The ranks' command line: this executable and our arguments, less --np.
std::vector<std::string> rank_arguments(int argc, char** argv) {
  char self[PATH_MAX] = {0};
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
  std::vector<std::string> args;
  args.push_back(n > 0 ? std::string(self, static_cast<std::size_t>(n)) : argv[0]);
  for (int i = 1; i < argc; ++i) {
    // --np is ours to act on here; the ranks must not see it.
    const std::string a = argv[i];
    if (a == "--np") {
      ++i;
      continue;
    }
    if (a.rfind("--np=", 0) == 0) continue;
    args.push_back(a);
  }
  return args;
}

// Replaces this process with mpirun starting `np` ranks of `args`; returns only by throwing.
[[noreturn]] void exec_mpirun(const std::string& mpirun, int np,
                              const std::vector<std::string>& args) {
  const bool root = ::geteuid() == 0;
  auto cmd = reexec_command(mpirun, np, args, root);
  std::printf("# peerbench: no MPI launcher detected; starting %d ranks, one per GPU:\n#   %s\n",
              np, shell_join(cmd).c_str());
  if (root)
    std::printf(
        "# (running as root: Open MPI refuses root without --allow-run-as-root, so it was "
        "added)\n");
  std::fflush(stdout);
  ::setenv(kReexecMarker, "1", 1);
  ::setenv(kStdoutTerminalVar, ::isatty(STDOUT_FILENO) == 1 ? "1" : "0", 1);
  std::vector<char*> cargv;
  for (auto& a : cmd) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  ::execv(mpirun.c_str(), cargv.data());
  throw std::runtime_error("cannot start " + mpirun + ": " + std::string(std::strerror(errno)));
}

// No launcher: start ourselves under mpirun, one rank per local GPU.
int reexec_under_mpirun(const RunOptions& o, int argc, char** argv) {
  if (std::getenv(kReexecMarker)) {
    throw UsageError(
        "started under mpirun by peerbench, but no MPI rank variables are set; "
        "is mpirun Open MPI? Start peerbench with your launcher instead");
  }
  // Inputs first: a bad -J or --expect is the user's to fix whether or not a GPU is here.
  const std::string why = check_run_inputs(
      o.json_path.empty() ? gpu::default_json_path(logical_host_name()) : o.json_path,
      o.expect_path);
  if (!why.empty()) throw UsageError(why);
  int gpus = 0;
  try {
    gpus = gpu::cuda_device_count();
  } catch (const gpu::CudaError& e) {
    // A launch that cannot work: exit code 2, as under a launcher.
    std::fprintf(stderr, "peerbench: error: no usable CUDA GPU on this host: %s\n", e.what());
    return kExitUsage;
  }
  int np = o.np ? o.np : gpus;
  if (np > gpus && !o.allow_gpu_sharing) {
    throw UsageError("--np " + std::to_string(np) + ": this host has " + std::to_string(gpus) +
                     " GPU(s); use at most that many ranks");
  }
  // -m left out on one GPU: the ranks run the host link's methods and say so (run_command).
  RunOptions fitted = o;
  const std::string where = rank_count_source(o.np, np);
  (void)fit_run_to_ranks(fitted, np, gpu::method_catalog(), where);
  ::setenv(kRankCountSourceVar, where.c_str(), 1);
  const int needed = minimum_ranks(fitted.methods, gpu::method_catalog());
  if (o.np && np < needed) throw UsageError(too_few_ranks(np));
  if (np < needed) {
    std::fprintf(stderr,
                 "peerbench: error: this host has %d GPU; %s; --allow-gpu-sharing --np 2 tests "
                 "the tool\n",
                 gpus, too_few_ranks_text().c_str());
    return kExitUsage;
  }
  const std::string mpirun = find_on_path("mpirun");
  if (mpirun.empty()) {
    throw UsageError(
        "no MPI launcher: mpirun is not on PATH; install Open MPI (scripts/setup.sh) or start "
        "peerbench with your launcher (mpirun -np N, srun)");
  }
  exec_mpirun(mpirun, np, rank_arguments(argc, argv));
}

// `run --expect FILE` is acceptance mode: the last line says whether it passed, with the exit
// code (the same rule as without --expect: report's, on the verdicts written).
void print_acceptance(const gpu::JobOutcome& outcome, const RunOptions& o, gpu::RankContext& rk) {
  if (rk.rank != 0) return;
  const auto& v = outcome.doc.verdicts;
  std::cout << "# Acceptance (--expect " << o.expect_path
            << "): " << (outcome.exit_code ? "FAILED" : "PASSED") << ": "
            << run_headline(outcome.doc, v) << "; exit code " << outcome.exit_code;
  if (const auto why = failing_line(outcome.doc, v, o.fail_on); outcome.exit_code && !why.empty())
    std::cout << " (" << why << ")";
  // A PASSED over flags that --fail-on let through says so (an acceptance signed on it).
  if (const auto waived = waived_line(outcome.doc, v, o.fail_on); !waived.empty())
    std::cout << " (" << waived << ")";
  std::cout << "\n" << std::flush;
}

}  // namespace

namespace {

// A typo'd key or method in the expect file is bad input: refuse it before anything starts.
// Returns the reason, or "" when the file is fine or none was given.
std::string expect_file_refusal(const RunOptions& o) {
  if (o.expect_path.empty()) return {};
  try {
    (void)load_expectations(o.expect_path, gpu::method_catalog());
  } catch (const InputError& e) {
    return std::string("--expect: ") + e.what();
  }
  return {};
}

// Under a launcher, the job's rank count as the user knows it: what the peerbench that started
// the ranks said (the local GPUs, --np), else the launcher's.
std::string ranks_source() {
  const char* v = std::getenv(kRankCountSourceVar);
  return v && *v ? std::string(v) : "the job has 1 rank";
}

// Before MPI and before any NCCL call: where NCCL's log goes is decided once per process.
gpu::NcclLogCapture nccl_capture_for(RunOptions o, const LaunchInfo& launch) {
  const auto catalog = gpu::method_catalog();
  try {  // a job of one rank that runs the host link alone starts no NCCL
    if (launch.size > 0) (void)fit_run_to_ranks(o, launch.size, catalog, ranks_source());
  } catch (const UsageError&) {  // said again, on every rank, once MPI is up
  }
  const bool want_nccl = std::any_of(o.methods.begin(), o.methods.end(), [&](const std::string& m) {
    return find_method(catalog, m)->uses_nccl;
  });
  if (!want_nccl || o.dry_run) return {};
  return gpu::NcclLogCapture::setup();
}

// Results path: decided and checked by rank 0 (the writer) before any GPU work, and in a dry
// run too (where only a -J given is checked); the same answer on every rank.
void settle_results_path(RunOptions& o, gpu::RankContext& rk) {
  std::string why;
  if (rk.rank == 0) {
    if (o.json_path.empty() && !o.dry_run) o.json_path = gpu::default_json_path(rk.host);
    why = check_run_inputs(o.json_path, o.expect_path);
  }
  o.json_path = gpu::bcast_string(rk.world, o.json_path, 0);
  why = gpu::bcast_string(rk.world, why, 0);
  if (!why.empty()) throw UsageError(why);
}

void dry_run_ranks(const RunOptions& o, gpu::RankContext& rk, const std::string& fit_note) {
  if (rk.size < minimum_ranks(o.methods, gpu::method_catalog()))
    throw UsageError("--dry-run: the job has 1 rank; " + too_few_ranks_text());
  const auto in = make_plan_input(o, rk.size, rk.host_of_rank, gpu::method_catalog());
  if (rk.rank == 0) {
    print_plan(in, o, fit_note);
    std::cout << std::flush;
  } else {
    summarize_plan(in);  // the same checks, so every rank leaves alike
  }
  gpu::barrier(rk.world);
}

int measure(const CommandLine& cl, const RunOptions& o, gpu::RankContext& rk,
            gpu::NcclLogCapture& capture, const LaunchInfo& launch) {
  gpu::Nvml nvml;
  gpu::JobIo io;
  io.out = &std::cout;
  io.err = &std::cerr;
  io.terminal = progress_may_redraw(::isatty(STDOUT_FILENO) == 1, launch,
                                    [](const char* n) { return std::getenv(n); });
  gpu::install_stop_handlers();  // SIGINT/SIGTERM: finish the step, write the file, leave together
  gpu::Job job(rk, o, cl.argv, capture, nvml, io);
  const auto outcome = job.run();
  const int code = outcome.exit_code;
  if (!o.expect_path.empty() && !outcome.gpu_stuck) print_acceptance(outcome, o, rk);
  if (outcome.gpu_stuck) {
    // Work still queued on the GPU would make MPI_Finalize and the CUDA runtime's teardown
    // wait for it; every rank knows (the failure was gathered) and leaves now.
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(code);
  }
  return code;
}

}  // namespace

RunStart prepare_run(const RunOptions& o, const LaunchInfo& launch) {
  RunStart s;
  if (o.np) {
    s.refusal = "--np: only applies when peerbench starts its own mpirun; under " +
                launch.launcher + " choose the rank count with the launcher (mpirun -np N)";
  } else {
    s.refusal = expect_file_refusal(o);
  }
  if (s.refusal.empty()) s.capture = nccl_capture_for(o, launch);
  return s;
}

int run_command(const CommandLine& cl, int argc, char** argv, const LaunchInfo& launch,
                gpu::NcclLogCapture& capture) {
  RunOptions o = cl.run;
  if (!launch.under_launcher) {
    const std::string why = expect_file_refusal(o);
    if (!why.empty()) throw UsageError(why);
    if (o.dry_run) return dry_run_local(o);
    return reexec_under_mpirun(o, argc, argv);
  }
  gpu::RankContext rk = gpu::make_rank_context();
  const bool root = rk.rank == 0;
  int code = kExitOk;
  try {
    // The same on every rank: the job's size and argv are.
    const std::string note = fit_run_to_ranks(o, rk.size, gpu::method_catalog(), ranks_source());
    settle_results_path(o, rk);
    if (o.dry_run) {
      dry_run_ranks(o, rk, note);
    } else {
      if (root && !note.empty()) std::cout << "# " << note << "\n" << std::flush;
      code = measure(cl, o, rk, capture, launch);
    }
  } catch (const UsageError& e) {
    if (root) std::fprintf(stderr, "peerbench: error: %s\n", error_line(e.what()).c_str());
    code = kExitUsage;
  } catch (const gpu::LaunchError& e) {
    if (root) std::fprintf(stderr, "peerbench: error: %s\n", error_line(e.what()).c_str());
    code = kExitUsage;
  } catch (const std::exception& e) {
    // One rank alone hit something unexpected: the others may wait in a collective forever.
    std::fprintf(stderr, "peerbench: error: %s: %s\n", rk.where().c_str(),
                 error_line(e.what()).c_str());
    std::fflush(stderr);
    capture.remove_files();
    MPI_Abort(MPI_COMM_WORLD, kExitFlagged);
  }
  gpu::free_rank_context(rk);
  return code;
}

}  // namespace peerbench::app
