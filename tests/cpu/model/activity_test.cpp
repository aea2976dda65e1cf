// The monitor's bookkeeping (core/model/gpu_activity.h) and the per-iteration statistics: what was
// in the way of a case, what an idle check found, and nccl-tests' percentile rule.
#include <gtest/gtest.h>

#include "core/model/gpu_activity.h"
#include "core/model/results.h"
#include "core/model/statistics.h"

namespace peerbench {
namespace {

ActivitySample activity_sample(double t, std::vector<ForeignProcess> foreign = {}, int util = 0,
                               bool job_idle = false, unsigned long long reasons = 0) {
  ActivitySample s;
  s.t_s = t;
  s.foreign = std::move(foreign);
  s.util_gpu_pct = util;
  s.util_mem_pct = util / 2;
  s.reasons = reasons;
  s.job_idle = job_idle;
  return s;
}

TEST(ThrottleReasons, OnlyTheReasonsThatHoldClocksDown) {
  EXPECT_TRUE(throttle_reasons(0x1 | 0x2 | 0x10 | 0x100).empty())
      << "idle, application clocks, sync boost and display clocks are not throttling";
  EXPECT_EQ(throttle_reasons(0x8 | 0x40), (std::vector<std::string>{"hw-slowdown", "hw-thermal"}));
  EXPECT_EQ(throttle_reasons(0x4 | 0x20 | 0x80),
            (std::vector<std::string>{"sw-power-cap", "sw-thermal", "power-brake"}));
}

TEST(FabricHealth, MaskAndSummaryInWords) {
  EXPECT_EQ(fabric_health_text(std::nullopt, std::nullopt), "") << "nothing known";
  EXPECT_EQ(fabric_health_text(0x2 | 0x8 | 0x20 | 0x80 | 0x100, 1u), "healthy");
  EXPECT_EQ(fabric_health_text(0x1 | 0x20, 2u), "degraded bandwidth");
  EXPECT_EQ(fabric_health_text(0x1 | 0x10, std::nullopt), "degraded bandwidth, route unhealthy");
  EXPECT_EQ(fabric_health_text(0x500, std::nullopt), "insufficient NVLinks");
  EXPECT_EQ(fabric_health_text(0, 3u), "limited capacity");
  EXPECT_EQ(fabric_state_text(3), "completed");
  EXPECT_EQ(fabric_state_text(1), "not-started");
}

TEST(ActivityTracker, ACaseSeesTheProcessesThatRanDuringIt) {
  ActivityTracker t;
  const ForeignProcess loop{4242, "copyloop", 2568ull << 20, 99};
  t.add(activity_sample(0.0));
  t.add(activity_sample(1.0, {loop}, 100));
  t.add(activity_sample(2.0, {loop}, 100));
  t.add(activity_sample(3.0));
  const auto during = t.window(1.5, 2.5);
  ASSERT_EQ(during.processes.size(), 1u);
  EXPECT_EQ(during.processes[0].name, "copyloop");
  EXPECT_EQ(*during.util_gpu_pct, 100);
  EXPECT_TRUE(during.contended());
  // A case between two samples takes the state it started in.
  EXPECT_TRUE(t.window(1.2, 1.3).contended());
  EXPECT_FALSE(t.window(3.1, 3.2).contended()) << "the loop had ended";
  ASSERT_EQ(t.sightings().size(), 1u);
  EXPECT_DOUBLE_EQ(t.sightings()[0].first_seen_s, 1.0);
  EXPECT_DOUBLE_EQ(t.sightings()[0].last_seen_s, 2.0);
  EXPECT_EQ(t.sightings()[0].samples, 2);
}

TEST(ActivityTracker, UtilizationWhileTheJobIsIdleIsSomebodyElses) {
  ActivityTracker t(10);
  t.add(activity_sample(0.0, {}, 5, true));
  EXPECT_FALSE(t.window(0.5, 0.6).contended()) << "5 % is under the bar";
  t.add(activity_sample(1.0, {}, 90, true));
  EXPECT_FALSE(t.window(1.5, 1.6).busy_while_idle) << "one busy look of two: maybe a job ending";
  t.add(activity_sample(1.5, {}, 95, true));
  t.add(activity_sample(2.0, {}, 100, false));  // the job's own work: says nothing
  const auto g = t.window(2.5, 3.0);
  EXPECT_TRUE(g.busy_while_idle) << "most idle looks saw it busy, none since saw it stop";
  t.add(activity_sample(4.0, {}, 0, true));
  EXPECT_FALSE(t.window(4.5, 5.0).busy_while_idle);
  ASSERT_EQ(t.sightings().size(), 1u);
  EXPECT_EQ(t.sightings()[0].kind, "busy-while-idle");
}

// From the one-H200 check: two ranks of the job on one GPU (--allow-gpu-sharing); rank 1 read the
// utilization of rank 0's copy as another job's ("contended" beside a healthy figure). A GPU the
// job shares between ranks takes no unnamed utilization for another job during the cases; a
// process outside the job is still seen, and the idle check is unchanged.
TEST(ActivityTracker, AGpuSharedByTheJobsRanksIsNotContendedByItsOwnWork) {
  ActivityTracker t;
  t.share_with_job(true);
  for (double at : {0.0, 0.5, 1.0}) t.add(activity_sample(at, {}, 100, true));
  const auto g = t.window(1.2, 1.3);
  EXPECT_FALSE(g.busy_while_idle);
  EXPECT_FALSE(g.contended());
  EXPECT_TRUE(t.sightings().empty());
  const ForeignProcess other{77, "python3", 1ull << 30, std::nullopt};
  t.add(activity_sample(1.4, {other}, 100, true));
  EXPECT_TRUE(t.window(1.4, 1.5).contended()) << "a process outside the job still counts";
  EXPECT_FALSE(t.idle_check({activity_sample(2.0, {}, 100, true)}, "start", 0).idle)
      << "every rank idle at the check: utilization is someone else's";
  ActivityTracker alone;  // the same looks on a GPU of its own: another user
  for (double at : {0.0, 0.5, 1.0}) alone.add(activity_sample(at, {}, 100, true));
  EXPECT_TRUE(alone.window(1.2, 1.3).busy_while_idle);
}

TEST(ActivityTracker, HeldClocksAreSeenAsThrottling) {
  ActivityTracker t;
  t.add(activity_sample(0.0, {}, 100, false, 0x8));
  const auto g = t.window(0.0, 0.1);
  EXPECT_TRUE(g.throttled());
  EXPECT_FALSE(g.contended());
  EXPECT_EQ(g.throttle_reasons, std::vector<std::string>{"hw-slowdown"});
}

TEST(ActivityTracker, IdleCheckNamesWhatIsThere) {
  ActivityTracker t;
  const ForeignProcess other{77, "python3", 1ull << 30, std::nullopt};
  const auto busy = t.idle_check(
      {activity_sample(0.1, {other}, 40, true), activity_sample(0.2, {}, 60, true)}, "start", 0);
  EXPECT_FALSE(busy.idle);
  ASSERT_EQ(busy.processes.size(), 1u);
  EXPECT_EQ(busy.processes[0].pid, 77);
  EXPECT_EQ(*busy.util_gpu_pct, 60);
  EXPECT_TRUE(t.idle_check({activity_sample(0.1, {}, 0, true)}, "start", 0).idle);
  EXPECT_FALSE(t.idle_check({activity_sample(0.1, {}, 50, true)}, "start", 0).idle)
      << "a process NVML cannot list is still seen through utilization";
}

TEST(ActivityTracker, KeepsABoundedHistory) {
  ActivityTracker t(10, 100);
  for (int i = 0; i < 10000; ++i) t.add(activity_sample(i * 0.1));
  EXPECT_EQ(t.samples(), 10000);
  EXPECT_FALSE(t.window(999.0, 999.5).contended());
}

TEST(IterationStats, PercentilesAsNcclTestsTakesThem) {
  std::vector<double> us;
  for (int i = 1; i <= 100; ++i) us.push_back(i);
  const auto s = iteration_stats(us);
  EXPECT_EQ(s.count, 100);
  EXPECT_DOUBLE_EQ(s.min_us, 1);
  EXPECT_DOUBLE_EQ(s.p50_us, 51);  // sorted[n/2]
  EXPECT_DOUBLE_EQ(s.p95_us, 95);  // sorted[ceil(0.95 n) - 1]
  EXPECT_DOUBLE_EQ(s.p99_us, 99);
  EXPECT_DOUBLE_EQ(s.max_us, 100);
  EXPECT_DOUBLE_EQ(s.mean_us, 50.5);
  EXPECT_NEAR(s.cv, 28.866 / 50.5, 1e-3);
  EXPECT_DOUBLE_EQ(iteration_stats({5.5}).p99_us, 5.5);
  EXPECT_THROW(iteration_stats({}), std::invalid_argument);
}

}  // namespace
}  // namespace peerbench

namespace peerbench {
namespace {

// nccl-tests' -a: rank 0, average, minimum, maximum of the ranks' times (peerbench: the maximum).
TEST(OverRanks, NcclTestsAverageRules) {
  const std::vector<double> t{5.0, 7.0, 6.0};  // rank 0, 1, 2
  EXPECT_DOUBLE_EQ(over_ranks(t, 0), 5.0);
  EXPECT_DOUBLE_EQ(over_ranks(t, 1), 6.0);
  EXPECT_DOUBLE_EQ(over_ranks(t, 2), 5.0);
  EXPECT_DOUBLE_EQ(over_ranks(t, 3), 7.0);
  EXPECT_DOUBLE_EQ(over_ranks({4.2}, 1), 4.2);
  EXPECT_THROW(over_ranks({}, 3), std::invalid_argument);
  EXPECT_THROW(over_ranks(t, 4), std::invalid_argument);
}

TEST(NotTheLinksFigure, EachConditionAloneMakesAFigureNotTheLinks) {
  Result clean;
  EXPECT_FALSE(not_the_links_figure(clean));
  Result busy;
  GpuInterference g;
  g.busy_while_idle = true;
  busy.interference = std::vector<GpuInterference>{g};
  EXPECT_TRUE(not_the_links_figure(busy));
  EXPECT_FALSE(host_paced(busy)) << "another job is not the host's pace";
  Result held;
  GpuInterference h;
  h.throttle_reasons = {"hw-slowdown"};
  held.interference = std::vector<GpuInterference>{h};
  EXPECT_TRUE(not_the_links_figure(held));
  Result gated;
  gated.gate_timeouts = 1;
  EXPECT_TRUE(host_paced(gated));
  EXPECT_TRUE(not_the_links_figure(gated));
  Result enqueue_bound;
  enqueue_bound.enqueue = EnqueueInfo{};
  EXPECT_FALSE(host_paced(enqueue_bound)) << "an enqueue record alone is not launch-bound";
  enqueue_bound.enqueue->launch_bound = true;
  EXPECT_TRUE(host_paced(enqueue_bound));
  EXPECT_TRUE(not_the_links_figure(enqueue_bound));
}

}  // namespace
}  // namespace peerbench
