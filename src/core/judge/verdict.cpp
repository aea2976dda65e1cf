#include "core/judge/verdict.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/judge/verdict_context.h"
#include "core/model/sizes.h"

namespace peerbench {

using nlohmann::json;
namespace vs = verdict_state;
using namespace verdict_detail;

namespace {

// ---- One method on one pair.

// Skipped or not applicable by design, not for a fault: no peer access, one GPU, a size that
// holds no element (schema 2 files said "size is not a multiple of ...").
bool skipped_by_design(const Result& r, const Link& link) {
  return r.status == ResultStatus::kNotApplicable || link.cls.kind == LinkKind::kSameGpu ||
         r.reason.rfind("p2p:", 0) == 0 || r.reason.rfind("size is not a multiple", 0) == 0;
}

// The size is named where the reason is about sizes (an element that does not fit); "ranks on
// different hosts (at 1 MiB)" read as if the size mattered.
std::string not_applicable_reason(const Result& r) {
  const bool about_size = r.reason.find("size") != std::string::npos ||
                          r.reason.find("element") != std::string::npos ||
                          r.reason.find("byte") != std::string::npos;
  return r.reason + (about_size && r.reason.find(format_size(r.bytes)) == std::string::npos
                         ? " (at " + format_size(r.bytes) + ")"
                         : "");
}

std::string not_run_reason(const Ctx& c) {
  // It may have been the step in flight (in_progress): "before it finished", not "before it".
  if (c.d.status == "incomplete") return "not measured: the run was cut short before it finished";
  if (c.d.status == "failed") return "not measured: the run failed before it finished";
  return "requested, but no result is recorded";
}

// Fills `mv` when the method has no usable measurement; false when there is one to judge.
bool unmeasured(const Ctx& c, const MethodInfo& m, const std::vector<const Result*>& rs,
                const Link& link, bool asked, MethodVerdict& mv) {
  if (rs.empty()) {
    if (m.same_host_only && link.cls.kind == LinkKind::kCrossHost) {
      mv.state = vs::kNotApplicable;
      mv.reason = m.name + " needs both GPUs in one host";
    } else {
      mv.state = vs::kIncomplete;
      mv.reason = not_run_reason(c);
    }
    return true;
  }
  for (const auto* r : rs) {
    if (r->status == ResultStatus::kError || r->status == ResultStatus::kTimeout ||
        r->status == ResultStatus::kNotRun) {
      mv.state = vs::kIncomplete;
      mv.reason = to_string(r->status) + " at " + format_size(r->bytes) +
                  (r->reason.empty() ? "" : ": " + r->reason);
      return true;
    }
  }
  const Result* best = c.idx.largest_ok(m.name, rs.front()->src, rs.front()->dst);
  const Result* by_design = nullptr;
  for (const auto* r : rs) {
    if (r->status != ResultStatus::kSkipped && r->status != ResultStatus::kNotApplicable) continue;
    if (skipped_by_design(*r, link)) {
      if (!by_design) by_design = r;
      continue;
    }
    mv.state = vs::kIncomplete;
    mv.reason = "skipped: " + r->reason;
    return true;
  }
  if (!best) {
    mv.state = by_design ? vs::kNotApplicable : vs::kIncomplete;
    mv.reason = by_design ? not_applicable_reason(*by_design) : "no usable measurement";
    return true;
  }
  if (asked && !m.fixed_size && c.max_requested_bytes > planned_bytes(*best)) {
    mv.state = vs::kIncomplete;
    mv.reason = "the largest requested size, " + format_size(c.max_requested_bytes) +
                ", was not measured (largest: " + format_size(planned_bytes(*best)) + ")";
    return true;
  }
  return false;
}

void data_error_flags(const Ctx& c, PairVerdict& v, const std::vector<const Result*>& rs) {
  for (const auto* r : rs) {
    if (r->wrong == 0) continue;
    v.flags.push_back(
        make_flag("data-errors", r->method,
                  r->method + (variant_label(*r).empty() ? "" : " (" + variant_label(*r) + ")") +
                      " delivered " + std::to_string(r->wrong) + " wrong elements at " +
                      format_size(r->bytes) + (r->attempt ? " (confirmation repeat)" : "") +
                      where_text(c, v, r->method),
                  {{"bytes", r->bytes},
                   {"wrong", r->wrong},
                   {"checked_elements", r->checked_elements},
                   {"attempt", r->attempt}}));
  }
}

std::optional<MethodVerdict> judge_method(const Ctx& c, PairVerdict& v, const MethodInfo& m,
                                          const Link& link) {
  const auto& rs = c.idx.of(m.name, v.src, v.dst);
  const bool asked = requested_for(c, m, v.src, v.dst);
  if (rs.empty() && !asked) return std::nullopt;
  MethodVerdict mv;
  mv.method = m.name;
  data_error_flags(c, v, c.idx.every_variant(m.name, v.src, v.dst));
  for (const auto* r : c.confirmations.empty() ? std::vector<const Result*>{} : rs) {
    const auto it = c.confirmations.find(case_key(*r));
    if (it != c.confirmations.end()) data_error_flags(c, v, it->second);
  }
  if (unmeasured(c, m, rs, link, asked, mv)) return mv;
  const Result& judged = *c.idx.largest_ok(m.name, v.src, v.dst);
  judge_measured(c, v, m, judged, link, mv);
  // A run swept past the site baseline's sizes: its largest figure is judged as ever (by
  // known-good there), and the baseline's own size is held to its entry on top. Judging the
  // baseline's size instead passed a 1 GiB figure at 0.50 of known-good (a review).
  if (mv.state != vs::kNotALink) {
    if (auto f = smaller_size_baseline_check(c, v, m, judged, link, mv)) {
      v.flags.push_back(std::move(*f));
      if (state_rank(vs::kFlagged) > state_rank(mv.state)) mv.state = vs::kFlagged;
    }
  }
  off_nvlink_flag(c, v, m, rs, link);
  return mv;
}

// Pairs that ran in the same round as this one (--schedule rounds).
std::vector<std::string> concurrent_with(const Ctx& c, int src, int dst) {
  std::set<std::pair<int, int>> others;
  for (const auto& name : c.idx.methods_of(src, dst)) {
    std::set<int> rounds;
    for (const auto* r : c.idx.of(name, src, dst)) {
      if (r->concurrent_pairs > 1) rounds.insert(r->round);
    }
    for (int round : rounds) {
      for (const auto& p : c.idx.round_pairs(name, round)) {
        if (p != std::make_pair(src, dst)) others.insert(p);
      }
    }
  }
  std::vector<std::string> out;
  for (const auto& [a, b] : others) {
    out.push_back(a == b ? "rank " + std::to_string(a)
                         : std::to_string(a) + "->" + std::to_string(b));
  }
  return out;
}

// The worst state wins: flagged > contended > throttled > noisy > incomplete > not-a-link > pass >
// not-judged > not-applicable (state_rank).
void settle(PairVerdict& v, bool same_gpu) {
  std::set<std::string> flagged_methods;
  for (const auto& f : v.flags) flagged_methods.insert(f.method);
  for (auto& mv : v.methods) {
    if (flagged_methods.count(mv.method) && mv.state != vs::kIncomplete) mv.state = vs::kFlagged;
  }
  if (!v.flags.empty()) {
    v.verdict = vs::kFlagged;
    return;
  }
  std::string worst = vs::kNotApplicable;
  for (const auto& m : v.methods) {
    if (state_rank(m.state) > state_rank(worst)) worst = m.state;
  }
  // One GPU for both ranks: nothing about a link can be said, unless something failed.
  if (same_gpu && state_rank(worst) < state_rank(vs::kIncomplete)) worst = vs::kNotALink;
  v.verdict = worst;
}

void describe_observed(const Ctx& c, PairVerdict& v) {
  std::vector<std::string> parts;
  if (v.src >= 0) {
    const auto* f = c.idx.facts(v.src, v.dst);
    if (f && f->nccl) parts.push_back("NCCL " + transport_text(*f->nccl));
  }
  for (const auto& mv : v.methods) {
    if (mv.value) {
      const bool us = mv.unit == "us";
      std::string s = mv.method + " " + format_fixed(*mv.value, us ? 2 : 1) + " " +
                      (us || mv.unit.empty() ? (us ? "us" : "GB/s") : mv.unit) +
                      (v.src < 0 ? " @ " + format_size_label(mv.bytes) : "");
      if (mv.state != vs::kPass && mv.state != vs::kFlagged) s += " (" + mv.state + ")";
      // One later burn-in cycle under the bar is not flagged (unconfirmed), but is said.
      const auto& ev = mv.evidence;
      if (ev.is_object() && ev.contains("burn_in") && ev["burn_in"].is_object() &&
          ev["burn_in"].contains("under_bar_unconfirmed")) {
        const auto& u = ev["burn_in"]["under_bar_unconfirmed"];
        s += " (under its bar in one burn-in cycle, " + std::to_string(u["cycle"].get<int>()) +
             ": " + format_fixed(u["value"].get<double>(), us ? 2 : 1) + ", unconfirmed)";
      }
      parts.push_back(s);
    } else {
      // No figure: the state and its reason are the evidence.
      parts.push_back(mv.method + " " + mv.state + (mv.reason.empty() ? "" : ": " + mv.reason));
    }
  }
  if (!v.concurrent_pairs.empty()) {
    std::string with;
    for (const auto& p : v.concurrent_pairs) with += (with.empty() ? "" : ", ") + p;
    parts.push_back("ran at once with " + with +
                    (v.src == v.dst ? " (every GPU at once)" : " (--schedule rounds)"));
  }
  for (const auto& p : parts) v.observed += (v.observed.empty() ? "" : "; ") + p;
}

std::optional<PairVerdict> pair_verdict(const Ctx& c, int src, int dst) {
  PairVerdict v;
  v.src = src;
  v.dst = dst;
  const Link link = link_of(c, src, dst);
  v.link = link.cls.label;
  v.link_description = link.cls.describe();
  v.cards = {card_from(c.idx.rank(src), src), card_from(c.idx.rank(dst), dst)};
  v.concurrent_pairs = concurrent_with(c, src, dst);
  if (const auto* f = c.idx.facts(src, dst)) {
    if (f->same_host && link.cls.kind != LinkKind::kSameGpu) host_staged_flag(c, v, *f);
    if (f->nccl) nccl_flags(c, v, *f->nccl, link);
  }
  std::set<std::string> done;
  for (const auto* m : c.requested) {
    if (m->scope != MethodScope::kPair || !done.insert(m->name).second) continue;
    if (auto mv = judge_method(c, v, *m, link)) v.methods.push_back(std::move(*mv));
  }
  for (const auto& name : c.idx.methods_of(src, dst)) {  // results of methods not requested
    const auto* m = c.method(name);
    if (!m || !done.insert(name).second) continue;
    if (auto mv = judge_method(c, v, *m, link)) v.methods.push_back(std::move(*mv));
  }
  if (v.methods.empty() && v.flags.empty()) return std::nullopt;
  if (link.cls.kind != LinkKind::kSameGpu) p2p_vs_staged_flags(c, v);
  health_flags(c, v);
  burn_in_flags(c, v);
  describe_observed(c, v);
  settle(v, link.cls.kind == LinkKind::kSameGpu);
  return v;
}

// Another rank drives the same GPU (--allow-gpu-sharing): its "every GPU at once" copies share
// one PCIe link, so their figure is not the link's.
bool gpu_shared(const Ctx& c, int rank) {
  const auto* me = c.idx.rank(rank);
  if (!me) return false;
  return std::any_of(c.d.system.ranks.begin(), c.d.system.ranks.end(),
                     [&](const RankInfo& r) { return r.rank != rank && same_card(r, *me); });
}

// One GPU and its host: the host<->GPU methods (h2d, d2h, h2d-all, d2h-all) against the GPU's
// PCIe link.
std::optional<PairVerdict> gpu_verdict(const Ctx& c, int rank) {
  PairVerdict v;
  v.src = v.dst = rank;
  const Link link = host_link_of(c, rank);
  v.link = link.cls.label;
  v.link_description =
      "the GPU's PCIe link to the host" + (link.expected ? " (" + link.expected->basis + ")" : "");
  v.cards = {card_from(c.idx.rank(rank), rank)};
  v.concurrent_pairs = concurrent_with(c, rank, rank);
  Link shared = link;
  shared.cls.kind = LinkKind::kSameGpu;
  const bool is_shared = gpu_shared(c, rank);
  auto judge = [&](const MethodInfo& m) {
    if (auto mv = judge_method(c, v, m, is_shared && m.all_gpus_at_once ? shared : link))
      v.methods.push_back(std::move(*mv));
  };
  std::set<std::string> done;
  for (const auto* m : c.requested) {
    if (m->scope == MethodScope::kPerGpu && done.insert(m->name).second) judge(*m);
  }
  for (const auto& name : c.idx.methods_of(rank, rank)) {  // results of methods not requested
    const auto* m = c.method(name);
    if (m && done.insert(name).second) judge(*m);
  }
  if (v.methods.empty()) return std::nullopt;
  health_flags(c, v);
  burn_in_flags(c, v);
  describe_observed(c, v);
  settle(v, false);
  return v;
}

std::optional<PairVerdict> all_ranks_verdict(const Ctx& c) {
  PairVerdict v;
  v.link = "all";
  v.link_description = "all ranks";
  for (const auto& r : c.d.system.ranks) v.cards.push_back(card_from(&r, r.rank));
  const Link link = all_ranks_link(c);
  std::set<std::string> names;
  for (const auto* m : c.requested) {
    if (m->scope == MethodScope::kAllRanks) names.insert(m->name);
  }
  for (const auto& n : c.idx.methods_of(-1, -1)) names.insert(n);
  for (const auto* m : c.requested) {  // run order first, then the rest
    if (!names.count(m->name)) continue;
    names.erase(m->name);
    if (auto mv = judge_method(c, v, *m, link)) v.methods.push_back(std::move(*mv));
  }
  for (const auto& n : names) {
    if (const auto* m = c.method(n)) {
      if (auto mv = judge_method(c, v, *m, link)) v.methods.push_back(std::move(*mv));
    }
  }
  if (v.methods.empty()) return std::nullopt;
  burn_in_flags(c, v);
  describe_observed(c, v);
  settle(v, link.cls.kind == LinkKind::kSameGpu);
  return v;
}

// Ordered pairs to judge: those with facts or results, and every pair the request covers.
std::set<std::pair<int, int>> pairs_to_judge(const Ctx& c) {
  std::set<std::pair<int, int>> pairs = c.idx.pairs();
  const bool any_pair_method =
      std::any_of(c.requested.begin(), c.requested.end(),
                  [](const MethodInfo* m) { return m->scope == MethodScope::kPair; });
  if (!any_pair_method) return pairs;
  if (c.filter && c.filter->kind == PairFilter::Kind::kExplicit) {
    for (const auto& p : c.filter->pairs) {
      if (c.idx.rank(p.first) && c.idx.rank(p.second)) pairs.insert(p);
    }
    return pairs;
  }
  for (const auto& a : c.d.system.ranks) {
    for (const auto& b : c.d.system.ranks) {
      if (a.rank != b.rank && pair_accepted(c, a.rank, b.rank)) pairs.insert({a.rank, b.rank});
    }
  }
  return pairs;
}

}  // namespace

namespace {

// h2d-all short on every GPU of a host while h2d, each GPU alone, passes: the GPUs' shared path
// (root complex, host memory) fell short, not each GPU's link. Both GPUs' links had been flagged,
// and a technician would have reseated two healthy cards (an audit). Bandwidth shortfalls only:
// wrong data is the GPU's own evidence; one GPU short beside others at speed is its own link.
namespace shared_path {

bool shortfall(const Flag& f) {
  return f.code == "below-expected" || f.code == "below-link" || f.code == "off-baseline";
}

// The catalogue says which method runs every GPU at once; its one-GPU-at-a-time counterpart is
// the same name without "-all" (host_copy.cpp names both).
const MethodVerdict* alone_passing(const RunDocument& d, const PairVerdict& v,
                                   const std::string& all_method) {
  const MethodInfo* m = find_method(d.methods, all_method);
  const std::string suffix = "-all";
  if (!m || !m->all_gpus_at_once || all_method.size() <= suffix.size() ||
      all_method.compare(all_method.size() - suffix.size(), suffix.size(), suffix) != 0)
    return nullptr;
  const std::string alone = all_method.substr(0, all_method.size() - suffix.size());
  for (const auto& mv : v.methods)
    if (mv.method == alone && mv.state == vs::kPass && mv.value) return &mv;
  return nullptr;
}

bool short_alone_passing(const RunDocument& d, const PairVerdict& v, const std::string& method) {
  if (!alone_passing(d, v, method)) return false;
  return std::any_of(v.flags.begin(), v.flags.end(),
                     [&](const Flag& f) { return f.method == method && shortfall(f); });
}

void name(const RunDocument& d, std::vector<PairVerdict>& gpus) {
  std::map<std::pair<std::string, std::string>, std::pair<int, int>> ran_short;
  for (const auto& v : gpus)
    for (const auto& mv : v.methods) {
      auto& [ran, short_ones] = ran_short[{host_of(d, v.src), mv.method}];
      ++ran;
      short_ones += short_alone_passing(d, v, mv.method);
    }
  for (auto& v : gpus) {
    for (auto& f : v.flags) {
      const auto [ran, short_ones] = ran_short[{host_of(d, v.src), f.method}];
      const MethodVerdict* m = alone_passing(d, v, f.method);
      if (!shortfall(f) || !m || ran < 2 || short_ones < ran) continue;
      f.message +=
          "; " + m->method + ", this GPU alone, passes at " + format_fixed(*m->value, 1) + " " +
          m->unit +
          (m->expected_ratio ? " (" + format_fixed(*m->expected_ratio, 2) + " of known-good)"
                             : std::string()) +
          ", and every GPU of the host is short at once: the path they share (root "
          "complex, host memory), not this GPU's link, is the suspect";
      f.evidence["alone_passes"] = {{"method", m->method}, {"value", *m->value}};
    }
  }
}

}  // namespace shared_path

std::vector<PairVerdict> verdicts_of(Ctx& c) {
  const RunDocument& d = c.d;
  std::vector<PairVerdict> out;
  for (const auto& [src, dst] : pairs_to_judge(c)) {
    if (auto v = pair_verdict(c, src, dst)) out.push_back(std::move(*v));
  }
  std::set<int> gpus = c.idx.gpus();
  for (const auto* m : c.requested) {
    if (m->scope != MethodScope::kPerGpu) continue;
    for (const auto& r : d.system.ranks) {
      if (!c.filter || c.filter->measures_gpu(r.rank)) gpus.insert(r.rank);
    }
  }
  std::vector<PairVerdict> per_gpu;
  for (int r : gpus) {
    if (auto v = gpu_verdict(c, r)) per_gpu.push_back(std::move(*v));
  }
  shared_path::name(d, per_gpu);
  for (auto& v : per_gpu) out.push_back(std::move(v));
  if (auto all = all_ranks_verdict(c)) out.push_back(std::move(*all));
  return out;
}

}  // namespace

std::vector<PairVerdict> compute_verdicts(const RunDocument& d, const Expectations& e) {
  Ctx c(d, e);
  index_document(c);
  return verdicts_of(c);
}

std::vector<CaseKey> cases_to_confirm(const RunDocument& d, const Expectations& e) {
  Ctx c(d, e);
  index_document(c);
  std::set<CaseKey> undecided;
  c.to_confirm = &undecided;
  (void)verdicts_of(c);
  return {undecided.begin(), undecided.end()};
}

}  // namespace peerbench
