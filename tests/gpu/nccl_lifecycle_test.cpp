// NCCL communicators in one process: created, used and destroyed again and again, and a group
// left by an error must not poison the next communicator (2 x H200 failure of revision e7f6e27:
// ncclCommDestroy warnings, then "invalid argument" from every later NCCL call).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <vector>

#include "gpu/check.h"
#include "gpu/cuda_raii.h"
#include "gpu/nccl_comm.h"
#include "gpu_test_env.h"

namespace peerbench::gpu::test {
namespace {

constexpr double kTimeout = 60;

void use_gpu_of_this_rank() {
  const auto& e = env();
  ASSERT_EQ(cudaSetDevice(e.rank->local_rank % e.gpus), cudaSuccess);
}

// One float all-reduce over every rank; returns the wrong elements (each rank adds rank + 1).
int allreduce_wrong(NcclComm& comm) {
  const RankContext& rk = *env().rank;
  constexpr std::size_t n = 1024;
  std::vector<float> host(n, static_cast<float>(rk.rank + 1));
  auto buf = DeviceBuffer::allocate(n * sizeof(float));
  auto stream = Stream::create();
  PB_CUDA(cudaMemcpy(buf.get(), host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  PB_NCCL(ncclAllReduce(buf.get(), buf.get(), n, ncclFloat, ncclSum, comm.get(), stream.get()));
  comm.wait_ready(kTimeout);
  PB_CUDA(cudaStreamSynchronize(stream.get()));
  PB_CUDA(cudaMemcpy(host.data(), buf.get(), n * sizeof(float), cudaMemcpyDeviceToHost));
  const float want = static_cast<float>(rk.size * (rk.size + 1) / 2);
  int wrong = 0;
  for (float v : host) wrong += v != want;
  return wrong;
}

TEST(NcclLifecycle, CreateUseDestroyThreeTimesInOneProcess) {
  if (env().sharing) GTEST_SKIP() << "NCCL refuses two ranks on one GPU (this host has 1 GPU)";
  use_gpu_of_this_rank();
  for (int round = 0; round < 3; ++round) {
    auto comm = NcclComm::create(*env().rank, kTimeout);
    EXPECT_EQ(allreduce_wrong(*comm), 0) << "round " << round;
    ::testing::internal::CaptureStderr();
    comm.reset();  // finalize (non-blocking: waited for), then destroy
    const std::string said = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(said.find("warning"), std::string::npos) << "round " << round << ": " << said;
  }
}

TEST(NcclLifecycle, AnErrorInsideAGroupLeavesNothingOpen) {
  if (env().sharing) GTEST_SKIP() << "NCCL refuses two ranks on one GPU (this host has 1 GPU)";
  use_gpu_of_this_rank();
  {
    auto comm = NcclComm::create(*env().rank, kTimeout);
    auto stream = Stream::create();
    auto buf = DeviceBuffer::allocate(4096);
    bool threw = false;
    try {
      NcclGroup group;
      // Peer 1000 does not exist: NCCL refuses the call inside the group.
      PB_NCCL(ncclSend(buf.get(), 16, ncclInt8, 1000, comm->get(), stream.get()));
      group.end();
    } catch (const NcclError&) {
      threw = true;
    }
    EXPECT_TRUE(threw) << "ncclSend to rank 1000 must fail";
    comm->abort();  // what the engine does after a failed NCCL call
  }
  // A new communicator in the same process (the same thread's group state) works.
  auto next = NcclComm::create(*env().rank, kTimeout);
  EXPECT_EQ(allreduce_wrong(*next), 0);
}

}  // namespace
}  // namespace peerbench::gpu::test
