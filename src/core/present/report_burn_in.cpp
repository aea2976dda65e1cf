// A burn-in in a report (core/present/report_parts.h): its cycles in one line, the counters
// that grew, and per case the spread of its figure across the cycles.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/base/text.h"
#include "core/judge/burn_in.h"
#include "core/model/sizes.h"
#include "core/present/report.h"
#include "core/present/report_parts.h"

namespace peerbench {
namespace report_parts {

namespace {

std::string burn_in_headline(const BurnIn& b) {
  std::uint64_t wrong = 0;
  int failed = 0;
  double elapsed = 0;
  for (const auto& c : b.cycles) {
    wrong += c.wrong;
    failed += c.failed;
    elapsed = std::max(elapsed, c.started_s + c.elapsed_s);
  }
  const std::string asked = b.cycles_requested > 0 ? "of " + std::to_string(b.cycles_requested)
                            : b.duration_s > 0     ? "for " + format_fixed(b.duration_s, 0) + " s"
                                                   : "until stopped";
  return std::to_string(b.cycles_done) + " whole cycle" + (b.cycles_done == 1 ? "" : "s") + " (" +
         asked + ") in " + format_fixed(elapsed, 0) + " s, stopped by " +
         (b.stopped_by.empty() ? std::string("nothing recorded (killed, or still running)")
                               : b.stopped_by) +
         "; " + std::to_string(wrong) + " wrong elements, " + std::to_string(failed) +
         (failed == 1 ? " failed case" : " failed cases");
}

BurnInRow burn_in_row(const RunDocument& d, const BurnInSeries& s, const BurnInFindings& f) {
  const MethodInfo* m = find_method(d.methods, s.method);
  BurnInRow r;
  r.method = s.method + (s.datatype.empty() ? "" : " (" + s.datatype + "/" + s.op + ")");
  r.pair = pair_name(s.src, s.dst);
  r.size = format_size_compact(s.bytes);
  r.unit = s.unit == "us" || !m ? s.unit : unit(m);
  r.cycles = f.cycles;
  const int decimals = s.unit == "us" ? 2 : 1;
  if (f.cycles > 0) {
    r.median = format_fixed(f.median, decimals);
    r.range = format_fixed(f.min, decimals) + "-" + format_fixed(f.max, decimals);
    r.cv = format_fixed(100 * f.cv, 2) + "%";
  }
  if (f.drift) {
    // Under half of the last digit shown is no drift either way: "+0.00%", never "-0.00%".
    const double pct = std::abs(100 * *f.drift) < 0.005 ? 0.0 : 100 * *f.drift;
    r.drift = (pct >= 0 ? "+" : "") + format_fixed(pct, 2) + "%";
  }
  r.errors = cycle_list(s.error_cycles);
  r.failed = cycle_list(s.failed_cycles);
  r.contended = cycle_list(s.contended_cycles);
  return r;
}

}  // namespace

// One line per counter and GPU: 600 cycles of flit-CRC increments were 2400 lines before the
// burn-in's table (an audit). "link 3 replay +2 on GPU 0 ..." keys on all but the count.
std::vector<std::string> counter_lines(const BurnIn& b) {
  struct Growth {
    std::uint64_t total = 0;
    int cycles = 0;
    const BurnInCycle *first = nullptr, *last = nullptr;
    std::string line;
  };
  std::vector<std::string> order;
  std::map<std::string, Growth> by;
  for (const auto& c : b.cycles) {
    // Two ranks on one GPU (--allow-gpu-sharing) read its counters twice: one line a cycle.
    std::set<std::string> seen;
    for (const auto& line : c.counters) {
      if (!seen.insert(line).second) continue;
      const auto plus = line.find(" +");
      const auto end = plus == std::string::npos ? plus : line.find(' ', plus + 2);
      std::uint64_t n = 0;
      std::string key = line;
      if (end != std::string::npos) {
        const std::string count = line.substr(plus + 2, end - plus - 2);
        if (!count.empty() && count.size() <= 18 &&
            count.find_first_not_of("0123456789") == std::string::npos) {
          n = std::stoull(count);
          key = line.substr(0, plus) + line.substr(end);
        }
      }
      auto [it, added] = by.try_emplace(key);
      if (added) order.push_back(key);
      Growth& g = it->second;
      g.total += n;
      ++g.cycles;
      if (!g.first) g.first = &c;
      g.last = &c;
      g.line = line;
    }
  }
  auto when = [](const BurnInCycle& c) {
    return "cycle " + std::to_string(c.cycle) + " at " + format_fixed(c.started_s, 0) + " s";
  };
  std::vector<std::string> out;
  for (const auto& key : order) {
    const Growth& g = by[key];
    if (g.cycles == 1) {
      out.push_back(when(*g.first) + ": " + g.line);
      continue;
    }
    const auto plus = g.line.find(" +");
    const std::string what =
        plus == std::string::npos || g.total == 0
            ? key
            : key.substr(0, plus) + " +" + std::to_string(g.total) + key.substr(plus);
    out.push_back("in " + std::to_string(g.cycles) + " cycles, " + when(*g.first) + " to " +
                  when(*g.last) + ": " + what);
  }
  return out;
}

std::optional<BurnInSummary> burn_in_summary(const RunDocument& d) {
  if (!d.burn_in) return std::nullopt;
  const BurnIn& b = *d.burn_in;
  BurnInSummary out;
  out.headline = burn_in_headline(b);
  out.counters = counter_lines(b);
  for (const auto& s : b.series) out.rows.push_back(burn_in_row(d, s, burn_in_findings(s)));
  return out;
}

}  // namespace report_parts
}  // namespace peerbench
