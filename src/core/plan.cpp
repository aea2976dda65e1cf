#include "core/plan.h"

#include <algorithm>
#include <iomanip>
#include <set>
#include <sstream>

#include "core/errors.h"
#include "core/sizes.h"

namespace peerbench {

int PlanStep::running_pairs() const {
  return static_cast<int>(
      std::count_if(pairs.begin(), pairs.end(), [](const PlannedPair& p) { return p.applicable; }));
}

std::vector<std::vector<std::pair<int, int>>> tournament_rounds(int n) {
  std::vector<std::vector<std::pair<int, int>>> rounds;
  if (n < 2) return rounds;
  const int m = n % 2 ? n + 1 : n;  // pad odd n with a "bye" slot m-1
  std::vector<int> pos(m);
  for (int i = 0; i < m; ++i) pos[i] = i;
  for (int r = 0; r < m - 1; ++r) {
    std::vector<std::pair<int, int>> round;
    for (int i = 0; i < m / 2; ++i) {
      int a = pos[i];
      int b = pos[m - 1 - i];
      if (a >= n || b >= n) continue;  // bye
      // Alternate orientation by round so each rank sends about as often as it receives.
      if ((r + i) % 2) std::swap(a, b);
      round.emplace_back(a, b);
    }
    rounds.push_back(round);
    // Rotate every slot but the first.
    std::rotate(pos.begin() + 1, pos.end() - 1, pos.end());
  }
  return rounds;
}

double estimate_case_seconds(const MethodInfo& m, std::uint64_t bytes, const PlanInput& in,
                             int nranks) {
  // Assumed rates (GB/s) and per-operation overheads; NVLink-class node.
  double op_s = 0;
  const double b = static_cast<double>(bytes);
  if (m.metric == Metric::kLatency) {
    const double one_way = m.family == "sm" ? 2.5e-6 : 3e-6;
    const double per_iter = m.family == "sm" ? 2.0 * one_way * in.latency_iters : one_way;
    const int iters = m.family == "sm" ? 1 : in.latency_iters;
    return (in.warmup_iters + in.samples * iters) * per_iter + in.samples * 1e-3;
  }
  double gbps = 350;
  double overhead = 10e-6;
  if (m.family == "staged") {
    gbps = 30;
    overhead = 30e-6;
  } else if (m.uses_nccl) {
    gbps =
        m.collective == Collective::kAllReduce ? 300.0 / busbw_factor(m.collective, nranks) : 330;
    overhead = 15e-6;
  }
  op_s = overhead + b / (gbps * 1e9);
  const double ops_per_sample = in.iters * std::max(1, in.graph_replays);
  const double per_sample_overhead = 0.5e-3 + 3 * b / 2e12;  // fill, poison, check
  return (in.warmup_iters * op_s) + in.samples * (ops_per_sample * op_s + per_sample_overhead) +
         2e-3;
}

PlanInput make_plan_input(const RunOptions& o, int world_size,
                          std::vector<std::string> host_of_rank,
                          const std::vector<MethodInfo>& catalog) {
  PlanInput in;
  in.world_size = world_size;
  in.host_of_rank = std::move(host_of_rank);
  for (const auto& n : o.methods) {
    if (const auto* m = find_method(catalog, n)) in.methods.push_back(*m);
  }
  in.schedule = o.schedule;
  in.pairs = o.pairs;
  in.sizes = make_sweep(o.sweep);
  in.latency_bytes = o.latency_bytes;
  in.warmup_iters = o.warmup_iters;
  in.iters = o.iters;
  in.samples = o.samples;
  in.graph_replays = o.cudagraph_replays;
  in.latency_iters = o.latency_iters;
  return in;
}

Plan make_plan(const PlanInput& in) {
  Plan plan;
  const int n = in.world_size;
  auto host = [&](int r) {
    return r < static_cast<int>(in.host_of_rank.size()) ? in.host_of_rank[r] : "";
  };
  auto accept = [&](int a, int b) {
    switch (in.pairs.kind) {
      case PairFilter::Kind::kAll:
        return true;
      case PairFilter::Kind::kIntraHost:
        return host(a) == host(b);
      case PairFilter::Kind::kInterHost:
        return host(a) != host(b);
      case PairFilter::Kind::kExplicit:
        return std::find(in.pairs.pairs.begin(), in.pairs.pairs.end(), std::make_pair(a, b)) !=
               in.pairs.pairs.end();
    }
    return false;
  };
  if (in.pairs.kind == PairFilter::Kind::kExplicit) {
    for (const auto& [a, b] : in.pairs.pairs) {
      if (a >= n || b >= n) {
        throw UsageError("--pairs: pair " + std::to_string(a) + "-" + std::to_string(b) +
                         " names a rank that does not exist; this job has ranks 0 to " +
                         std::to_string(n - 1));
      }
    }
  }

  // The ordered pairs of each round, per direction pass.
  std::vector<std::vector<std::pair<int, int>>> uni_rounds;
  std::vector<std::vector<std::pair<int, int>>> bidir_rounds;
  if (in.schedule == Schedule::kSerial) {
    for (int a = 0; a < n; ++a) {
      for (int b = 0; b < n; ++b) {
        if (a != b) uni_rounds.push_back({{a, b}});
        if (a < b) bidir_rounds.push_back({{a, b}});
      }
    }
  } else {
    const auto rounds = tournament_rounds(n);
    for (const auto& r : rounds) uni_rounds.push_back(r);
    for (const auto& r : rounds) {
      std::vector<std::pair<int, int>> rev;
      for (const auto& [a, b] : r) rev.emplace_back(b, a);
      uni_rounds.push_back(rev);
    }
    for (const auto& r : rounds) {
      std::vector<std::pair<int, int>> norm;
      for (const auto& [a, b] : r) norm.emplace_back(std::min(a, b), std::max(a, b));
      bidir_rounds.push_back(norm);
    }
  }

  bool any_pair = false;
  for (const auto& m : in.methods) {
    const std::vector<std::uint64_t> sizes =
        m.fixed_size ? std::vector<std::uint64_t>{m.fixed_bytes ? m.fixed_bytes : in.latency_bytes}
                     : in.sizes;
    if (m.scope == MethodScope::kAllRanks) {
      PlanStep s;
      s.method = m.name;
      s.all_ranks = true;
      s.sizes = sizes;
      for (auto sz : sizes) s.estimate_s += estimate_case_seconds(m, sz, in, n);
      plan.cases += static_cast<int>(sizes.size());
      plan.steps.push_back(s);
      continue;
    }
    const auto& rounds = m.bidirectional ? bidir_rounds : uni_rounds;
    int round_index = 0;
    for (const auto& r : rounds) {
      PlanStep s;
      s.method = m.name;
      s.sizes = sizes;
      for (const auto& [a, b] : r) {
        const bool ok = m.bidirectional ? (accept(a, b) || accept(b, a)) : accept(a, b);
        if (!ok) continue;
        PlannedPair p{a, b, true, ""};
        if (m.same_host_only && host(a) != host(b)) {
          p.applicable = false;
          p.reason =
              "the two ranks are on different hosts; " + m.name + " needs both GPUs in one host";
        }
        s.pairs.push_back(p);
      }
      if (s.pairs.empty()) continue;
      any_pair = true;
      s.round = round_index++;
      if (s.running_pairs() > 0) {
        for (auto sz : sizes) s.estimate_s += estimate_case_seconds(m, sz, in, 2);
      }
      plan.cases += static_cast<int>(sizes.size() * s.pairs.size());
      plan.steps.push_back(s);
    }
  }
  const bool has_pair_methods =
      std::any_of(in.methods.begin(), in.methods.end(),
                  [](const MethodInfo& m) { return m.scope == MethodScope::kPair; });
  if (has_pair_methods && !any_pair && n >= 2) {
    throw UsageError("--pairs: '" + in.pairs.text + "' selects no pair of ranks in this job");
  }
  const bool nccl = std::any_of(in.methods.begin(), in.methods.end(),
                                [](const MethodInfo& m) { return m.uses_nccl; });
  plan.estimate_s = 1.0 + (nccl ? 3.0 : 0.0);  // start-up, NCCL communicator
  for (const auto& s : plan.steps) plan.estimate_s += s.estimate_s;
  return plan;
}

std::string format_plan(const Plan& plan, const PlanInput& in, bool verbose) {
  std::ostringstream out;
  out << "# Plan: " << in.world_size << " ranks, schedule " << to_string(in.schedule) << ", pairs "
      << in.pairs.text << ", " << plan.cases << " cases\n";
  out << "# " << std::left << std::setw(20) << "method" << std::setw(7) << "round" << std::setw(40)
      << "pairs (running at once)" << std::setw(22) << "sizes"
      << "estimate\n";
  for (const auto& s : plan.steps) {
    std::string pairs;
    if (s.all_ranks) {
      pairs = "all " + std::to_string(in.world_size) + " ranks";
    } else {
      for (const auto& p : s.pairs) {
        if (!pairs.empty()) pairs += " ";
        pairs += std::to_string(p.src) + "->" + std::to_string(p.dst);
        if (!p.applicable) pairs += "(n/a)";
      }
    }
    std::string sizes = s.sizes.size() == 1 ? format_size_compact(s.sizes.front())
                                            : format_size_compact(s.sizes.front()) + ".." +
                                                  format_size_compact(s.sizes.back()) + " (" +
                                                  std::to_string(s.sizes.size()) + ")";
    if (!verbose && pairs.size() > 38) pairs = pairs.substr(0, 35) + "...";
    std::ostringstream est;
    est << std::fixed << std::setprecision(2) << s.estimate_s << " s";
    out << "  " << std::left << std::setw(20) << s.method << std::setw(7) << s.round
        << std::setw(40) << pairs << std::setw(22) << sizes << est.str() << "\n";
    if (verbose) {
      for (const auto& p : s.pairs) {
        if (!p.applicable) out << "      " << p.src << "->" << p.dst << ": " << p.reason << "\n";
      }
    }
  }
  out << std::fixed << std::setprecision(1) << "# Estimated time: " << plan.estimate_s
      << " s (planning model: NVLink-class rates, not a measurement)\n";
  return out.str();
}

}  // namespace peerbench
