#include "core/model/burn_in_validate.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <tuple>

#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/model/json_in.h"
#include "core/model/results_validate.h"
#include "core/model/sizes.h"

namespace peerbench {
namespace {

using CaseKey = std::tuple<std::string, int, int, std::uint64_t, std::string, std::string>;

class BurnInChecks {
 public:
  BurnInChecks(const RunDocument& d, const std::string& file)
      : d_(d), b_(*d.burn_in), file_(file) {}

  void all() const {
    requested();
    stop();
    cycles();
    std::set<CaseKey> measured;
    for (const auto& r : d_.results)
      measured.insert({r.method, r.src, r.dst, r.bytes, r.datatype, r.op});
    for (std::size_t i = 0; i < b_.series.size(); ++i) series(i, measured);
    cases_have_series();
    cycles_named_by_series();
  }

 private:
  [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
    throw InputError(file_, "burn_in." + field, problem);
  }

  // The bounds are the run's own options (config.run_cycles, config.duration_s).
  void requested() const {
    const auto& c = d_.config;
    if (!c.is_object()) return;
    if (c.contains("run_cycles") && c["run_cycles"].is_number() &&
        c["run_cycles"].get<double>() != b_.cycles_requested)
      fail("cycles_requested", std::to_string(b_.cycles_requested) +
                                   ", but the run's config.run_cycles is " +
                                   c["run_cycles"].dump());
    if (c.contains("duration_s") && c["duration_s"].is_number() &&
        c["duration_s"].get<double>() != b_.duration_s)
      fail("duration_s", format_fixed(b_.duration_s, 1) + ", but the run's config.duration_s is " +
                             c["duration_s"].dump());
  }

  // How it ended must fit the run: a bound it names was set and reached, an error failed the
  // run, and only a file written while running ("incomplete") has no ending yet.
  void stop() const {
    const std::string& s = b_.stopped_by;
    if (s.empty()) {
      if (d_.status != "incomplete")
        fail("stopped_by", "missing in a " + d_.status + " run; only a run still going has none");
    } else if (s == "cycles") {
      if (b_.cycles_requested == 0)
        fail("stopped_by", "'cycles', but no cycle count was requested (cycles_requested 0)");
      if (b_.cycles_done != b_.cycles_requested)
        fail("stopped_by", "'cycles', but " + std::to_string(b_.cycles_done) + " of " +
                               std::to_string(b_.cycles_requested) +
                               " cycles requested (cycles_requested) were done");
    } else if (s == "duration") {
      if (b_.duration_s <= 0) fail("stopped_by", "'duration', but duration_s is 0 (none given)");
      duration_reached();
    } else if (s == "error") {
      if (d_.status != "failed")
        fail("stopped_by", "'error' in a " + d_.status + " run; an error fails the run");
    } else if (s != "SIGINT" && s != "SIGTERM") {
      fail("stopped_by", quoted_value(s) + " is not cycles, duration, SIGINT, SIGTERM or error");
    }
    // A bound is looked at between cycles: no cycle was cut short by it.
    if ((s == "cycles" || s == "duration") &&
        b_.cycles.size() != static_cast<std::size_t>(b_.cycles_done))
      fail("cycles", std::to_string(b_.cycles.size()) + " cycle records for " +
                         std::to_string(b_.cycles_done) +
                         " whole cycles, but a burn-in stopped by " + s + " ends between cycles");
    if (b_.cycles_requested > 0 && b_.cycles_done > b_.cycles_requested)
      fail("cycles_done", std::to_string(b_.cycles_done) + " whole cycles, past the " +
                              std::to_string(b_.cycles_requested) + " requested");
  }

  // The job stops for the duration only once a cycle ends past it (a file that said "duration"
  // with its cycles over 4.7 s into 7200 passed; an audit). Between a cycle's end and the job's
  // look at the clock it writes the file (fsync, NCCL's log after cycle 1): a minute of slack.
  void duration_reached() const {
    if (b_.cycles.empty()) fail("cycles", "none, but the burn-in says its duration ran out");
    const BurnInCycle& last = b_.cycles.back();
    const double end = last.started_s + last.elapsed_s;
    if (end + kDurationSlackS < b_.duration_s)
      fail("stopped_by", "'duration', but its last cycle ended " + format_fixed(end, 1) +
                             " s into the run, short of the " + format_fixed(b_.duration_s, 1) +
                             " s asked for (duration_s)");
  }
  static constexpr double kDurationSlackS = 60;

  // One record per cycle, numbered from 1 in the order they ran: the whole ones and at most the
  // one cut short.
  void cycles() const {
    const auto n = static_cast<int>(b_.cycles.size());
    if (n != b_.cycles_done && n != b_.cycles_done + 1)
      fail("cycles", std::to_string(n) + " cycle records for " + std::to_string(b_.cycles_done) +
                         " whole cycles (cycles_done; one more when the last was cut short)");
    for (int i = 0; i < n; ++i) {
      const BurnInCycle& c = b_.cycles[i];
      const std::string at = "cycles[" + std::to_string(i) + "]";
      if (c.cycle != i + 1)
        fail(at + ".cycle", std::to_string(c.cycle) + "; cycle records are numbered 1, 2, ... (" +
                                std::to_string(i + 1) + " here)");
      if (i > 0 && c.started_s < b_.cycles[i - 1].started_s)
        fail(at + ".started_s", "starts before the cycle before it");
    }
  }

  // A series follows a case the run measured (its first cycle is in results), in its unit's
  // bounds (busbw over one rank is 0).
  void series(std::size_t i, const std::set<CaseKey>& measured) const {
    const BurnInSeries& s = b_.series[i];
    const std::string at = "series[" + std::to_string(i) + "]";
    if (!measured.count({s.method, s.src, s.dst, s.bytes, s.datatype, s.op})) {
      const auto rank = [](int r) { return r < 0 ? std::string("(none)") : std::to_string(r); };
      const std::string pair =
          s.src < 0 && s.dst < 0 ? "all ranks" : rank(s.src) + "->" + rank(s.dst);
      fail(at, "no result in results is " + quoted_value(s.method) + " " + pair + " at " +
                   format_size(s.bytes) +
                   (s.datatype.empty() ? "" : " " + quoted_value(s.datatype)) +
                   (s.op.empty() ? "" : " " + quoted_value(s.op)) +
                   "; a series follows a case the run measured");
    }
    if (s.values.empty())
      fail(at + ".values", "empty; a series has a value (or null) for each cycle it ran in");
    cycles_agree(s, at);
    const bool time = s.unit == "us";
    const double lo = time ? kMinTimeUs : d_.system.ranks.size() == 1 ? 0 : kMinGbps;
    const double hi = time ? kMaxTimeUs : kMaxGbps;
    for (std::size_t k = 0; k < s.values.size(); ++k) {
      const auto& v = s.values[k];
      if (v && (!(*v >= lo) || *v > hi)) {
        std::ostringstream m;
        m << *v << " " << s.unit << " is not a measurement; use a value from " << lo << " to " << hi
          << " (or null)";
        fail(at + ".values[" + std::to_string(k) + "]", m.str());
      }
    }
  }

  // A series' cycle lists agree with the cycle records, as the writer keeps them: a cycle named
  // for wrong elements or a failure counted them (a list alone accused a link under a header of
  // "0 wrong elements"; an audit). Only a file written while running names the cycle in flight
  // before its record.
  void cycles_agree(const BurnInSeries& s, const std::string& at) const {
    const auto records = b_.cycles.size();
    const auto listed = [&](const std::vector<int>& list, const char* name, auto counted) {
      for (int k : list) {
        const std::string where = at + "." + name;
        if (static_cast<std::size_t>(k) > records) {
          if (d_.status != "incomplete")
            fail(where, "cycle " + std::to_string(k) + " has no cycle record (" +
                            std::to_string(records) + " in cycles)");
        } else if (!counted(b_.cycles[k - 1])) {
          fail(where, "cycle " + std::to_string(k) + ", but cycles[" + std::to_string(k - 1) +
                          "] counted none");
        }
      }
    };
    listed(s.error_cycles, "error_cycles", [](const BurnInCycle& c) { return c.wrong > 0; });
    listed(s.failed_cycles, "failed_cycles", [](const BurnInCycle& c) { return c.failed > 0; });
  }

  // Every case of the first cycle was recorded into a series (the recorder makes one for each):
  // a burn-in with its series cut out passed as if it had found nothing (an audit).
  void cases_have_series() const {
    if (b_.cycles.empty()) return;
    std::set<CaseKey> kept;
    for (const auto& s : b_.series)
      kept.insert({s.method, s.src, s.dst, s.bytes, s.datatype, s.op});
    for (std::size_t i = 0; i < d_.results.size(); ++i) {
      const Result& r = d_.results[i];
      if (r.status == ResultStatus::kNotRun) continue;
      if (!kept.count({r.method, r.src, r.dst, r.bytes, r.datatype, r.op}))
        fail("series", "no series of results[" + std::to_string(i) + "] (" + r.method + " at " +
                           format_size(r.bytes) + "); every case the burn-in ran has one");
    }
  }

  // A cycle that counted wrong elements or failed cases names the case that had them.
  void cycles_named_by_series() const {
    std::set<int> errors, failures;
    for (const auto& s : b_.series) {
      errors.insert(s.error_cycles.begin(), s.error_cycles.end());
      failures.insert(s.failed_cycles.begin(), s.failed_cycles.end());
    }
    for (std::size_t i = 0; i < b_.cycles.size(); ++i) {
      const BurnInCycle& c = b_.cycles[i];
      const std::string at = "cycles[" + std::to_string(i) + "]";
      if (c.wrong > 0 && !errors.count(c.cycle))
        fail(at + ".wrong", std::to_string(c.wrong) +
                                " wrong elements, but no series names cycle " +
                                std::to_string(c.cycle) + " in its error_cycles");
      if (c.failed > 0 && !failures.count(c.cycle))
        fail(at + ".failed", std::to_string(c.failed) +
                                 " failed cases, but no series names cycle " +
                                 std::to_string(c.cycle) + " in its failed_cycles");
    }
  }

  const RunDocument& d_;
  const BurnIn& b_;
  const std::string& file_;
};

}  // namespace

void validate_burn_in(const RunDocument& d, const std::string& file) {
  if (d.burn_in) {
    BurnInChecks(d, file).all();
    return;
  }
  // A finished run whose options asked for a burn-in wrote its section (a file without it passed
  // as one pass; an audit). One that failed or stopped early may never have reached it.
  const auto& c = d.config;
  if (d.status != "complete" || !c.is_object()) return;
  const bool cycles = c.contains("run_cycles") && c["run_cycles"].is_number_integer() &&
                      c["run_cycles"].get<long long>() != 1;
  const bool duration =
      c.contains("duration_s") && c["duration_s"].is_number() && c["duration_s"].get<double>() > 0;
  if (cycles || duration)
    throw InputError(file, "burn_in",
                     "missing, but the run's config asks for a burn-in (run_cycles " +
                         c.value("run_cycles", nlohmann::json()).dump() + ", duration_s " +
                         c.value("duration_s", nlohmann::json()).dump() + ")");
}

}  // namespace peerbench
