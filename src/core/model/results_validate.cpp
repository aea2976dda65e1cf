#include "core/model/results_validate.h"

#include "core/model/json_in.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "core/base/errors.h"
#include "core/model/bandwidth.h"
#include "core/model/burn_in_validate.h"

namespace peerbench {
namespace {

class RunChecks {
 public:
  RunChecks(const RunDocument& d, const std::string& file) : d_(d), file_(file) {}

  void all() {
    ranks();
    hosts();
    methods();
    in_progress();
    for (std::size_t i = 0; i < d_.pairs.size(); ++i) {
      pair_of_ranks("pairs[" + std::to_string(i) + "]", d_.pairs[i].src, d_.pairs[i].dst, false);
    }
    for (std::size_t i = 0; i < d_.results.size(); ++i) result(i);
    cases_once();
    for (std::size_t i = 0; i < d_.verdicts.size(); ++i) {
      const std::string at = "verdicts[" + std::to_string(i) + "]";
      const PairVerdict& v = d_.verdicts[i];
      if (judges_one_gpu(v)) {
        one_gpu(at, v.src, v.dst);
      } else {
        pair_of_ranks(at, v.src, v.dst, true);
      }
    }
  }

 private:
  [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
    throw InputError(file_, field, problem);
  }

  void ranks() {
    if (d_.system.ranks.empty()) fail("system.ranks", "empty; a run has at least one rank");
    for (std::size_t i = 0; i < d_.system.ranks.size(); ++i) {
      const int r = d_.system.ranks[i].rank;
      if (!ranks_.insert(r).second) {
        fail("system.ranks[" + std::to_string(i) + "].rank",
             "rank " + std::to_string(r) + " appears twice");
      }
    }
  }

  void methods() {
    if (d_.methods.empty()) fail("methods", "empty; a run has at least one method");
    for (std::size_t i = 0; i < d_.methods.size(); ++i) {
      if (!methods_.emplace(d_.methods[i].name, &d_.methods[i]).second) {
        fail("methods[" + std::to_string(i) + "].name",
             "'" + d_.methods[i].name + "' is listed twice");
      }
    }
  }

  // system.hosts: each host of a rank, once (a list that disagrees would make fleet count nodes
  // that ran nothing, or miss nodes that did). Files without the list are read as they are.
  void hosts() const {
    if (d_.system.hosts.empty()) return;
    std::set<std::string> of_ranks;
    for (const auto& r : d_.system.ranks) of_ranks.insert(r.host);
    std::set<std::string> listed;
    for (std::size_t i = 0; i < d_.system.hosts.size(); ++i) {
      const std::string& h = d_.system.hosts[i];
      const std::string at = "system.hosts[" + std::to_string(i) + "]";
      if (!listed.insert(h).second) fail(at, "'" + h + "' is listed twice");
      if (!of_ranks.count(h)) fail(at, "'" + h + "' is the host of no rank in system.ranks");
    }
    for (std::size_t i = 0; i < d_.system.ranks.size(); ++i) {
      if (!listed.count(d_.system.ranks[i].host)) {
        fail("system.ranks[" + std::to_string(i) + "].host",
             quoted_value(d_.system.ranks[i].host) + " is not in system.hosts");
      }
    }
    // A topology of a host no rank ran on is matched to nothing: every link read "?" and the
    // report blamed per-task binding (an audit renamed the hosts of a run and not its topology).
    if (!d_.topology) return;
    for (std::size_t i = 0; i < d_.topology->hosts.size(); ++i) {
      const std::string& h = d_.topology->hosts[i].host;
      if (!listed.count(h)) {
        fail("topology.hosts[" + std::to_string(i) + "].host",
             quoted_value(h) + " is not in system.hosts (" + join(d_.system.hosts) +
                 "); a run's topology is of its own hosts");
      }
    }
  }

  void in_progress() const {
    const auto& p = d_.in_progress;
    if (p.is_null()) return;
    if (!p.is_object()) {
      fail("in_progress", std::string("expected null or an object, got ") + p.type_name());
    }
    auto expect = [&](const char* key, bool ok, const char* what) {
      if (p.contains(key) && !p[key].is_null() && !ok) {
        fail(std::string("in_progress.") + key, std::string("expected ") + what);
      }
    };
    expect("method", p.contains("method") && p["method"].is_string(), "a method name");
    expect(
        "round",
        p.contains("round") && p["round"].is_number_integer() && p["round"].get<long long>() >= 0,
        "a round number");
    expect("pairs", p.contains("pairs") && p["pairs"].is_array(), "an array of pairs");
    expect("sizes", p.contains("sizes") && p["sizes"].is_array(), "an array of sizes");
    expect("all_ranks", p.contains("all_ranks") && p["all_ranks"].is_boolean(), "true or false");
  }

  // A GPU's own verdict (src = dst): it judges host<->GPU methods, and only those.
  bool judges_one_gpu(const PairVerdict& v) const {
    return !v.methods.empty() &&
           std::all_of(v.methods.begin(), v.methods.end(), [&](const MethodVerdict& mv) {
             const auto it = methods_.find(mv.method);
             return it != methods_.end() && it->second->scope == MethodScope::kPerGpu;
           });
  }

  // src/dst of a host<->GPU result or verdict: both the one rank whose GPU was measured.
  void one_gpu(const std::string& at, int src, int dst) const {
    if (src < 0) fail(at + ".src", "missing; a host<->GPU method (scope per-gpu) names one rank");
    if (!ranks_.count(src)) {
      fail(at + ".src", "rank " + std::to_string(src) + " is not in system.ranks");
    }
    if (dst != src) {
      fail(at + ".dst", (dst < 0 ? std::string("missing") : "rank " + std::to_string(dst)) +
                            "; a host<->GPU method (scope per-gpu) names one rank: dst = src (" +
                            std::to_string(src) + ")");
    }
  }

  // src/dst of a pair: both ranks of the run and different, or (when `all_ranks_ok`) both -1.
  void pair_of_ranks(const std::string& at, int src, int dst, bool all_ranks_ok) const {
    if (all_ranks_ok && src < 0 && dst < 0) return;
    for (const auto& [key, r] : {std::make_pair("src", src), std::make_pair("dst", dst)}) {
      if (r < 0) fail(at + "." + key, "missing; a pair names two ranks");
      if (!ranks_.count(r)) {
        fail(at + "." + key, "rank " + std::to_string(r) + " is not in system.ranks");
      }
    }
    if (src == dst) {
      fail(at + ".dst", "same rank as src (" + std::to_string(src) +
                            "); only host<->GPU methods (scope per-gpu) name one rank");
    }
  }

  void measured(const std::string& at, double v, double min, double max, const char* unit) const {
    if (!(v >= min) || v > max) {
      std::ostringstream m;
      m << v << " " << unit << " is not a measurement; use a value from " << min << " to " << max;
      fail(at, m.str());
    }
  }

  void stats(const std::string& at, const std::optional<Stats>& s, double min, double max,
             const char* unit) const {
    if (!s) return;
    measured(at + ".min", s->min, min, max, unit);
    measured(at + ".max", s->max, min, max, unit);
    measured(at + ".mean", s->mean, min, max, unit);
  }

  // `gbps` must be `moved` bytes in `time_us`: its max from the fastest sample, its min from the
  // slowest, its median from the median sample when the count is odd (even counts average two).
  void bandwidth_of_time(const std::string& at, const Stats& gbps, const Stats& time_us,
                         double moved) const {
    const auto check = [&](const char* key, double value, double us) {
      const double expected = algbw_gbps(moved, us * 1e-6);
      if (std::fabs(value - expected) <= kBandwidthRounding * expected) return;
      std::ostringstream m;
      m << value << " GB/s is impossible for " << moved << " bytes in " << us << " us (that is "
        << expected << " GB/s)";
      fail(at + "." + key, m.str());
    };
    check("max", gbps.max, time_us.min);
    check("min", gbps.min, time_us.max);
    if (gbps.count == time_us.count && gbps.count % 2 == 1) {
      check("median", gbps.median, time_us.median);
    }
  }

  // busbw = algbw x the method's factor (all-reduce 2(n-1)/n over n ranks, ...), every figure.
  void busbw_of_algbw(const std::string& at, const Result& r, const MethodInfo& m) const {
    if (!r.busbw_gbps || !r.algbw_gbps) return;
    const int n = busbw_ranks(r.src < 0, static_cast<int>(d_.system.ranks.size()));
    const double factor = busbw_factor(m.collective, std::max(1, n));
    const Stats& a = *r.algbw_gbps;
    const Stats& b = *r.busbw_gbps;
    for (const auto& [key, alg, bus] :
         {std::make_tuple("min", a.min, b.min), std::make_tuple("median", a.median, b.median),
          std::make_tuple("max", a.max, b.max)}) {
      const double expected = alg * factor;
      if (std::fabs(bus - expected) <= kBandwidthRounding * expected) continue;
      std::ostringstream m2;
      m2 << bus << " GB/s is not algbw " << alg << " x " << factor << " (" << m.name << " over "
         << n << " ranks)";
      fail(at + ".busbw_gbps." + key, m2.str());
    }
  }

  const MethodInfo& method_of(const std::string& at, const Result& r) const {
    const auto it = methods_.find(r.method);
    if (it == methods_.end()) {
      fail(at + ".method", quoted_value(r.method) + " is not in the file's methods");
    }
    return *it->second;
  }

  void result(std::size_t i) const {
    const Result& r = d_.results[i];
    const std::string at = "results[" + std::to_string(i) + "]";
    const MethodInfo& m = method_of(at, r);
    if (m.scope == MethodScope::kPerGpu) {
      one_gpu(at, r.src, r.dst);
    } else {
      pair_of_ranks(at, r.src, r.dst, true);
    }
    stats(at + ".time_us", r.time_us, kMinTimeUs, kMaxTimeUs, "us");
    stats(at + ".algbw_gbps", r.algbw_gbps, kMinGbps, kMaxGbps, "GB/s");
    // busbw may be 0: one rank's all-reduce moves nothing between GPUs (factor 2(n-1)/n = 0);
    // busbw_of_algbw below holds every other busbw to algbw x the factor.
    stats(at + ".busbw_gbps", r.busbw_gbps, 0, kMaxGbps, "GB/s");
    if (r.time_us && r.algbw_gbps) {
      bandwidth_of_time(at + ".algbw_gbps", *r.algbw_gbps, *r.time_us,
                        moved_bytes(r.bytes, r.directions.size()));
    }
    busbw_of_algbw(at, r, m);
    for (std::size_t k = 0; k < r.directions.size(); ++k) {
      const auto& dr = r.directions[k];
      const std::string da = at + ".directions[" + std::to_string(k) + "]";
      pair_of_ranks(da, dr.src, dr.dst, false);
      stats(da + ".time_us", dr.time_us, kMinTimeUs, kMaxTimeUs, "us");
      stats(da + ".algbw_gbps", dr.algbw_gbps, kMinGbps, kMaxGbps, "GB/s");
      bandwidth_of_time(da + ".algbw_gbps", dr.algbw_gbps, dr.time_us,
                        static_cast<double>(r.bytes));
    }
    for (std::size_t k = 0; k < r.sample_time_us.size(); ++k) {
      measured(at + ".sample_time_us[" + std::to_string(k) + "]", r.sample_time_us[k], kMinTimeUs,
               kMaxTimeUs, "us");
    }
  }

  // A case is recorded once: with two records, report judged one copy, compare matched the other
  // and fleet a third choice (an audit). Keyed on the planned size: two planned sizes that a
  // collective rounds down to one whole-element size are two cases (a review). Only `results`:
  // a confirmation of an every-GPU-at-once method measures each GPU again per case it repeats.
  void cases_once() const {
    using Case =
        std::tuple<std::string, int, int, std::uint64_t, std::string, std::string, int, int>;
    std::map<Case, std::size_t> seen;
    for (std::size_t i = 0; i < d_.results.size(); ++i) {
      const Result& r = d_.results[i];
      const auto [it, fresh] = seen.emplace(
          Case{r.method, r.src, r.dst, planned_bytes(r), r.datatype, r.op, r.root, r.attempt}, i);
      if (!fresh) {
        fail("results[" + std::to_string(i) + "]",
             "repeats results[" + std::to_string(it->second) +
                 "] (same method, ranks, planned size, type, op, root and attempt); a run "
                 "records each case once");
      }
    }
  }

  const RunDocument& d_;
  const std::string& file_;
  std::set<int> ranks_;
  std::unordered_map<std::string, const MethodInfo*> methods_;
};

}  // namespace

void validate_run_document(const RunDocument& d, const std::string& file) {
  RunChecks(d, file).all();
  validate_burn_in(d, file);
}

}  // namespace peerbench
