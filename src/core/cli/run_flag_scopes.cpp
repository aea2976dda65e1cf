// The run flags that apply to some methods only: given where none of the methods selected takes
// them, they would be dropped without a word, so they are refused. Checked when the command line
// is parsed, and again when a one-rank job leaves the methods it cannot run (fit_run_to_ranks).
#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/cli/flags.h"
#include "core/plan/plan.h"

namespace peerbench {
namespace {

// --pairs with only collectives (over all ranks) or host<->GPU methods, which a filter other than a
// list of pairs does not select (README), measured what it would without it.
void refuse_pairs_that_apply_to_nothing(const std::vector<MethodInfo>& catalog,
                                        const RunOptions& o) {
  if (!o.given("pairs") || o.pairs.kind == PairFilter::Kind::kAll) return;
  const bool list = o.pairs.kind == PairFilter::Kind::kExplicit;
  bool collectives = false, host = false;
  for (const auto& name : o.methods) {
    const MethodInfo* m = find_method(catalog, name);
    if (!m) continue;
    if (m->scope == MethodScope::kPair || (list && m->scope == MethodScope::kPerGpu)) return;
    collectives = collectives || m->scope == MethodScope::kAllRanks;
    host = host || m->scope == MethodScope::kPerGpu;
  }
  // Why, for what was selected (the message named collectives to a -m host run; a review).
  throw UsageError(
      "--pairs: none of the methods selected (" + join(o.methods, ",") + ") runs on pairs" +
      (collectives ? "; collectives run over all ranks" : std::string()) +
      (host ? "; host<->GPU methods take only a list of pairs (0-1,2>3)" : std::string()) +
      "; leave --pairs out or select pair methods");
}

// The methods a size sweep (-b -e -f -i) and -n apply to: not the latency methods, which run at
// one size, ce-latency for --latency-iters transfers.
bool sweeps(const MethodInfo& m) {
  return !m.fixed_size;
}

struct FlagScope {
  const char* key;
  const char* flag;
  const char* what;
  bool (*applies)(const MethodInfo&);
  bool (*changed)(const RunOptions&,
                  const RunOptions&);  // given, default: a default drops nothing
};
// Each flag that applies to some methods only, and whether a value drops something.
constexpr FlagScope kFlagScopes[] = {
    {"datatype", "-d/--datatype", "element types", [](const MethodInfo& m) { return m.typed; },
     [](const RunOptions& g, const RunOptions& d) { return g.datatypes != d.datatypes; }},
    {"op", "-o/--op", "reductions", [](const MethodInfo& m) { return m.reduces; },
     [](const RunOptions& g, const RunOptions& d) { return g.ops != d.ops; }},
    {"root", "-r/--root", "a root", [](const MethodInfo& m) { return m.rooted; },
     [](const RunOptions& g, const RunOptions& d) { return g.root != d.root; }},
    {"inplace", "--inplace", "in-place all-reduce",
     [](const MethodInfo& m) { return m.collective == Collective::kAllReduce; },
     [](const RunOptions&, const RunOptions&) { return true; }},
    {"local_register", "-R/--local_register", "NCCL buffer registration",
     [](const MethodInfo& m) { return m.uses_nccl; },
     [](const RunOptions& g, const RunOptions& d) {
       return g.register_buffers != d.register_buffers;
     }},
    {"staged-chunk", "--staged-chunk", "the staged pipeline",
     [](const MethodInfo& m) { return m.family == "staged"; },
     [](const RunOptions& g, const RunOptions& d) { return g.staged_chunk != d.staged_chunk; }},
    {"staged-slots", "--staged-slots", "the staged pipeline",
     [](const MethodInfo& m) { return m.family == "staged"; },
     [](const RunOptions& g, const RunOptions& d) { return g.staged_slots != d.staged_slots; }},
    {"latency-bytes", "--latency-bytes", "a latency size",
     [](const MethodInfo& m) { return m.fixed_size && m.fixed_bytes == 0; },
     [](const RunOptions& g, const RunOptions& d) { return g.latency_bytes != d.latency_bytes; }},
    {"latency-iters", "--latency-iters", "latency transfers",
     [](const MethodInfo& m) { return m.metric == Metric::kLatency; },
     [](const RunOptions& g, const RunOptions& d) { return g.latency_iters != d.latency_iters; }},
    // -G on staged or sm-latency alone captured nothing, yet labelled the run "-G N" (an audit).
    {"cudagraph", "-G/--cudagraph", "a CUDA graph",
     [](const MethodInfo& m) { return m.graph_capturable; },
     [](const RunOptions& g, const RunOptions& d) {
       return g.cudagraph_replays != d.cudagraph_replays;
     }},
    // One rank times a one-sided copy: there are no ranks' times to combine.
    {"average", "-a/--average", "the times of several ranks",
     [](const MethodInfo& m) { return m.workers != 1; },
     [](const RunOptions& g, const RunOptions& d) { return g.average != d.average; }},
    // -I 1 is the default: only asking for it explicitly asks for something to drop.
    {"per_iter_timing", "-I/--per_iter_timing", "a per-iteration sample",
     [](const MethodInfo& m) { return m.start_gated; },
     [](const RunOptions& g, const RunOptions&) { return g.per_iteration; }},
    {"minbytes", "-b/--minbytes", "a size sweep", sweeps,
     [](const RunOptions& g, const RunOptions& d) {
       return g.sweep.min_bytes != d.sweep.min_bytes;
     }},
    {"maxbytes", "-e/--maxbytes", "a size sweep", sweeps,
     [](const RunOptions& g, const RunOptions& d) {
       return g.sweep.max_bytes != d.sweep.max_bytes;
     }},
    {"stepfactor", "-f/--stepfactor", "a size sweep", sweeps,
     [](const RunOptions& g, const RunOptions& d) {
       return g.sweep.step_factor != d.sweep.step_factor;
     }},
    {"stepbytes", "-i/--stepbytes", "a size sweep", sweeps,
     [](const RunOptions& g, const RunOptions& d) {
       return g.sweep.step_bytes != d.sweep.step_bytes;
     }},
    {"iters", "-n/--iters", "iterations per sample (the latency methods: --latency-iters)", sweeps,
     [](const RunOptions& g, const RunOptions& d) { return g.iters != d.iters; }},
};

}  // namespace

void refuse_flags_that_apply_to_nothing(const RunOptions& o,
                                        const std::vector<MethodInfo>& catalog) {
  const RunOptions defaults;
  for (const auto& sc : kFlagScopes) {
    if (!o.given(sc.key) || !sc.changed(o, defaults)) continue;
    bool any = false;
    for (const auto& name : o.methods) {
      const MethodInfo* m = find_method(catalog, name);
      any = any || (m && sc.applies(*m));
    }
    if (any) continue;
    std::vector<std::string> takers, others;
    for (const auto& m : catalog) (sc.applies(m) ? takers : others).push_back(m.name);
    // The shorter list: -G's twenty takers read better as the two it does not apply to.
    throw UsageError(std::string(sc.flag) + ": none of the methods selected (" +
                     join(o.methods, ",") + ") takes " + sc.what + "; it applies to " +
                     (others.size() < takers.size() ? "every method but " + join(others, ", ")
                                                    : join(takers, ", ")));
  }
  refuse_pairs_that_apply_to_nothing(catalog, o);
  // The per-iteration sample runs its iterations back to back; -z waits after each one.
  if (o.given("per_iter_timing") && o.per_iteration && o.blocking != 0) {
    throw UsageError("-I/--per_iter_timing 1 and -z/--blocking " + std::to_string(o.blocking) +
                     ": the per-iteration sample runs back to back behind the start gate (-z 0); "
                     "give one");
  }
}

std::string fit_run_to_ranks(RunOptions& o, int ranks, const std::vector<MethodInfo>& catalog,
                             const std::string& where) {
  RankFit fit = fit_methods_to_ranks(o, ranks, catalog, where);
  if (fit.note.empty()) return "";
  o.methods = fit.methods;
  try {
    refuse_flags_that_apply_to_nothing(o, catalog);
  } catch (const UsageError& e) {
    throw UsageError(std::string(e.what()) + " (" + fit.note + ")");
  }
  return fit.note;
}

}  // namespace peerbench
