#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

#include "core/base/errors.h"
#include "core/model/method_catalog.h"
#include "core/plan/element_fit.h"
#include "core/plan/plan.h"
#include "core/present/plan_text.h"

namespace peerbench {
namespace {

PlanInput input(int n, Schedule s, const std::vector<std::string>& methods = {}) {
  PlanInput in;
  in.world_size = n;
  in.host_of_rank.assign(static_cast<std::size_t>(n), "node");
  for (const auto& m : method_catalog()) {
    if (methods.empty() || std::find(methods.begin(), methods.end(), m.name) != methods.end())
      in.methods.push_back(m);
  }
  in.schedule = s;
  in.sizes = {1 << 20, 1 << 30};
  return in;
}

TEST(Tournament, EveryUnorderedPairOnceAndRoundsDisjoint) {
  for (int n = 2; n <= 9; ++n) {
    const auto rounds = tournament_rounds(n);
    EXPECT_EQ(rounds.size(), static_cast<std::size_t>(n % 2 ? n : n - 1)) << n;
    std::set<std::pair<int, int>> seen;
    for (const auto& r : rounds) {
      std::set<int> busy;
      for (const auto& [a, b] : r) {
        EXPECT_TRUE(busy.insert(a).second && busy.insert(b).second)
            << "rank twice in a round, n=" << n;
        EXPECT_TRUE(seen.insert({std::min(a, b), std::max(a, b)}).second) << "pair twice, n=" << n;
      }
      if (n % 2 == 0) EXPECT_EQ(r.size(), static_cast<std::size_t>(n / 2));
    }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(n * (n - 1) / 2));
  }
}

class PlanForRanks : public ::testing::TestWithParam<std::tuple<int, Schedule>> {};

TEST_P(PlanForRanks, EveryOrderedPairOncePerMethodAndRoundsDisjoint) {
  const auto [n, schedule] = GetParam();
  const auto in = input(n, schedule);
  const Plan plan = make_plan(in);
  std::map<std::string, std::set<std::pair<int, int>>> seen;
  std::map<std::string, int> rounds;
  for (const auto& s : plan.steps) {
    if (s.all_ranks) {
      EXPECT_TRUE(seen[s.method].insert({-1, -1}).second);
      continue;
    }
    rounds[s.method]++;
    std::set<int> busy;
    for (const auto& p : s.pairs) {
      if (p.src == p.dst) {  // a GPU and its host (h2d, d2h)
        EXPECT_TRUE(busy.insert(p.src).second) << "a GPU twice in one step";
        EXPECT_TRUE(seen[s.method].insert({p.src, p.dst}).second) << s.method << " GPU " << p.src;
        continue;
      }
      EXPECT_TRUE(busy.insert(p.src).second && busy.insert(p.dst).second)
          << "a rank in two pairs of one round";
      EXPECT_TRUE(seen[s.method].insert({p.src, p.dst}).second)
          << s.method << " " << p.src << "->" << p.dst;
      EXPECT_TRUE(p.applicable);
    }
    const auto* m = find_method(in.methods, s.method);
    if (schedule == Schedule::kSerial && !m->all_gpus_at_once) EXPECT_EQ(s.pairs.size(), 1u);
  }
  for (const auto& m : in.methods) {
    if (m.scope == MethodScope::kAllRanks) {
      EXPECT_EQ(seen[m.name].size(), 1u);
      continue;
    }
    if (m.scope == MethodScope::kPerGpu) {
      EXPECT_EQ(seen[m.name].size(), static_cast<std::size_t>(n)) << m.name << ": every GPU once";
      EXPECT_EQ(rounds[m.name], m.all_gpus_at_once ? 1 : n) << m.name;
      continue;
    }
    const std::size_t expect = m.bidirectional ? n * (n - 1) / 2 : n * (n - 1);
    EXPECT_EQ(seen[m.name].size(), expect) << m.name;
    if (m.bidirectional) {
      for (const auto& [a, b] : seen[m.name])
        EXPECT_LT(a, b) << "bidir results are keyed src < dst";
    }
    if (schedule == Schedule::kRounds && n % 2 == 0) {
      // n-1 rounds each way for unidirectional methods, n-1 in all for bidirectional ones.
      EXPECT_EQ(rounds[m.name], m.bidirectional ? n - 1 : 2 * (n - 1)) << m.name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, PlanForRanks,
                         ::testing::Combine(::testing::Values(2, 3, 4, 8),
                                            ::testing::Values(Schedule::kSerial,
                                                              Schedule::kRounds)),
                         [](const auto& info) {
                           return std::to_string(std::get<0>(info.param)) + "ranks_" +
                                  to_string(std::get<1>(info.param));
                         });

TEST(Plan, FixedSizeMethodsIgnoreTheSweep) {
  auto in = input(2, Schedule::kSerial, {"ce-latency", "sm-latency", "ce-write"});
  in.latency_bytes = 8;
  for (const auto& s : make_plan(in).steps) {
    if (s.method == "ce-latency") EXPECT_EQ(s.sizes, (std::vector<std::uint64_t>{8}));
    if (s.method == "sm-latency") EXPECT_EQ(s.sizes, (std::vector<std::uint64_t>{4}));
    if (s.method == "ce-write") EXPECT_EQ(s.sizes.size(), 2u);
  }
}

TEST(Plan, CrossHostPairsAreNotApplicableForCopiesButRunForNccl) {
  auto in = input(4, Schedule::kSerial, {"ce-write", "nccl-sendrecv"});
  in.host_of_rank = {"a", "a", "b", "b"};
  int na = 0, nccl = 0;
  for (const auto& s : make_plan(in).steps) {
    for (const auto& p : s.pairs) {
      const bool cross = in.host_of_rank[p.src] != in.host_of_rank[p.dst];
      if (s.method == "ce-write") {
        EXPECT_EQ(p.applicable, !cross);
        if (cross) {
          ++na;
          EXPECT_NE(p.reason.find("different hosts"), std::string::npos);
        }
      } else {
        EXPECT_TRUE(p.applicable);
        ++nccl;
      }
    }
  }
  EXPECT_EQ(na, 8);
  EXPECT_EQ(nccl, 12);
}

TEST(Plan, PairFilters) {
  auto in = input(4, Schedule::kSerial, {"ce-write", "ce-bidir"});
  in.host_of_rank = {"a", "a", "b", "b"};
  in.pairs = parse_pair_filter("intra-host");
  for (const auto& s : make_plan(in).steps) {
    for (const auto& p : s.pairs) EXPECT_EQ(in.host_of_rank[p.src], in.host_of_rank[p.dst]);
  }
  in.pairs = parse_pair_filter("inter-host");
  for (const auto& s : make_plan(in).steps) {
    for (const auto& p : s.pairs) EXPECT_NE(in.host_of_rank[p.src], in.host_of_rank[p.dst]);
  }
  in.pairs = parse_pair_filter("0>1");
  const auto plan = make_plan(in);
  ASSERT_EQ(plan.steps.size(), 2u);  // ce-write 0->1, ce-bidir {0,1}
  EXPECT_EQ(plan.steps[0].pairs[0].src, 0);
  EXPECT_EQ(plan.steps[0].pairs[0].dst, 1);
}

TEST(Plan, ExplicitPairsBeyondTheJobAreRefused) {
  auto in = input(2, Schedule::kSerial, {"ce-write"});
  in.pairs = parse_pair_filter("0-5");
  EXPECT_THROW(make_plan(in), UsageError);
  in.pairs = parse_pair_filter("inter-host");  // one host: nothing left
  EXPECT_THROW(make_plan(in), UsageError);
}

TEST(Plan, DefaultSuiteOnEightGpusWithRoundsFitsFiveMinutes) {
  auto in = input(8, Schedule::kRounds);
  in.sizes = {1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20, 1 << 30};  // the default sweep
  const Plan rounds = make_plan(in);
  EXPECT_LT(rounds.estimate_s, 300.0) << format_plan(rounds, in, false);
  in.schedule = Schedule::kSerial;
  const Plan serial = make_plan(in);
  EXPECT_GT(serial.estimate_s, 2 * rounds.estimate_s);
  EXPECT_EQ(serial.cases, rounds.cases);
}

TEST(Plan, FormatShowsRoundsPairsAndEstimate) {
  auto in = input(4, Schedule::kRounds, {"ce-write", "nccl-allreduce"});
  const auto text = format_plan(make_plan(in), in, false);
  EXPECT_NE(text.find("ce-write"), std::string::npos);
  EXPECT_NE(text.find("all 4 ranks"), std::string::npos);
  EXPECT_NE(text.find("Estimated time"), std::string::npos);
}

// From an audit: -d and -o multiply a collective's cases, but the plan counted each size once:
// a dry run of -d all -o all estimated a sixtieth of the run, and a run's progress read "24 of
// 12". Copies run once whatever -d says.
TEST(Plan, EachCollectiveVariantIsACase) {
  auto in = input(4, Schedule::kSerial, {"ce-write", "nccl-allreduce", "nccl-allgather"});
  const Plan one = make_plan(in);
  in.datatypes = {DataType::kFloat, DataType::kDouble, DataType::kInt8};
  in.ops = {ReduceOp::kSum, ReduceOp::kMax};
  const Plan many = make_plan(in);
  const std::int64_t copies = 12 * 2, per_variant = 2;  // 12 ordered pairs x 2 sizes
  EXPECT_EQ(one.cases, copies + 2 * per_variant);
  EXPECT_EQ(many.cases, copies + 6 * per_variant + 3 * per_variant) << "allreduce 3x2, gather 3";
  double copy_s = 0, reduce_one = 0, reduce_many = 0;
  for (const auto& s : one.steps) {
    if (s.method == "ce-write") copy_s += s.estimate_s;
    if (s.method == "nccl-allreduce") reduce_one = s.estimate_s;
  }
  for (const auto& s : many.steps) {
    if (s.method == "ce-write") copy_s -= s.estimate_s;
    if (s.method == "nccl-allreduce") reduce_many = s.estimate_s;
  }
  EXPECT_NEAR(copy_s, 0, 1e-9);
  EXPECT_NEAR(reduce_many, 6 * reduce_one, 1e-9);
}

// The GPU layer records a collective's sizes under one element per rank block not-applicable;
// a dry run says which before anything runs (it said nothing; an audit).
TEST(ElementFit, SizesUnderOneElementPerBlockAreNamed) {
  EXPECT_EQ(collective_blocks(Collective::kAllReduce, 8), 1);
  EXPECT_EQ(collective_blocks(Collective::kAllGather, 8), 8);
  EXPECT_EQ(collective_blocks(Collective::kReduceScatter, 8), 8);
  EXPECT_EQ(collective_blocks(Collective::kAllToAll, 8), 8);
  EXPECT_EQ(collective_blocks(Collective::kBroadcast, 8), 1);
  EXPECT_EQ(collective_size_unit(Collective::kAllGather, DataType::kDouble, 8), 64u);
  EXPECT_EQ(collective_size_unit(Collective::kReduce, DataType::kHalf, 8), 2u);

  auto in = input(2, Schedule::kSerial, {"ce-write", "nccl-allreduce", "nccl-allgather"});
  in.sizes = {8, 16};
  EXPECT_TRUE(sizes_holding_no_element(in).empty()) << "float: 4 B, 8 B over two ranks";
  in.sizes = {1, 2, 4, 16};
  in.datatypes = {DataType::kDouble, DataType::kInt8};
  const auto lines = sizes_holding_no_element(in);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0],
            "nccl-allreduce, double: 1 B, 2 B, 4 B hold no whole element (one double element, "
            "8 B); recorded not-applicable");
  EXPECT_EQ(lines[1],
            "nccl-allgather, double: 1 B, 2 B, 4 B hold no whole element (2 ranks x double "
            "elements, 16 B); recorded not-applicable");
  EXPECT_EQ(lines[2],
            "nccl-allgather, int8: 1 B holds no whole element (2 ranks x int8 elements, 2 B); "
            "recorded not-applicable");
  std::ostringstream notes;
  write_plan_notes(notes, in);
  EXPECT_EQ(notes.str().rfind("# note: nccl-allreduce, double: 1 B", 0), 0u) << notes.str();
}

// The plan's header counts its ranks as a reader says them: "# Plan: 1 ranks" on a one-GPU node.
TEST(Plan, HeaderSaysOneRankInTheSingular) {
  for (const auto& [n, want] : std::map<int, std::string>{
           {1, "# Plan: 1 rank, schedule serial, "}, {2, "# Plan: 2 ranks, schedule serial, "}}) {
    std::ostringstream out;
    write_plan(out, input(n, Schedule::kSerial, {"h2d"}), false);
    EXPECT_EQ(out.str().rfind(want, 0), 0u) << out.str();
  }
}

// A burn-in's estimate says it is a cycle's and what bounds the whole: a 10-minute burn-in once
// printed "10.0 s estimated" beside "606.2 s measured".
TEST(Plan, ABurnInEstimateIsACyclesAndSaysWhatBoundsTheWhole) {
  EXPECT_EQ(estimate_text(12.34, 1, 0, 1), "12.3 s");
  EXPECT_EQ(estimate_text(10, 0, 600, 0), "10 s a cycle, for 600 s (--duration)");
  EXPECT_EQ(estimate_text(10, 0, 0, 0), "10 s a cycle, until stopped (-N 0)");
  EXPECT_EQ(estimate_text(10, 5, 0, 0), "10 s a cycle, 50 s for 5 cycles (-N)");
  EXPECT_EQ(estimate_text(10, 5, 30, 0),
            "10 s a cycle, 50 s for 5 cycles (-N) or 30 s (--duration), whichever ends first");
  // From an audit: a duration shorter than a cycle said 90 s for a run of at least 522.6 s, and
  // -N 1 beside --duration lost the duration from the line.
  EXPECT_EQ(estimate_text(522.6, 0, 90, 1),
            "522.6 s a cycle, for 90.0 s (--duration); about 522.6 s in all, as a cycle that has "
            "started finishes");
  EXPECT_EQ(estimate_text(10, 0, 605, 0),
            "10 s a cycle, for 605 s (--duration)");  // 610 s: within 5 %
  EXPECT_EQ(estimate_text(10, 0, 15, 0),
            "10 s a cycle, for 15 s (--duration); about 20 s in all, as a cycle that has started "
            "finishes");
  EXPECT_EQ(estimate_text(522.6, 1, 90, 1),
            "522.6 s a cycle, 522.6 s for 1 cycle (-N) or 90.0 s (--duration), whichever ends "
            "first; about 522.6 s in all, as a cycle that has started finishes");
  EXPECT_EQ(estimate_text(10, 2, 600, 0),
            "10 s a cycle, 20 s for 2 cycles (-N) or 600 s (--duration), whichever ends first");
  auto in = input(2, Schedule::kSerial, {"ce-write"});
  in.cycles = 0;
  in.duration_s = 7200;
  const auto text = format_plan(make_plan(in), in, false);
  EXPECT_NE(text.find(" s a cycle, for 7200.0 s (--duration)"), std::string::npos) << text;
  EXPECT_EQ(text.find("hours"), std::string::npos) << "no '(2.0 hours)' read as the cycle's";
}

// Issue 39: the README's main job on a one-GPU host exited 2. With -m left out, one rank runs the
// host link's methods and says why in one line; a method named is never dropped.
RunOptions default_run() {
  RunOptions o;
  for (const auto& m : method_catalog()) o.methods.push_back(m.name);
  return o;
}

TEST(RankFit, TheDefaultJobOnOneGpuMeasuresTheHostLinkAndSaysWhy) {
  const RunOptions o = default_run();
  ASSERT_EQ(minimum_ranks(o.methods, method_catalog()), 2);
  const RankFit fit = fit_methods_to_ranks(o, 1, method_catalog(), "1 GPU on this host");
  EXPECT_EQ(fit.methods, (std::vector<std::string>{"h2d", "d2h"}))
      << "h2d-all and d2h-all would measure the one GPU again; collectives no link";
  EXPECT_EQ(fit.note,
            "1 GPU on this host: pair methods and collectives need 2 or more; measuring the host "
            "link only (h2d, d2h)");
  EXPECT_EQ(fit.note.find('\n'), std::string::npos);
  EXPECT_EQ(minimum_ranks(fit.methods, method_catalog()), 1);
  // Two ranks and more: the selection stands.
  for (int ranks : {2, 8}) {
    const RankFit all = fit_methods_to_ranks(o, ranks, method_catalog(), "x");
    EXPECT_EQ(all.methods, o.methods);
    EXPECT_EQ(all.note, "");
  }
}

TEST(RankFit, MethodsNamedWithDashMAreNeverDropped) {
  RunOptions o = default_run();
  o.methods_given = true;  // -m all
  const RankFit fit = fit_methods_to_ranks(o, 1, method_catalog(), "--np 1");
  EXPECT_EQ(fit.methods, o.methods);
  EXPECT_EQ(fit.note, "");
  EXPECT_EQ(minimum_ranks(fit.methods, method_catalog()), 2) << "refused by the caller, as before";
  o.methods = {"ce-write", "h2d"};
  EXPECT_EQ(fit_methods_to_ranks(o, 1, method_catalog(), "--np 1").methods, o.methods);
}

TEST(Plan, SummaryLineHoldsTheTotalsAndTheEstimate) {
  const auto in = input(8, Schedule::kSerial);
  const Plan totals = summarize_plan(in);
  const std::string line = plan_summary_line(in, totals);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_EQ(
      line.rfind("# Plan: 8 ranks, schedule serial, pairs all, " + std::to_string(totals.cases) +
                     " cases in " + std::to_string(totals.step_count) + " steps; estimated ",
                 0),
      0u)
      << line;
  EXPECT_NE(line.find(estimate_text(totals.estimate_s, 1, 0, 1)), std::string::npos) << line;
  EXPECT_NE(plan_summary_line(input(1, Schedule::kSerial, {"h2d"}), totals).find("1 rank,"),
            std::string::npos);
}

}  // namespace
}  // namespace peerbench
