#pragma once
// What `peerbench run` was asked to do: sizes, timing, methods, pairs, verdict options. Parsed
// from the command line by core/cli; recorded in the results' "config" section.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/datatypes.h"
#include "core/model/pair_filter.h"
#include "core/model/sizes.h"

namespace peerbench {

enum class Schedule { kSerial, kRounds };
std::string to_string(Schedule s);

// Test-only fault injection (hidden from --help; used by the fault tests of issue 6).
struct FaultInjection {
  std::string kind;    // "corrupt", "hang", "die", "" = none
  std::string method;  // method to fault
  int rank = 1;        // rank that misbehaves
  int cycle = 0;       // burn-in cycle it happens in (1-based); 0: every cycle
};

// Bounds of --timeout in seconds: below 0.1 s no sample of real GPU work fits; above a day the
// watchdog no longer guards anything (and 1e308 s overflows a conversion to nanoseconds).
inline constexpr double kMinTimeoutS = 0.1;
inline constexpr double kMaxTimeoutS = 86400;
// Most ranks --np plans or starts: 128 nodes x 8 GPUs. A single host has far fewer GPUs; the
// bound is for dry runs that plan a cluster.
inline constexpr int kMaxNp = 1024;

struct RunOptions {
  SweepSpec sweep{1ull << 20, 1ull << 30, 4, 0};
  int warmup_iters = 5;
  int iters = 20;
  int samples = 5;
  bool check = true;
  int cudagraph_replays = 0;  // -G N: 0 = no graph
  bool per_iteration = true;  // -I: one more sample timing every iteration (nccl-tests' -I)
  // nccl-tests' language (issue 18).
  int average = 3;              // -a: time over ranks: 0 rank 0, 1 average, 2 min, 3 max (slowest)
  bool report_cputime = false;  // -C: the host's CPU time per operation beside the GPU's
  int blocking = 0;             // -z: 1 wait for each operation and meet, 2 wait only
  int register_buffers = 0;     // -R: 0 none, 1 ncclCommRegister, 2 symmetric windows
  // Burn-in: repeat the suite -N times (nccl-tests' run_cycles; 0 with no --duration: until
  // stopped) and/or for --duration seconds; one cycle by default.
  int cycles = 1;
  double duration_s = 0;
  bool burn_in() const { return cycles != 1 || duration_s > 0; }
  std::vector<std::string> methods;
  std::string methods_spec = "all";
  // -m given: a job too small for a method named is refused; left out, the default job runs what
  // the job's ranks can (fit_methods_to_ranks, core/plan/plan.h).
  bool methods_given = false;
  // The run flags given (their long names), for the checks that wait for the job's rank count.
  std::vector<std::string> flags_given;
  bool given(const std::string& flag) const;
  std::string json_path;  // empty: results/peerbench-<host>-<time>.json
  bool json_path_given = false;
  double timeout_s = 60.0;  // watchdog for one sample's GPU work
  Schedule schedule = Schedule::kSerial;
  PairFilter pairs;
  bool dry_run = false;
  int np = 0;         // re-exec: ranks to start (0 = all local GPUs)
  int verbosity = 1;  // 0 quiet, 1 normal, 2 verbose
  std::uint64_t latency_bytes = 8;
  int latency_iters = 200;
  std::uint64_t staged_chunk = 4ull << 20;
  int staged_slots = 4;
  bool allreduce_inplace = false;
  // NCCL collectives: element types (-d), reduction ops (-o) and root (-r), as nccl-tests.
  std::vector<DataType> datatypes{DataType::kFloat};
  std::vector<ReduceOp> ops{ReduceOp::kSum};
  int root = 0;
  bool allow_gpu_sharing = false;
  std::string expect_path;
  // Issue 17: no false accusations on a busy node.
  int confirm = 1;              // repeats of a case that would be flagged or ran beside another job
  bool require_idle = false;    // refuse to start while another process uses a GPU of the job
  bool allow_busy = false;      // acceptance mode (--expect) starts anyway on busy GPUs
  double wait_idle_s = 0;       // wait up to this long for the GPUs to be idle first
  std::string fail_on = "all";  // what makes the exit code 1, as report's --fail-on
  FaultInjection fault;
  // Idle GPUs are required: asked for, or acceptance mode (--expect) unless --allow-busy.
  bool idle_required() const { return require_idle || (!expect_path.empty() && !allow_busy); }
};
inline constexpr int kMaxConfirm = 10;

// The options as recorded in the results' "config" section.
nlohmann::json run_options_to_json(const RunOptions& o);

}  // namespace peerbench
