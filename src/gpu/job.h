#pragma once
// One benchmark run over all ranks of an MPI job: checks the launch (ranks per GPU, memory),
// gathers system facts and topology, enables peer access, sets up buffers, staging and NCCL,
// walks the plan through the engine, records NCCL's transports, and writes the JSON results
// (rank 0, through a temporary file, after every step so a cut run leaves a valid file).
#include <iosfwd>
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/options.h"
#include "core/results.h"
#include "gpu/mpi_context.h"
#include "gpu/nccl_comm.h"
#include "gpu/nvml.h"

namespace peerbench::gpu {

// A launch or configuration problem found collectively before measuring (exit code 2).
class LaunchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct JobIo {
  std::ostream* out = nullptr;  // live table and summary (rank 0); null: silent
  std::ostream* err = nullptr;  // warnings (rank 0)
  bool terminal = false;        // out is a terminal: redraw progress in place
};

struct JobOutcome {
  RunDocument doc;  // complete on rank 0; results also on the other ranks
  int exit_code = 0;
  bool json_written = false;
  bool gpu_stuck = false;  // GPU work may still run: the caller should exit without teardown
};

class Job {
 public:
  Job(RankContext& rank, const RunOptions& opts, std::vector<std::string> argv,
      NcclLogCapture& capture, const Nvml& nvml, JobIo io);
  // Collective. Throws LaunchError (same on every rank) for launch problems found before
  // measuring; measurement failures are recorded in the document instead.
  JobOutcome run();

 private:
  RankContext& rank_;
  const RunOptions& opts_;
  std::vector<std::string> argv_;
  NcclLogCapture& capture_;
  const Nvml& nvml_;
  JobIo io_;
};

// Default results path: results/peerbench-HOST-YYYYMMDD-HHMMSS.json
std::string default_json_path(const std::string& host);
std::string utc_now_iso8601();

}  // namespace peerbench::gpu
