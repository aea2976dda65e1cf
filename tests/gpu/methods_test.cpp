// Each method on 2 ranks with data checks, faults and resource hygiene.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/model/schema.h"
#include "gpu/method.h"
#include "gpu/peer_access.h"
#include "gpu_test_env.h"

namespace peerbench::gpu::test {
namespace {

// Reasons a method may legitimately be skipped on this machine.
bool legit_skip(const Result& r) {
  if (r.status != ResultStatus::kSkipped) return false;
  if (env().sharing) {
    return r.reason.find("share") != std::string::npos;  // NCCL duplicate GPU, ping-pong
  }
  return false;
}

// Every method of the catalogue, each checked on its own results. Methods that need the same
// resources run in one job: the peer buffers alone (copy-engine and kernel methods), the host
// staging ring (staged), pinned host memory (h2d, d2h), an NCCL communicator (nccl-*). A job sets
// up for each of them what it would for that method alone, and costs its idle check (1.2 s) and
// set-up once: 4 jobs where one per method took 22.
std::vector<std::string> each_method() {
  std::vector<std::string> names;
  for (const auto& m : method_catalog()) names.push_back(m.name);
  return names;
}

// What a method needs besides the peer buffers every job has.
std::string resources_of(const std::string& method) {
  const auto* m = find_method(method_catalog(), method);
  if (m == nullptr) return "unknown method " + method;
  if (m->uses_nccl) return "an NCCL communicator";
  if (m->host_staged) return "the host staging ring";
  if (m->scope == MethodScope::kPerGpu) return "pinned host memory";
  return "the peer buffers";
}

class EachMethod : public ::testing::TestWithParam<std::string> {
 protected:
  struct GroupJob {
    std::string methods;  // comma-separated, as -m takes them
    RunOptions options;
    JobOutcome outcome;
  };
  // The job of `method` and the methods that need what it needs; run on first use (every rank
  // runs the tests in the same order, so every rank runs it in the same test).
  static const GroupJob& job_of(const std::string& method) {
    const std::string need = resources_of(method);
    auto it = jobs().find(need);
    if (it != jobs().end()) return it->second;
    GroupJob g;
    for (const auto& name : each_method()) {
      if (resources_of(name) == need) g.methods += (g.methods.empty() ? "" : ",") + name;
    }
    g.options = quick_options(g.methods);
    // What this test checks is the data and the run's completeness, not the figures: under
    // compute-sanitizer's racecheck a 4-byte peer ping-pong takes 127 us, a high-latency flag.
    g.options.fail_on = "data-errors,incomplete";
    g.outcome = run_job(*env().rank, g.options);
    return jobs().emplace(need, std::move(g)).first->second;
  }
  static void TearDownTestSuite() { jobs().clear(); }

 private:
  static std::map<std::string, GroupJob>& jobs() {
    static std::map<std::string, GroupJob> by_resources;
    return by_resources;
  }
};

TEST_P(EachMethod, MovesCorrectDataOnTwoRanks) {
  const GroupJob& job = job_of(GetParam());
  const RunOptions& o = job.options;
  int results = 0, ok = 0;
  for (const auto& r : job.outcome.doc.results) {
    if (r.method != GetParam()) continue;
    ++results;
    if (legit_skip(r)) continue;
    EXPECT_EQ(r.status, ResultStatus::kOk)
        << r.method << " " << r.src << "->" << r.dst << " " << r.bytes << ": " << r.reason;
    if (r.status != ResultStatus::kOk) continue;
    ++ok;
    EXPECT_EQ(r.wrong, 0u) << r.method << " " << r.bytes;
    ASSERT_TRUE(r.time_us.has_value());
    EXPECT_GT(r.time_us->median, 0.0);
    EXPECT_LE(r.time_us->min, r.time_us->median);
    EXPECT_EQ(r.time_us->count, o.samples);
    EXPECT_EQ(r.sample_time_us.size(), static_cast<std::size_t>(o.samples));
    const auto* m = find_method(method_catalog(), r.method);
    ASSERT_NE(m, nullptr);
    if (r.method != "sm-latency") {
      EXPECT_TRUE(r.checked) << r.method;
      EXPECT_GT(r.checked_elements, 0u) << r.method;
    }
    if (m->bidirectional) EXPECT_EQ(r.directions.size(), 2u);
  }
  ASSERT_GT(results, 0) << "no results for " << GetParam() << " in the job of " << job.methods;
  if (!env().sharing || (GetParam().rfind("nccl", 0) != 0 && GetParam() != "sm-latency")) {
    EXPECT_GT(ok, 0) << "nothing ran for " << GetParam();
  }
  EXPECT_EQ(job.outcome.exit_code, 0) << "the job of " << job.methods;
}

INSTANTIATE_TEST_SUITE_P(AllMethods, EachMethod, ::testing::ValuesIn(each_method()),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (auto& c : n) c = c == '-' ? '_' : c;
                           return n;
                         });

TEST(DataCheck, InjectedCorruptionIsCountedAndFailsTheRun) {
  auto o = quick_options("ce-write,sm-read,staged");
  o.fault = {"corrupt", "sm-read", 1};
  auto out = run_job(*env().rank, o);
  std::uint64_t wrong_sm = 0, wrong_other = 0;
  for (const auto& r : out.doc.results) {
    if (r.method == "sm-read" && r.dst == 1) wrong_sm += r.wrong;
    if (r.method != "sm-read") wrong_other += r.wrong;
  }
  EXPECT_GT(wrong_sm, 0u) << "the corrupted word on rank 1 must be found";
  EXPECT_EQ(wrong_other, 0u);
  EXPECT_EQ(out.exit_code, 1);
}

// Host<->GPU copies: one result per GPU (src = dst = its rank), the -all methods with every GPU
// in one step; a word corrupted on its way back from host memory is found.
TEST(HostCopies, OneResultPerGpuAndCorruptionIsFound) {
  auto o = quick_options("h2d,d2h-all");
  auto out = run_job(*env().rank, o);
  std::set<int> h2d_gpus;
  for (const auto& r : out.doc.results) {
    EXPECT_EQ(r.src, r.dst) << r.method;
    EXPECT_EQ(r.status, ResultStatus::kOk) << r.method << " GPU " << r.src << ": " << r.reason;
    if (r.method == "h2d") h2d_gpus.insert(r.src);
    if (r.method == "d2h-all") EXPECT_EQ(r.concurrent_pairs, 2) << "both GPUs at once";
    if (r.status == ResultStatus::kOk) EXPECT_GT(r.algbw_gbps->median, 0.0);
  }
  EXPECT_EQ(h2d_gpus, (std::set<int>{0, 1}));
  for (const auto& ri : out.doc.system.ranks) {
    EXPECT_NE(ri.host_memory.find("pinned"), std::string::npos) << ri.host_memory;
  }
  auto bad = quick_options("d2h");
  bad.fault = {"corrupt", "d2h", 1};
  auto corrupted = run_job(*env().rank, bad);
  std::uint64_t wrong1 = 0, wrong0 = 0;
  for (const auto& r : corrupted.doc.results) (r.src == 1 ? wrong1 : wrong0) += r.wrong;
  EXPECT_GT(wrong1, 0u) << "the corrupted word of GPU 1's d2h must be found";
  EXPECT_EQ(wrong0, 0u);
  EXPECT_EQ(corrupted.exit_code, 1);
}

// Every collective over every element type and op nccl-tests knows, each output element checked
// exactly (avg within the type's rounding); a corrupted word in one rank's output is found.
TEST(Collectives, EveryTypeAndOpPassesTheDataCheck) {
  if (env().sharing) GTEST_SKIP() << "NCCL refuses two ranks on one GPU (this host has 1 GPU)";
  auto o = quick_options(
      "nccl-allreduce,nccl-reducescatter,nccl-reduce,nccl-allgather,nccl-broadcast,"
      "nccl-alltoall,nccl-sendrecv-ring");
  o.sweep = {64 << 10, 64 << 10, 2, 0};
  o.datatypes = all_data_types();
  o.ops = all_reduce_ops();
  o.root = 1;
  o.samples = 1;
  auto out = run_job(*env().rank, o);
  std::set<std::string> seen;
  for (const auto& r : out.doc.results) {
    const std::string what = r.method + " " + variant_label(r);
    if (r.status == ResultStatus::kSkipped && r.reason.find("has no") != std::string::npos) {
      continue;  // a type this NCCL lacks, said so
    }
    EXPECT_EQ(r.status, ResultStatus::kOk) << what << ": " << r.reason;
    EXPECT_EQ(r.wrong, 0u) << what;
    EXPECT_TRUE(r.checked) << what;
    seen.insert(what);
  }
  // 3 reductions x 12 types x 5 ops + 4 others x 12 types.
  EXPECT_GE(seen.size(), 3u * 10 * 5 + 4u * 10) << "variants measured";
  auto bad = quick_options("nccl-allgather,nccl-reduce");
  bad.fault = {"corrupt", "nccl-allgather", 1};
  auto corrupted = run_job(*env().rank, bad);
  std::uint64_t wrong = 0;
  for (const auto& r : corrupted.doc.results) wrong += r.method == "nccl-allgather" ? r.wrong : 0;
  EXPECT_GT(wrong, 0u) << "the corrupted word of rank 1's all-gather output must be found";
  EXPECT_EQ(corrupted.exit_code, 1);
}

TEST(DataCheck, OddSizesAndTailBytes) {
  auto o = quick_options("ce-write,sm-write,sm-read,staged,nccl-sendrecv,nccl-allreduce");
  o.sweep = {1, 1000003, 0, 333331};  // 1, 333332, 666663, 999994, 1000003 bytes
  auto out = run_job(*env().rank, o);
  for (const auto& r : out.doc.results) {
    if (legit_skip(r)) continue;
    if (r.method == "nccl-allreduce" && planned_bytes(r) < 4) {
      // Nothing left after rounding down to whole floats: not applicable, with the reason.
      EXPECT_EQ(r.status, ResultStatus::kNotApplicable) << r.bytes;
      EXPECT_NE(r.reason.find("holds no whole element"), std::string::npos) << r.reason;
      continue;
    }
    if (r.method == "nccl-allreduce" && r.status == ResultStatus::kOk) {
      // Rounded down to whole floats, as nccl-tests does, and the size asked for recorded.
      EXPECT_EQ(r.bytes % 4, 0u) << r.bytes;
      EXPECT_LT(planned_bytes(r) - r.bytes, 4u);
      EXPECT_EQ(r.requested_bytes != 0, planned_bytes(r) % 4 != 0) << r.bytes;
    }
    EXPECT_EQ(r.status, ResultStatus::kOk) << r.method << " " << r.bytes << ": " << r.reason;
    EXPECT_EQ(r.wrong, 0u) << r.method << " " << r.bytes;
  }
}

TEST(Graphs, CapturedIterationsGiveCheckedResults) {
  auto o = quick_options("ce-write,sm-write,ce-latency,staged,nccl-allreduce");
  o.cudagraph_replays = 3;
  auto out = run_job(*env().rank, o);
  for (const auto& r : out.doc.results) {
    if (legit_skip(r)) continue;
    EXPECT_EQ(r.status, ResultStatus::kOk) << r.method << ": " << r.reason;
    EXPECT_EQ(r.wrong, 0u);
    if (r.method == "staged") {
      EXPECT_EQ(r.graph_replays, 0) << "staged is not graph-capturable and must say so";
    } else if (r.status == ResultStatus::kOk) {
      EXPECT_EQ(r.graph_replays, 3) << r.method;
    }
  }
}

// More work than fits behind the start gate (2 x H200, revision e7f6e27: -n 4000 and -G 20 -n 200
// opened the gate by its timeout, and the samples were still reported): every sample is a real
// measurement, and the job takes seconds, not a gate timeout per sample.
TEST(StartGate, LongQueuesNeverTimeOutTheGate) {
  auto o = quick_options("ce-write,nccl-allreduce");
  o.sweep = {8, 8, 2, 0};
  o.iters = 4000;
  o.samples = 2;
  o.timeout_s = 20;
  const auto t0 = std::chrono::steady_clock::now();
  auto out = run_job(*env().rank, o);
  auto g = quick_options("nccl-allreduce,ce-write");
  g.sweep = {8, 8, 2, 0};
  g.iters = 200;
  g.cudagraph_replays = 20;
  g.samples = 2;
  g.timeout_s = 20;
  auto graphed = run_job(*env().rank, g);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  int ok = 0;
  for (const auto* doc : {&out.doc, &graphed.doc}) {
    for (const auto& r : doc->results) {
      if (legit_skip(r)) continue;
      EXPECT_EQ(r.status, ResultStatus::kOk)
          << r.method << " -G " << r.graph_replays << ": " << r.reason;
      EXPECT_EQ(r.gate_timeouts, 0) << r.method;
      ok += r.status == ResultStatus::kOk;
    }
  }
  EXPECT_GT(ok, 0);
  // Each gate timeout costs 5 s per sample; without one, both jobs take a few seconds.
  EXPECT_LT(s, 30.0) << "gate timeouts or launch stalls";
}

// Issue 17: the time per operation does not depend on how many are queued. Past the gate depth
// a sample is timed in batches, each behind its own gate, so -n 4000 measures what -n 250 does;
// every iteration is timed too (per_iteration, as nccl-tests' -I), and the file written says so
// (tests/e2e/contention.sh ran these three jobs again through the executable to read its file).
TEST(StartGate, LongQueuesMeasureWhatShortOnesDo) {
  std::map<int, double> us;
  for (int n : {250, 1000, 4000}) {
    auto o = quick_options("ce-write");
    o.sweep = {8, 8, 2, 0};
    o.iters = n;
    o.samples = 3;
    auto out = run_job(*env().rank, o);
    for (const auto& r : out.doc.results) {
      if (legit_skip(r) || r.status != ResultStatus::kOk) continue;
      us[n] = std::max(us[n], r.time_us->median);
      ASSERT_TRUE(r.per_iteration.has_value());
      EXPECT_EQ(r.per_iteration->count, n) << "one more sample times every iteration";
      EXPECT_LE(r.per_iteration->p50_us, r.per_iteration->p99_us);
      ASSERT_TRUE(r.enqueue.has_value());
      EXPECT_EQ(r.enqueue->batches, (n + 255) / 256) << "256 copies per gate";
      EXPECT_FALSE(r.enqueue->launch_bound);
    }
    if (env().rank->rank != 0) continue;
    ASSERT_TRUE(out.json_written) << "-n " << n;
    const auto file = load_run_file(o.json_path);
    std::remove(o.json_path.c_str());
    int ok = 0;
    for (const auto& r : file.results) {
      if (r.status != ResultStatus::kOk) continue;
      ++ok;
      ASSERT_TRUE(r.per_iteration.has_value()) << "-n " << n << ": per_iteration in the file";
      const auto& pi = *r.per_iteration;
      EXPECT_EQ(pi.count, n) << "the file's per_iteration";
      EXPECT_LE(pi.p50_us, pi.p95_us) << "-n " << n;
      EXPECT_LE(pi.p95_us, pi.p99_us) << "-n " << n;
      std::printf("ce-write 8 B -n %d: %.2f us per copy, p50 %.2f p99 %.2f cv %.3f, %d batches\n",
                  n, r.time_us->median, pi.p50_us, pi.p99_us, pi.cv,
                  r.enqueue ? r.enqueue->batches : -1);
    }
    EXPECT_GT(ok, 0) << "-n " << n << ": no measured case in the file";
  }
  ASSERT_EQ(us.size(), 3u);
  const auto [lo, hi] = std::minmax({us[250], us[1000], us[4000]});
  EXPECT_LT(hi / lo, 1.25) << "-n 250 " << us[250] << " us, 1000 " << us[1000] << " us, 4000 "
                           << us[4000] << " us";
}

// A graph of 200 copies streams its replays after one gate opening (each opening costs the ranks'
// skew in releasing it; the openings are counted as they happen): every replay is still checked,
// and the time per copy is what the per-iteration sample gives, where each replay is timed behind
// its own gate (its p50), within 15 %. (Graphed copies are not compared with ungraphed ones: on one
// H200 a graph of 200 copies ran each in 0.73-0.93 us where stream launches took 1.45-1.76 us.)
TEST(StartGate, AStreamedGraphOpensTheGateOncePerSample) {
  auto o = quick_options("ce-write,sm-write");
  o.sweep = {8, 8, 2, 0};
  o.iters = 200;
  o.samples = 3;
  o.cudagraph_replays = 20;
  const auto out = run_job(*env().rank, o);
  int streamed = 0;
  for (const auto& r : out.doc.results) {
    if (legit_skip(r)) continue;
    ASSERT_EQ(r.status, ResultStatus::kOk) << r.method << ": " << r.reason;
    EXPECT_EQ(r.graph_replays, 20) << r.method;
    EXPECT_EQ(r.gate_timeouts, 0) << r.method;
    EXPECT_TRUE(r.checked) << r.method;
    EXPECT_EQ(r.wrong, 0u) << r.method;
    ASSERT_TRUE(r.enqueue.has_value());
    EXPECT_EQ(r.enqueue->batches, 1) << r.method << ": one gate opening per sample";
    EXPECT_FALSE(r.enqueue->launch_bound) << r.method << ": " << r.enqueue->note;
    ASSERT_TRUE(r.per_iteration.has_value()) << r.method;
    EXPECT_EQ(r.per_iteration->count, 20) << r.method << ": one time per replay";
    const double ratio = r.time_us->median / r.per_iteration->p50_us;
    std::printf("%s %d>%d: streamed %.3f us, per-replay p50 %.3f us\n", r.method.c_str(), r.src,
                r.dst, r.time_us->median, r.per_iteration->p50_us);
    EXPECT_GT(ratio, 0.85) << r.method << " streamed " << r.time_us->median << " us, p50 "
                           << r.per_iteration->p50_us << " us";
    EXPECT_LT(ratio, 1.15) << r.method << " streamed " << r.time_us->median << " us, p50 "
                           << r.per_iteration->p50_us << " us";
    ++streamed;
  }
  EXPECT_GT(streamed, 0);
  // A replay of more than the gate depth (300 copies) is not streamed: two in flight could fill
  // the launch queue behind a stuck GPU, where the watchdog cannot end a blocked launch. One gate
  // each, as counted.
  auto big = o;
  big.iters = 300;
  big.cudagraph_replays = 3;
  big.per_iteration = false;
  for (const auto& r : run_job(*env().rank, big).doc.results) {
    if (legit_skip(r)) continue;
    ASSERT_EQ(r.status, ResultStatus::kOk) << r.method << ": " << r.reason;
    ASSERT_TRUE(r.enqueue.has_value());
    EXPECT_EQ(r.enqueue->batches, 3) << r.method;
  }
}

// Memory after each of several identical jobs: a leak lowers it run after run, while one-time
// costs (CUDA's lazily loaded modules, NCCL's per-process state; NVIDIA/nccl#604 shows ~50 MB on
// the first communicator only) and the moment of the reading move it once. Two ranks on one GPU
// read each other's memory too: one H200 read 142101 MiB after runs 2 and 3 and 142091 after
// each of runs 4 to 10 (a step, flat after it), which the two windows this test compared took
// for a leak.
TEST(Resources, RepeatedRunsKeepGpuMemoryFlat) {
  auto o = quick_options("ce-write,sm-bidir,staged,nccl-sendrecv");
  std::vector<double> free_mib;
  for (int i = 0; i < 12; ++i) {
    (void)run_job(*env().rank, o);
    std::size_t free_b = 0, total = 0;
    ASSERT_EQ(cudaMemGetInfo(&free_b, &total), cudaSuccess);
    free_mib.push_back(static_cast<double>(free_b) / (1 << 20));
  }
  std::string trace;
  for (double f : free_mib) trace += std::to_string(static_cast<long long>(f)) + " ";
  // Runs 3-12 in five pairs, the best of each: a reading right after a job dips while NCCL's
  // proxy threads still release buffers (a few hundred MiB on 2 x H200, back by the next run),
  // and the better of two readings steps over it. A leak of 1 MiB a run lowers every pair's best,
  // by 8 MiB in all; a step lowers one.
  std::vector<double> best;
  for (std::size_t k = 2; k + 1 < free_mib.size(); k += 2)
    best.push_back(std::max(free_mib[k], free_mib[k + 1]));
  std::size_t falls = 0;
  for (std::size_t k = 1; k < best.size(); ++k) falls += best[k] < best[k - 1] - 0.5 ? 1 : 0;
  const bool leak = falls == best.size() - 1 && best.front() - best.back() >= 8.0;
  EXPECT_FALSE(leak) << "GPU memory shrinks with every run (free MiB after each: " << trace << ")";
  if (env().rank->rank == 0)
    std::printf("# free GPU memory after each job (MiB): %s\n", trace.c_str());
}

TEST(PeerAccess, EnableIsIdempotentAndClearsTheError) {
  PB_REQUIRE_DISTINCT_GPUS(2);
  const int me = env().rank->device;
  const int peer = me == 0 ? 1 : 0;
  int can = 0;
  ASSERT_EQ(cudaDeviceCanAccessPeer(&can, me, peer), cudaSuccess);
  if (!can) GTEST_SKIP() << "GPUs " << me << " and " << peer << " cannot peer";
  {
    auto first = PeerAccess::enable(me, peer);
    auto second = PeerAccess::enable(me, peer);
    EXPECT_TRUE(first.usable());
    EXPECT_EQ(second.state(), PeerAccessState::kAlreadyEnabled);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "AlreadyEnabled must not linger";
  }
  // Released by the owner: enabling again is a fresh enable.
  auto again = PeerAccess::enable(me, peer);
  EXPECT_EQ(again.state(), PeerAccessState::kEnabled);
}

TEST(Schedule, RoundsCoverEveryOrderedPairOnce) {
  auto o = quick_options("ce-write,ce-bidir");
  o.schedule = Schedule::kRounds;
  auto out = run_job(*env().rank, o);
  std::set<std::tuple<std::string, int, int, std::uint64_t>> seen;
  for (const auto& r : out.doc.results) {
    EXPECT_TRUE(seen.insert({r.method, r.src, r.dst, r.bytes}).second) << "duplicate result";
    EXPECT_EQ(r.status, ResultStatus::kOk) << r.reason;
  }
  const int n = env().rank->size;
  const std::size_t sizes = 3;
  EXPECT_EQ(seen.size(), sizes * static_cast<std::size_t>(n * (n - 1) + n * (n - 1) / 2));
}

TEST(Json, WrittenFileReadsBackWithTheSchema) {
  auto o = quick_options("ce-write,nccl-allreduce");
  auto out = run_job(*env().rank, o);
  if (env().rank->rank == 0) {
    ASSERT_TRUE(out.json_written);
    const auto doc = load_run_file(o.json_path);
    EXPECT_EQ(doc.status, "complete");
    EXPECT_EQ(doc.results.size(), out.doc.results.size());
    EXPECT_EQ(doc.system.ranks.size(), static_cast<std::size_t>(env().rank->size));
    EXPECT_FALSE(doc.system.nccl_version.empty());
    EXPECT_TRUE(doc.topology.has_value());
    std::remove(o.json_path.c_str());
  }
}

}  // namespace
}  // namespace peerbench::gpu::test
