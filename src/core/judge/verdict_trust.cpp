// Judging a measured case over its attempts: the plan's measurement and the confirmation repeats
// the run made at its end. An accusation (a bar or the asymmetry check failed) stands only when it
// is confirmed by measurements that ran clean: no other process on the case's GPUs, clocks not
// held, samples that agree. A case that cannot be judged clean says what was in the way instead
// (contended, throttled, noisy) and is measured again by the next run's confirmation phase.
#include <algorithm>
#include <iterator>

#include "core/base/text.h"
#include "core/judge/verdict_context.h"
#include "core/model/figure_unit.h"
#include "core/model/sizes.h"

namespace peerbench::verdict_detail {

using nlohmann::json;
namespace vs = verdict_state;

namespace {

// Ordered: a worse trust wins when attempts disagree.
enum class Trust { kClean, kNoisy, kThrottled, kContended };

Trust trust_of(const Ctx& c, const Result& r) {
  if (contended(r)) return Trust::kContended;
  if (throttled(r)) return Trust::kThrottled;
  const auto cv = sample_cv(r);
  if (cv && *cv > c.e.noisy_cv) return Trust::kNoisy;
  return Trust::kClean;
}

const char* to_string(Trust t) {
  switch (t) {
    case Trust::kContended:
      return vs::kContended;
    case Trust::kThrottled:
      return vs::kThrottled;
    case Trust::kNoisy:
      return vs::kNoisy;
    default:
      return "clean";
  }
}

// One attempt of a case under one check: the accusation it supports when it fails the check.
struct Outcome {
  int attempt = 0;
  const Result* r = nullptr;
  Trust trust = Trust::kClean;
  std::optional<Flag> flag;
  std::vector<const Result*> involved;  // what was measured: r, and the reverse for asymmetry
};

enum class Ruling { kPass, kFlag, kUntrusted, kUnconfirmed };

struct Decision {
  Ruling ruling = Ruling::kPass;
  Trust worst = Trust::kClean;
  const Outcome* decisive = nullptr;
  bool confirmed = false;
};

// The other users or held clocks seen by every measurement an outcome rests on: for asymmetry,
// the reverse direction's too (its interference alone read "ran beside another user of the GPU:
// ; not a link figure").
std::string involved_interference(const Ctx& c, const Outcome& o) {
  std::vector<std::string> parts;
  for (const Result* r : o.involved) {
    const std::string t = r ? interference_text(c, *r) : "";
    if (!t.empty() && std::find(parts.begin(), parts.end(), t) == parts.end()) parts.push_back(t);
  }
  return join(parts, "; ");
}

// A clean (or merely noisy) pass clears the case. Two clean failures confirm the accusation; one
// is enough only where the run made no repeats (--confirm 0, or a file from before them).
// Why a flag stands on one measurement: the run asked for no repeats, or predates them.
std::string no_confirmation_text(const Ctx& c) {
  const auto& cfg = c.d.config;
  if (cfg.is_object() && cfg.contains("confirm"))
    return "none: the run made no repeats (--confirm 0)";
  return "none: the file predates confirmation repeats (schema " +
         std::to_string(c.d.schema_version) + ")";
}

Decision decide(const Ctx& c, const std::vector<Outcome>& outs) {
  Decision d;
  for (const auto& o : outs) {
    if (!o.flag && (o.trust == Trust::kClean || o.trust == Trust::kNoisy)) {
      d.decisive = &o;
      return d;
    }
  }
  int clean_failures = 0;
  for (const auto& o : outs) {
    if (!o.flag || o.trust != Trust::kClean) continue;
    if (!d.decisive) d.decisive = &o;
    ++clean_failures;
  }
  if (clean_failures >= 2 || (clean_failures == 1 && c.confirm_requested == 0)) {
    d.ruling = Ruling::kFlag;
    d.confirmed = clean_failures >= 2;
    return d;
  }
  if (clean_failures == 1 && outs.size() == 1) {
    d.ruling = Ruling::kUnconfirmed;
    return d;
  }
  d.ruling = Ruling::kUntrusted;
  d.decisive = nullptr;
  for (const auto& o : outs) {
    if (!d.decisive || o.trust > d.worst) {
      d.worst = o.trust;
      d.decisive = &o;
    }
  }
  return d;
}

// The measurements of a case: the plan's, then its confirmation repeats.
std::vector<const Result*> attempts_of(const Ctx& c, const Result& r) {
  std::vector<const Result*> out{&r};
  const auto it = c.confirmations.find(case_key(r));
  if (it == c.confirmations.end()) return out;
  for (const auto* x : it->second) {
    if (has_figure(*x)) out.push_back(x);
  }
  return out;
}

// The reverse direction's measurement at the same attempt.
const Result* reverse_attempt(const Ctx& c, const MethodInfo& m, const Result& r, int attempt) {
  if (attempt == 0) return c.idx.ok_at(m.name, r.dst, r.src, r.bytes);
  CaseKey k = case_key(r);
  std::swap(k.src, k.dst);
  const auto it = c.confirmations.find(k);
  if (it == c.confirmations.end()) return nullptr;
  for (const auto* x : it->second) {
    if (x->attempt == attempt && has_figure(*x)) return x;
  }
  return nullptr;
}

double judged_value(const Ctx& c, const MethodInfo& m, const Result& r) {
  return figure_value(&m, r, c.e.small_message_max_bytes);
}

std::string figure_text(const Ctx& c, const MethodInfo& m, const Result& r) {
  const bool us = judged_in_time(c, m, r);
  return format_fixed(judged_value(c, m, r), us ? 2 : 1) + (us ? " us" : " GB/s");
}

json attempts_json(const Ctx& c, const MethodInfo& m, const std::vector<Outcome>& outs) {
  json list = json::array();
  for (const auto& o : outs) {
    json a = {{"attempt", o.attempt},
              {"value", judged_value(c, m, *o.r)},
              {"trust", to_string(o.trust)},
              {"fails", o.flag.has_value()}};
    if (o.trust == Trust::kContended || o.trust == Trust::kThrottled)
      a["interference"] = interference_json(*o.r);
    if (auto cv = sample_cv(*o.r)) a["sample_cv"] = *cv;
    list.push_back(a);
  }
  return list;
}

void raise_state(MethodVerdict& mv, const std::string& state, const std::string& reason,
                 json evidence) {
  if (state_rank(state) <= state_rank(mv.state)) return;
  mv.state = state;
  mv.reason = reason;
  mv.evidence = std::move(evidence);
}

void collect(const Ctx& c, const std::vector<Outcome>& outs) {
  if (!c.to_confirm || outs.empty()) return;
  for (const auto* r : outs.front().involved) c.to_confirm->insert(case_key(*r));
}

// What a decision does to the method: a flag, a state that says what was in the way, or a pass
// (by the decisive attempt's figure).
void apply(const Ctx& c, PairVerdict& v, const MethodInfo& m, const std::vector<Outcome>& outs,
           const Decision& d, MethodVerdict& mv) {
  const Outcome& o = *d.decisive;
  switch (d.ruling) {
    case Ruling::kPass:
      if (o.attempt > 0) {
        mv.value = judged_value(c, m, *o.r);
        mv.reason = "confirmation repeat " + std::to_string(o.attempt) + " measured " +
                    figure_text(c, m, *o.r) + " and passes; the plan's measurement was " +
                    figure_text(c, m, *outs.front().r) + " (" + to_string(outs.front().trust) + ")";
        mv.evidence = {{"attempts", attempts_json(c, m, outs)}};
      }
      return;
    case Ruling::kFlag: {
      Flag f = *o.flag;
      f.evidence["attempts"] = attempts_json(c, m, outs);
      f.evidence["confirmed"] = d.confirmed;
      if (!d.confirmed) f.evidence["confirmation"] = no_confirmation_text(c);
      v.flags.push_back(std::move(f));
      return;
    }
    case Ruling::kUnconfirmed:
      raise_state(mv, vs::kIncomplete,
                  "would be flagged (" + o.flag->message +
                      "), but the confirmation repeat the run asked for was not measured",
                  {{"attempts", attempts_json(c, m, outs)}});
      collect(c, outs);
      return;
    case Ruling::kUntrusted: {
      std::string why = figure_text(c, m, *o.r) + " at " + format_size(o.r->bytes);
      if (d.worst == Trust::kNoisy) {
        const auto cv = sample_cv(*o.r).value_or(0);
        why += ": its samples spread " + format_fixed(100 * cv, 1) + " % (coefficient of " +
               "variation; tolerance " + format_fixed(100 * c.e.noisy_cv, 0) + " %)";
      } else {
        why += (d.worst == Trust::kContended ? " ran beside another user of the GPU: "
                                             : " ran with clocks held down: ") +
               involved_interference(c, o);
      }
      why += o.flag ? "; it would fail: " + o.flag->message : "; not a link figure";
      raise_state(mv, to_string(d.worst), why, {{"attempts", attempts_json(c, m, outs)}});
      collect(c, outs);
      return;
    }
  }
}

void judge_asymmetry(const Ctx& c, PairVerdict& v, const MethodInfo& m,
                     const std::vector<const Result*>& attempts, MethodVerdict& mv) {
  std::vector<Outcome> outs;
  for (std::size_t k = 0; k < attempts.size(); ++k) {
    const Result& a = *attempts[k];
    const int attempt = k == 0 ? 0 : a.attempt;
    const Result* back = reverse_attempt(c, m, a, attempt);
    if (!back) continue;
    // Only the plan's slower direction is ever accused; the faster one has nothing to answer.
    if (k == 0 && headline_value(&m, a) >= headline_value(&m, *back)) return;
    Outcome o{attempt,
              &a,
              std::max(trust_of(c, a), trust_of(c, *back)),
              asymmetry_shortfall(c, v, m, a, *back),
              {&a, back}};
    outs.push_back(std::move(o));
  }
  if (outs.empty()) return;
  apply(c, v, m, outs, decide(c, outs), mv);
}

// The measured figure beside the known-good one (a ratio under 1 is worse, for latency too).
void record_known_good(const Ctx& c, const PairVerdict& v, const MethodInfo& m, const Result& r,
                       const Link& link, MethodVerdict& mv) {
  const KnownGoodLookup k = known_good_for(c, v, m, r, link);
  if (!k.found()) {
    mv.expected_basis = k.why_unknown;
    return;
  }
  mv.expected = k.figure->value;
  const bool us = m.metric == Metric::kLatency || k.figure->unit == "us";
  const double value = us ? (r.time_us ? r.time_us->median : 0) : headline_value(&m, r);
  if (value > 0) mv.expected_ratio = us ? k.figure->value / value : value / k.figure->value;
  mv.expected_basis = k.figure->describe();
}

// Why a measured figure has no bar, in the user's terms, and what would give it one.
std::string no_bar_reason(const MethodInfo& m, const Link& link, const std::string& kind,
                          bool in_time, const std::string& verdict_label) {
  // "all" is the collective's verdict over every rank, not a link's name ("link all"; an audit).
  const std::string label =
      verdict_label == "all" ? "the links between all ranks" : "link " + verdict_label;
  if (in_time) return "no latency bar for " + label;
  if (m.family == "staged" || kind == "staged")
    return "no bar for copies through host memory (an --expect file's min_gbps sets one)";
  if (kind == "net")
    return "no bar for a path between hosts (an --expect file's min_gbps or a site baseline "
           "sets one)";
  if (!link.expected)
    return "no bar: the kind and rate of " + label +
           " are unknown (the run saw no topology of them; under per-task GPU binding each rank "
           "sees only its own GPU)";
  return "no bar for " + label;
}

}  // namespace

int state_rank(const std::string& s) {
  static constexpr const char* const order[] = {vs::kNotApplicable, vs::kNotJudged,  vs::kPass,
                                                vs::kNotALink,      vs::kIncomplete, vs::kNoisy,
                                                vs::kThrottled,     vs::kContended,  vs::kFlagged};
  for (int i = 0; i < static_cast<int>(std::size(order)); ++i) {
    if (s == order[i]) return i;
  }
  return -1;
}

namespace {

// Why a figure under judge_min_bytes is not judged: its size, and where a known-good figure
// exists, the road NCCL took that the figure is not of (over SHM or the network it is held to
// that road's bar at any size; the pair's transport flag says it). "64 MiB < 256 MiB" beside
// "0.11 of known-good" read as an excuse (an audit).
std::string small_size_reason(const Ctx& c, const PairVerdict& v, const MethodInfo& m,
                              const Result& r, const Link& link) {
  std::string s =
      "not judged: largest size " + format_size(r.bytes) + " < " + format_size(c.e.judge_min_bytes);
  const std::string kind = bar_kind_for(c, m, link, v.src, v.dst);
  if (!m.uses_nccl || kind == link.kind || !known_good_for(c, v, m, r, link).found()) return s;
  return s + "; its known-good figure is of " + link.cls.label + ", and NCCL went " +
         (kind == "staged" ? "through host memory (SHM)" : "over the network") +
         " between these ranks: see the pair's transport flag";
}

// How a figure is judged: in time (a latency method, or a bandwidth method at latency sizes) or
// as a bandwidth, under the bars of one kind of road (bar_kind_for).
struct Judging {
  bool latency = false;  // a latency method
  bool small = false;    // a bandwidth method judged in time (judged_in_time)
  std::string kind;
  bool in_time() const { return latency || small; }
};

// A figure that crosses no link (one rank, or two ranks on one GPU): not-a-link with why. False
// where it is a link's.
bool not_a_link(const Ctx& c, const Link& link, MethodVerdict& mv) {
  if (link.cls.kind != LinkKind::kSameGpu) return false;
  mv.state = vs::kNotALink;
  mv.reason = c.d.system.ranks.size() <= 1 ? "one rank: a collective over one GPU crosses no link"
                                           : "both ranks drive one GPU: the figure is not a link's";
  return true;
}

// A figure no bar can judge (launch-bound, launch gaps in its samples, under judge_min_bytes
// with no known-good figure there): not-judged with why. False where a bar may judge it.
bool left_unjudged(const Ctx& c, const PairVerdict& v, const MethodInfo& m, const Result& r,
                   const Link& link, bool in_time, MethodVerdict& mv) {
  if (r.enqueue && r.enqueue->launch_bound) {
    mv.state = vs::kNotJudged;
    mv.reason = "launch-bound: " + r.enqueue->note;
    return true;
  }
  if (r.gate_timeouts > 0) {  // schema 1 kept such samples; since schema 2 they fail the case
    mv.state = vs::kNotJudged;
    mv.reason = "the start gate timed out in " + std::to_string(r.gate_timeouts) + " of " +
                std::to_string(r.samples) +
                " samples, so its times include launch gaps (a schema-1 file; peerbench now "
                "discards such samples)";
    return true;
  }
  // Under judge_min_bytes the link-rate rule says nothing, but a known-good figure measured at
  // this very size (its curve starts at 64 MiB) still does: a run to 64 MiB with NCCL at 0.10 of
  // it read not-judged (an audit). bandwidth_shortfall then holds it to that figure alone.
  if (!in_time && r.bytes < c.e.judge_min_bytes && !known_good_judges_small(c, v, m, r, link)) {
    mv.state = vs::kNotJudged;
    mv.reason = small_size_reason(c, v, m, r, link);
    if (contended(r) || throttled(r)) mv.reason += "; it ran beside " + interference_text(c, r);
    return true;
  }
  return false;
}

// Each measurement of the case (the plan's, then its repeats) against its bar, and the verdict
// they settle on; no bar is no pass.
void judge_attempts(const Ctx& c, PairVerdict& v, const MethodInfo& m, const Result& r,
                    const Link& link, const Judging& j, const std::vector<const Result*>& attempts,
                    MethodVerdict& mv) {
  std::vector<Outcome> outs;
  for (std::size_t k = 0; k < attempts.size(); ++k) {
    const Result& a = *attempts[k];
    Outcome o{k == 0 ? 0 : a.attempt,
              &a,
              trust_of(c, a),
              j.in_time() ? latency_shortfall(c, v, m, a, j.kind, j.small, mv)
                          : bandwidth_shortfall(c, v, m, a, link, j.kind, mv),
              {&a}};
    outs.push_back(std::move(o));
  }
  const Decision dec = decide(c, outs);
  if (dec.decisive) mv.attempt = dec.decisive->attempt;
  if (!mv.bar && dec.ruling != Ruling::kUntrusted) {
    // No bar is no pass: before, a figure without one (a link of unknown kind, as under per-task
    // GPU binding) passed whatever it was. Beside another job or under held clocks it still says
    // so (apply, below), and is measured again where the run repeats cases.
    mv.state = vs::kNotJudged;
    mv.reason = no_bar_reason(m, link, j.kind, j.in_time(), v.link);
    return;
  }
  apply(c, v, m, outs, dec, mv);
  // A repeat that settled the verdict gives the figure shown: its ratio to known-good too
  // (before, the repeat's figure stood beside the first measurement's ratio).
  if (mv.expected && mv.value && *mv.value > 0 && mv.expected_ratio &&
      *mv.value != judged_value(c, m, r))
    mv.expected_ratio = mv.unit == "us" ? *mv.expected / *mv.value : *mv.value / *mv.expected;
}

}  // namespace

void judge_measured(const Ctx& c, PairVerdict& v, const MethodInfo& m, const Result& r,
                    const Link& link, MethodVerdict& mv) {
  mv.state = vs::kPass;
  mv.bytes = r.bytes;
  Judging j;
  j.latency = m.metric == Metric::kLatency;
  j.small = !j.latency && judged_in_time(c, m, r);
  // The figure judged, whatever the state (a one-rank collective's busbw is 0 by definition).
  mv.value = judged_value(c, m, r);
  mv.unit = headline_unit(m, r.bytes, c.e.small_message_max_bytes);
  if (not_a_link(c, link, mv)) return;
  record_known_good(c, v, m, r, link, mv);
  if (left_unjudged(c, v, m, r, link, j.in_time(), mv)) return;
  j.kind = bar_kind_for(c, m, link, v.src, v.dst);
  if (auto why = j.in_time() ? "" : no_builtin_bar(c, v, m, r, j.kind); !why.empty()) {
    mv.state = vs::kNotJudged;
    mv.reason = why;
    return;
  }
  const auto attempts = attempts_of(c, r);
  judge_attempts(c, v, m, r, link, j, attempts, mv);
  if (!j.in_time() && m.scope == MethodScope::kPair && !m.bidirectional)
    judge_asymmetry(c, v, m, attempts, mv);
}

std::string interference_text(const Ctx& c, const Result& r) {
  return interference_text_by(r, [&](int rank) { return who(c, rank); });
}

std::string interference_text_by(const Result& r, const std::function<std::string(int)>& who) {
  std::vector<std::string> parts;
  if (!r.interference) return "";
  for (const auto& g : *r.interference) {
    std::vector<std::string> seen;
    for (const auto& p : g.processes) {
      std::string s = "pid " + std::to_string(p.pid) + " (" +
                      (p.name.empty() ? "not visible here: another container?" : p.name);
      if (p.used_memory_bytes) s += ", " + format_size(*p.used_memory_bytes) + " of GPU memory";
      if (p.sm_util_pct) s += ", SM " + std::to_string(*p.sm_util_pct) + " %";
      seen.push_back(s + ")");
    }
    if (g.busy_while_idle) {
      seen.push_back("utilization " + std::to_string(g.util_gpu_pct.value_or(0)) +
                     " % while the job was not using it (a process NVML cannot name)");
    }
    if (!g.throttle_reasons.empty()) seen.push_back("clocks held by " + join(g.throttle_reasons));
    if (seen.empty()) continue;
    std::string on = "on " + who(g.rank);
    if (g.util_gpu_pct && !g.busy_while_idle)
      on += ", GPU utilization " + std::to_string(*g.util_gpu_pct) + " %";
    parts.push_back(join(seen, "; ") + " " + on);
  }
  return join(parts, "; ");
}

json interference_json(const Result& r) {
  json list = json::array();
  if (!r.interference) return list;
  for (const auto& g : *r.interference) {
    if (!g.contended() && !g.throttled()) continue;
    json procs = json::array();
    for (const auto& p : g.processes) {
      procs.push_back(
          {{"pid", p.pid},
           {"name", p.name},
           {"used_memory_bytes", p.used_memory_bytes ? json(*p.used_memory_bytes) : json()},
           {"sm_util_pct", p.sm_util_pct ? json(*p.sm_util_pct) : json()}});
    }
    list.push_back({{"rank", g.rank},
                    {"host", g.host},
                    {"gpu_index", g.gpu_index},
                    {"pci_bus_id", g.pci_bus_id},
                    {"processes", procs},
                    {"util_gpu_pct", g.util_gpu_pct ? json(*g.util_gpu_pct) : json()},
                    {"busy_while_idle", g.busy_while_idle},
                    {"throttle_reasons", g.throttle_reasons}});
  }
  return list;
}

}  // namespace peerbench::verdict_detail
