// Two ranks of one machine posing as two hosts (PEERBENCH_HOST_ID + NCCL_HOSTID): copy-engine
// and kernel methods do not apply across hosts; NCCL must go through the network transport.
// NCCL reads NCCL_HOSTID once per process, at its first communicator: ctest runs this test in a
// process of its own (gpu_simulated_hosts).
#include <gtest/gtest.h>

#include "core/judge/verdict.h"

#include <cstdlib>

#include "gpu/method.h"
#include "gpu_test_env.h"

namespace peerbench::gpu::test {
namespace {

TEST(SimulatedHosts, CrossHostPairUsesNetAndSkipsCopies) {
  const RankContext& base = *env().rank;
  const std::string id = "simhost" + std::to_string(base.rank);
  ::setenv(kHostIdVariable, id.c_str(), 1);
  ::setenv("NCCL_HOSTID", id.c_str(), 1);
  RankContext rk = make_rank_context();
  auto o = quick_options("ce-write,sm-read,nccl-sendrecv,nccl-allreduce");
  auto out = run_job(rk, o);
  // The same NCCL methods captured in CUDA graphs (-G): replays give checked results too.
  auto g = quick_options("nccl-sendrecv,nccl-allreduce");
  g.cudagraph_replays = 2;
  auto graphed = run_job(rk, g);
  ::unsetenv(kHostIdVariable);
  ::unsetenv("NCCL_HOSTID");
  free_rank_context(rk);

  EXPECT_EQ(out.doc.system.hosts.size(), static_cast<std::size_t>(base.size));
  for (const auto& r : out.doc.results) {
    if (r.method == "ce-write" || r.method == "sm-read") {
      EXPECT_EQ(r.status, ResultStatus::kNotApplicable) << r.method;
      EXPECT_NE(r.reason.find("different hosts"), std::string::npos) << r.reason;
    } else {
      EXPECT_EQ(r.status, ResultStatus::kOk) << r.method << ": " << r.reason;
      EXPECT_EQ(r.wrong, 0u);
    }
  }
  ASSERT_FALSE(graphed.doc.results.empty());
  for (const auto& r : graphed.doc.results) {
    EXPECT_EQ(r.status, ResultStatus::kOk) << "graphed " << r.method << ": " << r.reason;
    EXPECT_EQ(r.graph_replays, 2) << r.method;
    EXPECT_TRUE(r.checked) << r.method;
    EXPECT_EQ(r.wrong, 0u) << r.method;
  }
  if (env().sharing) {
    // Both ranks drive one GPU (one UUID under two host names): no link and no fabric to blame;
    // every verdict is not-a-link and run exits 0, as report would on the file.
    EXPECT_EQ(graphed.exit_code, 0);
    for (const auto& v : graphed.doc.verdicts) {
      EXPECT_EQ(v.verdict, "not-a-link") << v.src << "->" << v.dst;
      EXPECT_TRUE(v.flags.empty()) << v.src << "->" << v.dst << ": " << v.flags.front().message;
    }
  } else {
    // Two GPUs: the Socket transport between the two "hosts" is flagged (nccl-net-socket), and
    // that alone: run exits as report would on the file, 1.
    EXPECT_EQ(graphed.exit_code, 1);
    EXPECT_EQ(count_failing(graphed.doc.verdicts, "all"),
              count_failing(graphed.doc.verdicts, "nccl-net-socket"));
  }
  if (env().capture->mode() != "peerbench")
    GTEST_SKIP() << "NCCL log not captured: " << env().capture->note();
  if (base.rank == 0) {
    bool found = false;
    for (const auto& p : out.doc.pairs) {
      if (p.src == 0 && p.dst == 1) {
        ASSERT_TRUE(p.nccl.has_value()) << "no transport recorded for 0->1";
        EXPECT_EQ(p.nccl->kind, "NET") << p.nccl->example;
        found = true;
      }
    }
    EXPECT_TRUE(found);
  }
}

}  // namespace
}  // namespace peerbench::gpu::test
