// The bar a figure is held to and the flag it earns under it: below-link (bandwidth under a
// fraction of the link that scales with the size judged, or under a site's min_gbps),
// high-latency (a latency method, or a bandwidth method at a latency size, over its bar) and
// asymmetric (one direction far slower than the other).
#include <algorithm>
#include <set>

#include "core/base/text.h"
#include "core/judge/verdict_context.h"
#include "core/model/sizes.h"

namespace peerbench::verdict_detail {

using nlohmann::json;

namespace {

// A site bar for `method` on link kind `kind`: the kind's own, else the "*" one.
std::optional<double> site_bar(const std::map<std::string, std::map<std::string, double>>& bars,
                               const std::string& method, const std::string& kind) {
  const auto it = bars.find(method);
  if (it == bars.end()) return std::nullopt;
  for (const auto& k : {kind, std::string("*")}) {
    const auto b = it->second.find(k);
    if (b != it->second.end()) return b->second;
  }
  return std::nullopt;
}

// The latency bar for a method: the site's per-method bar, else the per-kind default.
void latency_bar(const Ctx& c, const MethodInfo& m, const std::string& kind, bool small_message,
                 MethodVerdict& mv) {
  if (auto b = site_bar(c.e.max_latency_us, m.name, kind)) {
    mv.bar = *b;
    mv.bar_basis = "max_latency_us from " + c.e.source;
    mv.bar_source = kBarSiteBar;
    return;
  }
  const auto& table = small_message ? c.e.small_message_us : c.e.latency_us;
  const auto it = table.find(kind);
  if (it == table.end()) return;
  mv.bar = it->second;
  mv.bar_basis = std::string(small_message ? "small_message_us" : "latency_us") + "." + kind +
                 " (" + (c.e.source) + ")";
  mv.bar_source = kBarLatencyTable;
}

// How much of a link's raw rate a healthy link reaches with a method, and how fast that is
// approached with size: bar = fraction x raw x bytes / (bytes + ramp). On 2 x H200 NV18 copies
// reach 0.77-0.83 of the raw link from 64 MiB on; NCCL's busbw climbs to 4 GiB (nccl-tests there:
// all-reduce 0.56 of raw at 64 MiB, 0.62 at 256 MiB, 0.72 at 4 GiB; reduce-scatter 0.44, 0.50,
// 0.61). The ramps keep every built-in bar 15-30 % under those figures from 256 MiB to 4 GiB,
// and far above PCIe-like figures (0.12 of NV18) or a link that lost half its lanes.
struct LinkRateRule {
  double fraction = 0;
  std::uint64_t ramp_bytes = 0;
  std::string name;  // which expect key sets the fraction
};

LinkRateRule link_rate_rule(const Ctx& c, const MethodInfo& m) {
  if (!m.uses_nccl) return {c.e.fraction_of_link, 4ull << 20, "fraction_of_link"};
  switch (m.collective) {
    case Collective::kAllReduce:
      return {c.e.allreduce_fraction_of_link, 64ull << 20, "allreduce_fraction_of_link"};
    case Collective::kAllGather:
    case Collective::kReduceScatter:
    case Collective::kAllToAll:
      return {c.e.scatter_gather_fraction_of_link, 64ull << 20, "scatter_gather_fraction_of_link"};
    default:
      return {c.e.fraction_of_link, 64ull << 20, "fraction_of_link"};
  }
}

// The link's raw rate for a method's figure: both directions together for a bidirectional one;
// 0 where the link has no rating.
double raw_rate(const Link& link, const MethodInfo& m) {
  return link.expected ? link.expected->raw_gbps * (m.bidirectional ? 2 : 1) : 0;
}

// "; that bar is above the ... raw rate ..." where a bar (a site's, a baseline's) is past what
// the link can carry at all; "" otherwise.
std::string unreachable_bar_note(const PairVerdict& v, const MethodInfo& m, const Link& link,
                                 double bar) {
  const double raw = raw_rate(link, m);
  if (raw <= 0 || bar <= raw) return "";
  return "; that bar is above the " + format_fixed(raw, 1) + " GB/s raw rate of " +
         v.link_description + ", which no figure reaches";
}

// The default bandwidth bar: a size-scaled fraction of the link (pairs in one host), or of the
// slowest local link (all ranks). Staged copies and links between hosts have none unless the
// site sets one.
void default_bandwidth_bar(const Ctx& c, const MethodInfo& m, const Link& link, std::uint64_t bytes,
                           MethodVerdict& mv) {
  if (!link.expected || m.family == "staged" || link.cls.kind == LinkKind::kCrossHost) return;
  const LinkRateRule rule = link_rate_rule(c, m);
  const double b = static_cast<double>(bytes);
  const double ramp = b / (b + static_cast<double>(rule.ramp_bytes));
  mv.bar = rule.fraction * raw_rate(link, m) * ramp;
  mv.bar_basis = format_fixed(rule.fraction * ramp * 100, 1) + "% of " +
                 (m.scope == MethodScope::kAllRanks ? "the slowest local link, " : "") +
                 link.expected->basis + (m.bidirectional ? ", both directions" : "") + " (" +
                 rule.name + " " + format_fixed(rule.fraction, 2) + " x " +
                 format_size_compact(bytes) + "/(" + format_size_compact(bytes) + "+" +
                 format_size_compact(rule.ramp_bytes) + "))";
  mv.bar_source = kBarLinkRate;
}

// The known-good bar: expected_fraction of the figure a healthy card of this model delivers over
// this link at this size. It applies where NCCL used the transport the link promises (an NCCL
// case on SHM is flagged nccl-shm already; its ratio is still reported).
bool known_good_bar(const Ctx& c, const MethodInfo& m, const Link& link, const std::string& kind,
                    const KnownGoodLookup& known, MethodVerdict& mv) {
  if (!known.found() || c.e.expected_fraction <= 0 || kind != link.kind) return false;
  if (m.metric == Metric::kLatency || known.figure->unit == "us") return false;
  mv.bar = c.e.expected_fraction * known.figure->value;
  mv.bar_basis = format_fixed(c.e.expected_fraction * 100, 0) + "% of the known-good " +
                 known.figure->describe();
  mv.bar_source = kBarKnownGood;
  return true;
}

}  // namespace

namespace {

// The model of the verdict's GPUs, or "" when they differ.
std::string model_of(const Ctx& c, const PairVerdict& v) {
  std::string model;
  for (const auto& card : v.cards) {
    const auto* info = c.idx.rank(card.rank);
    const std::string name = info ? info->gpu.name : "";
    if (!model.empty() && name != model) return "";
    model = name;
  }
  return model;
}

// The off-baseline flag of a figure worse than the site's bar; fills mv.bar either way.
std::optional<Flag> baseline_shortfall(const Ctx& c, const PairVerdict& v, const MethodInfo& m,
                                       const Result& r, const BaselineEntry& b, double value,
                                       MethodVerdict& mv) {
  // NCCL's figure is its bus bandwidth, as below-expected says (an audit).
  const std::string unit = b.lower_is_better ? " us" : m.uses_nccl ? " busbw GB/s" : " GB/s";
  int decimals = b.lower_is_better ? 2 : 1;
  // A method over all ranks has one figure a node: "of 6 pairs on 6 nodes" read as pairs.
  const std::string of =
      m.scope == MethodScope::kAllRanks
          ? std::to_string(b.nodes) + " nodes"
          : std::to_string(b.pairs) + " pairs on " + std::to_string(b.nodes) + " nodes";
  mv.bar = b.bar;
  mv.bar_basis = "site baseline from " + c.e.source + ": median " +
                 format_fixed(b.median, decimals) + unit + " of " + of + " (" + b.model + ", " +
                 b.group + ")";
  mv.bar_source = kBarSiteBaseline;
  // A baseline judges a run on any versions: one on another driver or NCCL is told so, pass or
  // fail, since the change of version may be the cause (audits).
  const std::string versions = baseline_version_note(b, c.e.baseline_origin, c.versions);
  if (!versions.empty()) mv.bar_basis += "; " + versions;
  const bool worse = b.lower_is_better ? value > b.bar : value < b.bar;
  if (!worse) return std::nullopt;
  // "took 0.83 us, worse than the site's 0.83 us bar": digits enough to tell them apart.
  while (decimals < 4 && format_fixed(value, decimals) == format_fixed(b.bar, decimals)) ++decimals;
  return make_flag("off-baseline", m.name,
                   m.name + (b.lower_is_better ? " took " : " reached ") +
                       format_fixed(value, decimals) + unit + " at " + format_size(r.bytes) +
                       where_text(c, v, m.name) + ", worse than the site's " +
                       format_fixed(b.bar, decimals) + unit + " bar: " + mv.bar_basis,
                   {{"measured", value},
                    {"versions", versions.empty() ? json() : json(versions)},
                    {"bar", b.bar},
                    {"baseline_median", b.median},
                    {"baseline_p25", b.p25},
                    {"baseline_p75", b.p75},
                    {"baseline_pairs", b.pairs},
                    {"baseline_nodes", b.nodes},
                    {"unit", b.lower_is_better ? "us" : "GB/s"},
                    {"bytes", r.bytes},
                    {"source", c.e.source}});
}

}  // namespace

const BaselineEntry* baseline_for(const Ctx& c, const PairVerdict& v, const MethodInfo& m,
                                  const Result& r) {
  if (c.e.baseline.empty()) return nullptr;
  BaselineQuery q;
  q.model = model_of(c, v);
  q.link = v.link;
  q.group = baseline_group(c.d, v, &m);
  q.method = m.name;
  q.bytes = r.bytes;
  q.ranks = static_cast<int>(c.d.system.ranks.size());
  q.versions = c.versions;
  return find_baseline(c.e.baseline, q);
}

namespace {

// Where the site gave a baseline and it has no entry for the case (another model, link, size or
// rank count, or its versions), the basis says so: a baseline that judges nothing is not silent.
// `found`: baseline_for's answer, which the caller has already.
std::string no_baseline_entry(const Ctx& c, const PairVerdict& v, const MethodInfo& m,
                              const Result& r, const BaselineEntry* found) {
  if (c.e.baseline.empty() || found) return "";
  return "; no entry in the site baseline (" + c.e.source + ") for " + model_of(c, v) + " " +
         v.link + " " + m.name + " at " + format_size(r.bytes) + " over " +
         std::to_string(c.d.system.ranks.size()) + " ranks";
}

}  // namespace

// Under -R 2 NCCL runs its symmetric-window kernels (all-reduce, all-gather, reduce-scatter),
// whose bandwidth curve is their own: on a healthy 2 x H200 all-reduce reaches 241-257 busbw
// GB/s from 64 MiB to 4 GiB, with nccl-tests the same (-R 0: 268-345), under the known-good curve
// and the link-rate rule's 4 GiB bar. The known-good table holds no such curve. (Send/recv under
// -R 2 runs as under -R 1: 330-367 there.) Their small-message times are judged as ever.
bool symmetric_window_kernels(const Ctx& c, const MethodInfo& m) {
  return m.uses_nccl && c.local_register == 2 &&
         (m.collective == Collective::kAllReduce || m.collective == Collective::kAllGather ||
          m.collective == Collective::kReduceScatter);
}

KnownGoodLookup known_good_for(const Ctx& c, const PairVerdict& v, const MethodInfo& m,
                               const Result& r, const Link& link) {
  KnownGoodLookup none;
  if (!c.known) return none;
  if (symmetric_window_kernels(c, m) && !judged_in_time(c, m, r)) {
    none.why_unknown = "no known-good figure for NCCL's symmetric-window kernels (-R 2)";
    return none;
  }
  // The figures are float/sum runs': a prod or half figure held to them was called
  // below-expected (an audit); another variant falls back as an unknown row does.
  const bool other_type = !r.datatype.empty() && r.datatype != "float";
  if (other_type || (!r.op.empty() && r.op != "sum")) {
    none.why_unknown =
        "no known-good figure for " + variant_label(r) + " (the figures are float/sum)";
    return none;
  }
  const std::string model = model_of(c, v);
  if (model.empty()) {
    none.why_unknown = "the GPUs are of different models";
    return none;
  }
  KnownGoodQuery q;
  q.gpu_name = model;
  q.link = link.cls.label;
  q.ranks = static_cast<int>(c.d.system.ranks.size());
  q.method = m.name;
  q.bytes = r.bytes;
  q.nvls = c.nvls;
  return c.known->lookup(q);
}

bool known_good_judges_small(const Ctx& c, const PairVerdict& v, const MethodInfo& m,
                             const Result& r, const Link& link) {
  if (c.e.expected_fraction <= 0 || m.metric == Metric::kLatency) return false;
  const auto k = known_good_for(c, v, m, r, link);
  return k.found() && k.figure->unit != "us" && bar_kind_for(c, m, link, v.src, v.dst) == link.kind;
}

std::string bar_kind_for(const Ctx& c, const MethodInfo& m, const Link& link, int src, int dst) {
  if (link.cls.kind == LinkKind::kCrossHost) return "net";
  if (m.family == "staged") return "staged";
  if (m.uses_nccl && src >= 0) {
    const auto* f = c.idx.facts(src, dst);
    if (f && f->nccl && f->nccl->kind == "SHM") return "staged";
    if (f && f->nccl && f->nccl->kind == "NET") return "net";
  }
  return link.kind;
}

std::optional<Flag> latency_shortfall(const Ctx& c, const PairVerdict& v, const MethodInfo& m,
                                      const Result& r, const std::string& kind, bool small_message,
                                      MethodVerdict& mv) {
  const double value = r.time_us ? r.time_us->median : 0;
  const BaselineEntry* b = baseline_for(c, v, m, r);
  if (b && b->lower_is_better && !site_bar(c.e.max_latency_us, m.name, kind))
    return baseline_shortfall(c, v, m, r, *b, value, mv);
  latency_bar(c, m, kind, small_message, mv);
  if (mv.bar && !site_bar(c.e.max_latency_us, m.name, kind))
    mv.bar_basis += no_baseline_entry(c, v, m, r, b);
  if (!mv.bar || value <= *mv.bar) return std::nullopt;
  return make_flag("high-latency", m.name,
                   m.name + " took " + format_fixed(value, 2) + " us per operation at " +
                       format_size(r.bytes) + where_text(c, v, m.name) + ", over the " +
                       format_fixed(*mv.bar, 1) + " us bar for " + kind,
                   {{"measured_us", value},
                    {"bar_us", *mv.bar},
                    {"basis", mv.bar_basis},
                    {"bytes", r.bytes},
                    {"link", v.link}});
}

std::string no_builtin_bar(const Ctx& c, const PairVerdict& v, const MethodInfo& m, const Result& r,
                           const std::string& kind) {
  if (!symmetric_window_kernels(c, m)) return "";
  if (site_bar(c.e.min_gbps, m.name, kind)) return "";
  if (const BaselineEntry* b = baseline_for(c, v, m, r); b && !b->lower_is_better) return "";
  return "not judged: under -R 2 NCCL runs its symmetric-window kernels, whose bandwidth curve is "
         "not the link's, and no known-good figure is for them (a site's min_gbps or baseline "
         "judges it)";
}

// A collective over all ranks is as slow as its slowest pair: where NCCL fell back to shared
// memory or the network between some of them (flagged there), that is the suspect, not the card.
std::string nccl_fallback_note(const Ctx& c, const MethodInfo& m, const PairVerdict& v) {
  if (!m.uses_nccl || v.src >= 0) return "";
  std::set<std::string> kinds;
  for (const auto& p : c.d.pairs) {
    if (p.nccl && (p.nccl->kind == "SHM" || p.nccl->kind == "NET")) kinds.insert(p.nccl->kind);
  }
  if (kinds.empty()) return "";
  return "; NCCL used " + join(std::vector<std::string>(kinds.begin(), kinds.end()), " and ") +
         " between some of the ranks (flagged on those pairs), the first suspect";
}

// A baseline's shortfall; a bar above the link's raw rate (an edited entry: a median of 5e8 GB/s)
// can be met by no figure, and the flag says so, as it does for a site's min_gbps.
std::optional<Flag> baseline_bandwidth_shortfall(const Ctx& c, const PairVerdict& v,
                                                 const MethodInfo& m, const Result& r,
                                                 const Link& link, const BaselineEntry& b,
                                                 MethodVerdict& mv) {
  auto f = baseline_shortfall(c, v, m, r, b, headline_value(&m, r), mv);
  if (f) f->message += nccl_fallback_note(c, m, v);  // SHM between some ranks: the first suspect
  if (f) f->message += unreachable_bar_note(v, m, link, b.bar);
  return f;
}

namespace {

// The flag of a figure under the bar its verdict chose (none at or above it): below-expected
// under a known-good bar (`expected`), else below-link, the site's bar or the link's rating.
std::optional<Flag> bandwidth_flag(const Ctx& c, const PairVerdict& v, const MethodInfo& m,
                                   const Result& r, const Link& link, bool expected,
                                   const MethodVerdict& mv) {
  const double value = headline_value(&m, r);
  if (!mv.bar || value >= *mv.bar) return std::nullopt;
  json ev = {{"measured_gbps", value},
             {"threshold_gbps", *mv.bar},
             {"basis", mv.bar_basis},
             {"bytes", r.bytes},
             {"link", v.link}};
  if (link.expected) ev["link_raw_gbps"] = link.expected->raw_gbps;
  if (expected) ev["expected_fraction"] = c.e.expected_fraction;
  // Per GPU, only the every-GPU-at-once methods ran beside others.
  const bool at_once = v.src != v.dst || m.all_gpus_at_once;
  if (!v.concurrent_pairs.empty() && at_once) ev["ran_at_once_with"] = v.concurrent_pairs;
  // NCCL's figure is its bus bandwidth: said so beside a known-good "busbw GB/s" (a review).
  const std::string unit = m.uses_nccl ? " busbw GB/s" : " GB/s";
  const std::string head = m.name + " reached " + format_fixed(value, 1) + unit + " at " +
                           format_size(r.bytes) + where_text(c, v, m.name);
  if (expected) {
    return make_flag("below-expected", m.name,
                     head + ", under its " + format_fixed(*mv.bar, 1) + unit +
                         " bar: " + mv.bar_basis + nccl_fallback_note(c, m, v),
                     ev);
  }
  if (mv.bar_source == kBarSiteBar) {
    // The site's number, not the link's rating; one above the raw rate cannot be met at all.
    return make_flag("below-link", m.name,
                     head + ", under the site's " + format_fixed(*mv.bar, 1) + " GB/s bar (" +
                         mv.bar_basis + ")" + unreachable_bar_note(v, m, link, *mv.bar),
                     ev);
  }
  return make_flag("below-link", m.name,
                   head + ", under the " + format_fixed(*mv.bar, 1) + " GB/s that " +
                       v.link_description + " should carry",
                   ev);
}

}  // namespace

std::optional<Flag> bandwidth_shortfall(const Ctx& c, const PairVerdict& v, const MethodInfo& m,
                                        const Result& r, const Link& link, const std::string& kind,
                                        MethodVerdict& mv) {
  bool expected = false;
  const BaselineEntry* base = baseline_for(c, v, m, r);
  if (r.bytes < c.e.judge_min_bytes && base && !base->lower_is_better) {
    // The site's own median at this very size: a run to 64 MiB judged by a baseline written from
    // such runs (its entries were written and never used, and read "no entry"; an audit).
    return baseline_bandwidth_shortfall(c, v, m, r, link, *base, mv);
  } else if (r.bytes < c.e.judge_min_bytes) {  // known_good_judges_small: the known-good bar
    expected = known_good_bar(c, m, link, kind, known_good_for(c, v, m, r, link), mv);
    mv.bar_basis += expected ? " (under " + format_size(c.e.judge_min_bytes) +
                                   " only a known-good figure judges)"
                             : "";
  } else if (auto b = site_bar(c.e.min_gbps, m.name, kind)) {
    mv.bar = *b;
    mv.bar_basis = "min_gbps from " + c.e.source;
    mv.bar_source = kBarSiteBar;
  } else if (base && !base->lower_is_better) {
    return baseline_bandwidth_shortfall(c, v, m, r, link, *base, mv);
  } else if (known_good_bar(c, m, link, kind, known_good_for(c, v, m, r, link), mv)) {
    expected = true;
    mv.bar_basis += no_baseline_entry(c, v, m, r, base);
  } else {
    default_bandwidth_bar(c, m, link, r.bytes, mv);
    if (mv.bar && c.known) {
      const auto k = known_good_for(c, v, m, r, link);
      if (!k.found())
        mv.bar_basis += "; link-rate rule: no known-good figure (" + k.why_unknown + ")";
    }
    if (mv.bar) mv.bar_basis += no_baseline_entry(c, v, m, r, base);
  }
  return bandwidth_flag(c, v, m, r, link, expected, mv);
}

std::optional<Flag> smaller_size_baseline_check(const Ctx& c, const PairVerdict& v,
                                                const MethodInfo& m, const Result& judged,
                                                const Link& link, MethodVerdict& mv) {
  if (c.e.baseline.empty() || baseline_for(c, v, m, judged)) return std::nullopt;
  const auto& rs = c.idx.of(m.name, v.src, v.dst);
  for (auto it = rs.rbegin(); it != rs.rend(); ++it) {
    const Result& r = **it;
    if (r.bytes >= judged.bytes || c.idx.ok_at(m.name, v.src, v.dst, r.bytes) != &r) continue;
    const BaselineEntry* b = baseline_for(c, v, m, r);
    if (!b) continue;
    const std::string at = " at " + format_size(r.bytes) +
                           ", the largest size it has an entry for (none at " +
                           format_size(judged.bytes) + ")";
    if (not_the_links_figure(r)) {
      mv.bar_basis += "; not held to the site baseline" + at + ": that figure is not the link's";
      return std::nullopt;
    }
    MethodVerdict scratch;
    auto f = b->lower_is_better ? baseline_shortfall(c, v, m, r, *b, figure_value(&m, r), scratch)
                                : baseline_bandwidth_shortfall(c, v, m, r, link, *b, scratch);
    mv.bar_basis +=
        "; also held to the site baseline" + at + ": " + (f ? "worse than" : "within") + " its bar";
    mv.baseline_also_at = r.bytes;
    if (f) {
      f->evidence["confirmed"] = false;
      f->evidence["confirmation"] = "none: the run repeats the size its verdict judges (" +
                                    format_size(judged.bytes) +
                                    "), and this is the site baseline's own size";
    }
    return f;
  }
  return std::nullopt;
}

std::optional<Flag> asymmetry_shortfall(const Ctx& c, const PairVerdict& v, const MethodInfo& m,
                                        const Result& r, const Result& back) {
  const double value = headline_value(&m, r);
  const double other = headline_value(&m, back);
  const double hi = std::max(value, other);
  if (hi <= 0 || value >= other || (hi - value) / hi <= c.e.asymmetry_tolerance)
    return std::nullopt;
  const std::string a = std::to_string(v.src), b = std::to_string(v.dst);
  return make_flag("asymmetric", m.name,
                   m.name + " " + a + "->" + b + " " + format_fixed(value, 1) + " GB/s vs " + b +
                       "->" + a + " " + format_fixed(other, 1) + " GB/s at " +
                       format_size(r.bytes) + " (" + format_fixed(100 * (hi - value) / hi, 1) +
                       "% apart; tolerance " + format_fixed(100 * c.e.asymmetry_tolerance, 0) +
                       "%)" + (m.family == "staged" ? " " + host_path_suspect(v.link) : ""),
                   {{"this_direction_gbps", value},
                    {"reverse_direction_gbps", other},
                    {"bytes", r.bytes},
                    {"tolerance", c.e.asymmetry_tolerance}});
}

}  // namespace peerbench::verdict_detail
