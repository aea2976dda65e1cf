// Known-good figures along a run's sizes, so a chart can draw the curve a healthy card follows
// beside the measured one (an audit: the charts had nothing to read a figure against).
#include "core/judge/verdict.h"
#include "core/judge/verdict_context.h"

namespace peerbench {

using namespace verdict_detail;

namespace {

Link verdict_link(const Ctx& c, const PairVerdict& v) {
  if (v.src < 0) return all_ranks_link(c);
  if (v.src == v.dst) return host_link_of(c, v.src);
  return link_of(c, v.src, v.dst);
}

// "H200 SXM, NV18, 2 ranks"
std::string curve_label(const KnownGoodFigure& f) {
  std::string s = f.model + ", " + f.link;
  if (f.ranks) s += ", " + std::to_string(*f.ranks) + " ranks";
  return s;
}

void marks_of(const Ctx& c, const PairVerdict& v, const MethodInfo& m,
              std::vector<KnownGoodMark>& out) {
  const Link link = verdict_link(c, v);
  const bool latency = m.metric == Metric::kLatency;
  for (const Result* r : c.idx.of(m.name, v.src, v.dst)) {
    if (r->attempt != 0 || !has_figure(*r)) continue;
    const KnownGoodLookup k = known_good_for(c, v, m, *r, link);
    if (!k.found() || k.figure->basis == KnownGoodBasis::kLargestSize) continue;
    if ((k.figure->unit == "us") != latency) continue;  // a time on a bandwidth chart
    out.push_back({m.name, v.src, v.dst, r->bytes, k.figure->value, k.figure->unit,
                   curve_label(*k.figure), k.figure->source_id});
  }
}

}  // namespace

std::vector<KnownGoodMark> known_good_marks(const RunDocument& d, const Expectations& e,
                                            const std::vector<PairVerdict>& vs) {
  Ctx c(d, e);
  index_document(c);
  std::vector<KnownGoodMark> out;
  for (const auto& v : vs) {
    for (const auto& mv : v.methods) {
      const MethodInfo* m = c.method(mv.method);
      if (m && mv.expected) marks_of(c, v, *m, out);
    }
  }
  return out;
}

}  // namespace peerbench
