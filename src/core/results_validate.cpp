#include "core/results_validate.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "core/errors.h"

namespace peerbench {
namespace {

class RunChecks {
 public:
  RunChecks(const nlohmann::json& j, const RunDocument& d, const std::string& file)
      : j_(j), d_(d), file_(file) {}

  void all() {
    ranks();
    if (d_.methods.empty()) fail("methods", "empty; a run has at least one method");
    in_progress();
    for (std::size_t i = 0; i < d_.pairs.size(); ++i) {
      pair_of_ranks("pairs[" + std::to_string(i) + "]", d_.pairs[i].src, d_.pairs[i].dst, false);
    }
    for (std::size_t i = 0; i < d_.results.size(); ++i) result(i);
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
             const MethodInfo* m = find_method(d_.methods, mv.method);
             return m && m->scope == MethodScope::kPerGpu;
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

  void measured(const std::string& at, double v, double max, const char* unit) const {
    if (!(v > 0) || v > max) {
      std::ostringstream m;
      m << v << " " << unit << " is not a measurement; use a value above 0 and at most " << max;
      fail(at, m.str());
    }
  }

  void stats(const std::string& at, const std::optional<Stats>& s, double max,
             const char* unit) const {
    if (!s) return;
    measured(at + ".min", s->min, max, unit);
    measured(at + ".max", s->max, max, unit);
    measured(at + ".mean", s->mean, max, unit);
  }

  void bytes(const std::string& at, std::size_t i) const {
    const auto& b = j_.at("results").at(i).at("bytes");
    const double v = b.get<double>();
    if (!(v >= 1) || std::floor(v) != v) {
      std::ostringstream m;
      m << b.dump() << " is not a size; use a whole number of bytes of at least 1";
      fail(at + ".bytes", m.str());
    }
  }

  void result(std::size_t i) const {
    const Result& r = d_.results[i];
    const std::string at = "results[" + std::to_string(i) + "]";
    const MethodInfo* m = find_method(d_.methods, r.method);
    if (m && m->scope == MethodScope::kPerGpu) {
      one_gpu(at, r.src, r.dst);
    } else {
      pair_of_ranks(at, r.src, r.dst, true);
    }
    bytes(at, i);
    stats(at + ".time_us", r.time_us, kMaxTimeUs, "us");
    stats(at + ".algbw_gbps", r.algbw_gbps, kMaxGbps, "GB/s");
    stats(at + ".busbw_gbps", r.busbw_gbps, kMaxGbps, "GB/s");
    for (std::size_t k = 0; k < r.directions.size(); ++k) {
      const auto& dr = r.directions[k];
      const std::string da = at + ".directions[" + std::to_string(k) + "]";
      pair_of_ranks(da, dr.src, dr.dst, false);
      stats(da + ".time_us", dr.time_us, kMaxTimeUs, "us");
      stats(da + ".algbw_gbps", dr.algbw_gbps, kMaxGbps, "GB/s");
    }
    for (std::size_t k = 0; k < r.sample_time_us.size(); ++k) {
      measured(at + ".sample_time_us[" + std::to_string(k) + "]", r.sample_time_us[k], kMaxTimeUs,
               "us");
    }
  }

  const nlohmann::json& j_;
  const RunDocument& d_;
  const std::string& file_;
  std::set<int> ranks_;
};

}  // namespace

void validate_run_document(const nlohmann::json& j, const RunDocument& d, const std::string& file) {
  RunChecks(j, d, file).all();
}

}  // namespace peerbench
