// What a burn-in's cycles say of a pair's methods: data errors with the cycles they came in,
// failures that come and go (intermittent: what a single pass would miss), and drift from the
// first cycles to the last. The spread across cycles goes into each method's evidence.
#include <algorithm>

#include "core/base/text.h"
#include "core/judge/burn_in.h"
#include "core/judge/verdict_context.h"
#include "core/model/sizes.h"

namespace peerbench::verdict_detail {

using nlohmann::json;

namespace {

void add_findings(const Ctx& c, PairVerdict& v, MethodVerdict& mv, const BurnInFindings& f,
                  bool lower_is_better) {
  const BurnInSeries& s = *f.series;
  const BurnIn& b = *c.d.burn_in;
  mv.evidence["burn_in"] = {{"cycles", b.cycles_done},
                            {"unit", s.unit},
                            {"cycles_with_figure", f.cycles},
                            {"min", f.min},
                            {"median", f.median},
                            {"max", f.max},
                            {"cv", f.cv},
                            {"drift", f.drift ? json(*f.drift) : json()},
                            {"error_cycles", s.error_cycles},
                            {"failed_cycles", s.failed_cycles},
                            {"contended_cycles", s.contended_cycles}};
  const std::string what = mv.method + " at " + format_size(s.bytes) + where_text(c, v);
  if (!s.error_cycles.empty()) {
    v.flags.push_back(make_flag(
        "burn-in-errors", mv.method,
        what + " delivered wrong elements in cycle" + (s.error_cycles.size() > 1 ? "s " : " ") +
            cycle_list(s.error_cycles) + " of " + std::to_string(b.cycles_done),
        {{"error_cycles", s.error_cycles}, {"cycles", b.cycles_done}}));
  }
  // The cycles the case ran in: the whole ones, and the one cut short where it got that far.
  const int ran = std::max(b.cycles_done, static_cast<int>(s.values.size()));
  const auto failed = static_cast<int>(s.failed_cycles.size());
  if (failed > 0 && failed < ran) {
    v.flags.push_back(make_flag("intermittent", mv.method,
                                what + " failed in cycle" + (failed > 1 ? "s " : " ") +
                                    cycle_list(s.failed_cycles) + " of " + std::to_string(ran) +
                                    " and ran in the others",
                                {{"failed_cycles", s.failed_cycles}, {"cycles", ran}}));
  }
  if (f.drift && (lower_is_better ? *f.drift : -*f.drift) > c.e.drift_tolerance) {
    v.flags.push_back(
        make_flag("drift", mv.method,
                  what + " drifted " + format_fixed(100 * *f.drift, 1) +
                      "% from the first quarter of the cycles to the last (tolerance " +
                      format_fixed(100 * c.e.drift_tolerance, 0) + "%; across cycles min " +
                      format_fixed(f.min, 2) + ", median " + format_fixed(f.median, 2) + ", max " +
                      format_fixed(f.max, 2) + " " + s.unit + ")",
                  {{"drift", *f.drift}, {"tolerance", c.e.drift_tolerance}, {"cycles", f.cycles}}));
  }
}

}  // namespace

void burn_in_flags(const Ctx& c, PairVerdict& v) {
  if (!c.d.burn_in) return;
  for (auto& mv : v.methods) {
    if (mv.bytes == 0) continue;
    const auto it = c.burn_in_series.find({mv.method, v.src, v.dst, mv.bytes});
    if (it == c.burn_in_series.end()) continue;
    add_findings(c, v, mv, burn_in_findings(*it->second), it->second->unit == "us");
  }
}

}  // namespace peerbench::verdict_detail
