// GPU tests: run with `mpirun -np 2 peerbench_gpu_tests` (ctest label "gpu"). On a machine without
// a GPU every rank prints PEERBENCH_GPU_SKIP with the reason and ctest reports the test as skipped;
// where /dev/nvidia0 exists but CUDA cannot use a GPU, the test fails.
#include <cuda_runtime.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "core/model/method_info.h"
#include "gpu/check.h"
#include "gpu/method.h"
#include "gpu_test_env.h"

namespace peerbench::gpu::test {
namespace {
GpuTestEnv g_env;  // written once in main before any test runs
}  // namespace

// gtest listener for ranks other than 0: each failed assertion as one line with the rank.
class FailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit FailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.failed()) return;
    const auto* t = ::testing::UnitTest::GetInstance()->current_test_info();
    std::printf("[rank %d FAILED] %s.%s at %s:%d: %s\n", rank_, t ? t->test_suite_name() : "?",
                t ? t->name() : "?", r.file_name() ? r.file_name() : "?", r.line_number(),
                r.message());
    std::fflush(stdout);
  }

 private:
  int rank_;
};

const GpuTestEnv& env() {
  return g_env;
}

RunOptions quick_options(const std::string& methods) {
  RunOptions o;
  o.sweep = {4096, 4u << 20, 32, 0};  // 4K, 128K, 4M
  o.warmup_iters = 1;
  o.iters = 4;
  o.samples = 3;
  o.latency_iters = 20;
  o.methods_spec = methods;
  o.methods = resolve_methods(methods, method_catalog());
  o.timeout_s = 30;
  o.verbosity = 1;
  o.allow_gpu_sharing = g_env.sharing;
  o.json_path = "/tmp/peerbench-gpu-test-" + std::to_string(::getpid()) + ".json";
  o.staged_chunk = 256 << 10;
  return o;
}

JobOutcome run_job(RankContext& rk, RunOptions o) {
  std::ostringstream sink;
  JobIo io;
  io.out = &sink;
  io.err = &std::cerr;
  Job job(rk, o, {"peerbench_gpu_tests"}, *g_env.capture, *g_env.nvml, io);
  auto outcome = job.run();
  if (rk.rank == 0) std::cout << sink.str();
  return outcome;
}

}  // namespace peerbench::gpu::test

int main(int argc, char** argv) {
  using namespace peerbench::gpu;
  ::testing::InitGoogleTest(&argc, argv);
  auto capture = NcclLogCapture::setup();  // before any NCCL call in this process
  MpiSession mpi(&argc, &argv);
  RankContext rk = make_rank_context();
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  std::string why;
  if (e != cudaSuccess) {
    why = std::string("no usable CUDA GPU: cudaGetDeviceCount returned ") + cudaGetErrorName(e) +
          " (" + peerbench::gpu::describe_cuda_error(e) + ")";
  } else if (count == 0) {
    why = "no CUDA GPU";
  } else if (rk.size < 2) {
    why = "run under mpirun -np 2";
  }
  // Every rank must agree, or one would wait in a collective for the other.
  const bool all_ok = all_true(rk.world, why.empty());
  // Where a GPU driver is loaded, a GPU CUDA cannot use is a failure, not a reason to skip.
  const bool cuda_failed = e != cudaSuccess || count == 0;
  const bool no_unusable_gpu =
      all_true(rk.world, !(cuda_failed && std::filesystem::exists("/dev/nvidia0")));
  if (!no_unusable_gpu) {
    if (cuda_failed) {
      std::printf("FAILED: %s: /dev/nvidia0 exists, but %s\n", rk.where().c_str(), why.c_str());
    }
    free_rank_context(rk);
    return 1;
  }
  if (!all_ok) {
    if (rk.rank == 0) {
      std::printf("PEERBENCH_GPU_SKIP: %s\n",
                  why.empty() ? "another rank has no usable GPU" : why.c_str());
    }
    free_rank_context(rk);
    return 0;
  }
  (void)cudaGetLastError();
  Nvml nvml;
  peerbench::gpu::test::g_env = {&rk, &nvml, &capture, count, count < rk.local_size};
  if (rk.rank == 0) {
    std::printf("# GPU tests: %d ranks, %d GPU(s) on this host%s\n", rk.size, count,
                peerbench::gpu::test::g_env.sharing
                    ? " (ranks share GPU 0: peer paths not exercised)"
                    : "");
  }
  // Only rank 0 prints gtest's report; all ranks run every test (they are collective). The other
  // ranks print their failures alone, prefixed, so a check that fails on rank 1 only is seen.
  if (rk.rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new peerbench::gpu::test::FailurePrinter(rk.rank));
  }
  int rc = RUN_ALL_TESTS();
  // A test that failed on any rank fails the program.
  rc = all_true(rk.world, rc == 0) ? 0 : 1;
  free_rank_context(rk);
  return rc;
}
