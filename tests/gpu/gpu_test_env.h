#pragma once
// Shared state of the GPU test program (one process per rank under mpirun): MPI, the rank
// layout, NVML and the NCCL log capture live as long as the process.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/cli/command_line.h"
#include "gpu/job.h"
#include "gpu/mpi_context.h"
#include "gpu/nccl_comm.h"
#include "gpu/nvml.h"

namespace peerbench::gpu::test {

struct GpuTestEnv {
  RankContext* rank = nullptr;
  Nvml* nvml = nullptr;
  NcclLogCapture* capture = nullptr;
  int gpus = 0;          // CUDA devices on this host
  bool sharing = false;  // fewer GPUs than ranks: ranks share GPU 0 (tests the tool, not links)
};

const GpuTestEnv& env();

// Options for a short run of `methods` on this job.
RunOptions quick_options(const std::string& methods);

// Runs one job with `o`; output goes to the test log on rank 0.
JobOutcome run_job(RankContext& rk, RunOptions o);

}  // namespace peerbench::gpu::test

// Skip unless at least `n` distinct GPUs serve the ranks.
#define PB_REQUIRE_DISTINCT_GPUS(n)                              \
  do {                                                           \
    if (::peerbench::gpu::test::env().gpus < (n)) {              \
      GTEST_SKIP() << "needs " << (n) << " GPUs; this host has " \
                   << ::peerbench::gpu::test::env().gpus;        \
    }                                                            \
  } while (0)
