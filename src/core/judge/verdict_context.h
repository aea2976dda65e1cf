#pragma once
// What the verdict rules share, internal to the verdict files (verdict*.cpp): the document
// indexed once, what was requested, the link between two ranks, and the words that name ranks
// and cards in messages. verdict.h is the public side.
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/judge/verdict.h"
#include "core/model/known_good.h"
#include "core/model/pair_filter.h"
#include "core/model/result_index.h"

namespace peerbench::verdict_detail {

// What a pair's (or all ranks') link is, what it carries, and which bars apply to it.
struct Link {
  LinkClass cls;
  std::optional<LinkExpectation> expected;
  std::string kind;  // nvlink, pcie, net, or "" (unknown, same GPU)
};

// Everything the rules look up, built once per document (index_document).
struct Ctx {
  const RunDocument& d;
  const Expectations& e;
  ResultIndex idx;
  std::vector<const MethodInfo*> requested;
  std::set<std::string> requested_names;
  std::deque<MethodInfo> unknown_methods;  // requested names the file does not describe
  std::optional<PairFilter> filter;
  std::uint64_t max_requested_bytes = 0;
  std::map<std::pair<std::string, int>, const GpuTopology*> gpus;
  std::map<std::tuple<std::string, int, int>, const GpuPairTopology*> gpu_pairs;
  // A rank's GPU by PCI bus id: with per-task binding every rank's GPU is index 0 in its view.
  std::map<std::pair<std::string, std::string>, const GpuTopology*> gpus_by_bus;
  std::map<std::pair<std::string, int>, const GpuLinkHealth*> health;
  // Per host and GPU model: the most NVLinks up and the fastest active link among those GPUs.
  struct ModelLinks {
    int most_up = 0;
    double fastest_gbps = 0;
  };
  std::map<std::pair<std::string, std::string>, ModelLinks> model_links;
  // Confirmation repeats of each case, in attempt order.
  std::map<CaseKey, std::vector<const Result*>> confirmations;
  // Each case's burn-in series, by method, pair, size, datatype and op (the judged variant's is
  // the one of the judged result: the first in the file had been taken; an audit).
  std::map<std::tuple<std::string, int, int, std::uint64_t, std::string, std::string>,
           const BurnInSeries*>
      burn_in_series;
  // Every series of a method and pair, every size and variant: errors and failures anywhere in
  // them count (a data error at 1 MiB, or in half, was dropped; an audit).
  std::map<std::tuple<std::string, int, int>, std::vector<const BurnInSeries*>> burn_in_of_method;
  int confirm_requested = 0;  // the run's --confirm (0: off, or a file from before schema 3)
  const KnownGoodTable* known = nullptr;    // the built-in known-good figures
  std::optional<bool> nvls;                 // NCCL_NVLS_ENABLE of the run, where recorded
  int local_register = 0;                   // the run's -R (2: symmetric windows)
  RunVersions versions;                     // to match a site baseline's version-specific entries
  std::set<CaseKey>* to_confirm = nullptr;  // set by cases_to_confirm(): undecided cases

  Ctx(const RunDocument& doc, const Expectations& ex) : d(doc), e(ex), idx(doc) {}
  const MethodInfo* method(const std::string& name) const { return find_method(d.methods, name); }
  std::string host(int rank) const {
    const auto* r = idx.rank(rank);
    return r ? r->host : "";
  }
};

// verdict_context.cpp: the request, the links, the names.
void index_document(Ctx& c);
bool pair_accepted(const Ctx& c, int a, int b);
bool requested_for(const Ctx& c, const MethodInfo& m, int src, int dst);
CardId card_from(const RankInfo* r, int rank);
std::string who(const Ctx& c, int rank);  // "rank 0 (GPU 0 (0000:..., serial ...) on host)"
bool same_gpu(const GpuInfo& a, const GpuInfo& b);
bool same_card(const RankInfo& a, const RankInfo& b);  // one GPU, across hosts too (UUID)
const GpuTopology* topology_gpu(const Ctx& c, const RankInfo& r);
std::string bar_kind_of(const LinkClass& cls);
Link link_of(const Ctx& c, int src, int dst);
// The link that bounds a collective over all ranks: the network across hosts, else the slowest
// local link; the same GPU when every rank shares one.
Link all_ranks_link(const Ctx& c);
// Whether the verdict judges `r` as a time per operation, at the run's own latency-size bound.
bool judged_in_time(const Ctx& c, const MethodInfo& m, const Result& r);
Link host_link_of(const Ctx& c, int rank);
// " over all ranks", " between the host and rank 0 (...)", " from rank 0 (...) to rank 1 (...)";
// for a bidirectional `method`, " both ways together between rank 0 (...) and rank 1 (...)".
std::string where_text(const Ctx& c, const PairVerdict& v, const std::string& method = "");
Flag make_flag(const std::string& code, const std::string& method, const std::string& message,
               nlohmann::json evidence);

// verdict_path.cpp: which road the bytes took (peer access, NCCL's transport, NVLink counters).
void host_staged_flag(const Ctx& c, PairVerdict& v, const PairFacts& f);
std::string transport_text(const PairTransport& t);
void nccl_flags(const Ctx& c, PairVerdict& v, const PairTransport& t, const Link& link);
void off_nvlink_flag(const Ctx& c, PairVerdict& v, const MethodInfo& m,
                     const std::vector<const Result*>& rs, const Link& link);
void p2p_vs_staged_flags(const Ctx& c, PairVerdict& v);

// verdict_health.cpp: the links' own state (error counters, PCIe training, NVLinks up, fabric).
void health_flags(const Ctx& c, PairVerdict& v);

// verdict_burn_in.cpp: a burn-in's data errors by cycle, intermittent failures, drift.
void burn_in_flags(const Ctx& c, PairVerdict& v);

// verdict_bars.cpp: the bar a figure is held to, and the flag it earns under it.
// The site baseline entry of `r` (Expectations::baseline), or nullptr.
const BaselineEntry* baseline_for(const Ctx& c, const PairVerdict& v, const MethodInfo& m,
                                  const Result& r);
// The known-good figure of `r` for the pair's GPU model and `link` (data/known_good), or why none.
KnownGoodLookup known_good_for(const Ctx& c, const PairVerdict& v, const MethodInfo& m,
                               const Result& r, const Link& link);
std::string bar_kind_for(const Ctx& c, const MethodInfo& m, const Link& link, int src, int dst);
// Whether a bandwidth figure under judge_min_bytes is judged all the same: a known-good figure
// exists at its size and applies (the transport the link promises; expected_fraction not 0).
bool known_good_judges_small(const Ctx& c, const PairVerdict& v, const MethodInfo& m,
                             const Result& r, const Link& link);
// The flag `r` earns (high-latency), or nullopt; fills mv.bar and mv.bar_basis either way.
std::optional<Flag> latency_shortfall(const Ctx& c, const PairVerdict& v, const MethodInfo& m,
                                      const Result& r, const std::string& kind, bool small_message,
                                      MethodVerdict& mv);
// -R 2's symmetric-window kernels (all-reduce, all-gather, reduce-scatter): a curve of their own.
bool symmetric_window_kernels(const Ctx& c, const MethodInfo& m);
// Why an NCCL bandwidth figure has no built-in bar (-R 2), or "" when it has one; a site's
// min_gbps or baseline entry for it is a bar all the same.
std::string no_builtin_bar(const Ctx& c, const PairVerdict& v, const MethodInfo& m, const Result& r,
                           const std::string& kind);
// Where the site baseline has no entry at the judged size but has one at a smaller size this
// run measured (a run swept past the baseline's sizes): that figure against the entry's bar, on
// top of the judged size's own verdict. An off-baseline flag where worse (not confirmed: the run
// repeats the size it judges); mv.bar_basis says what was checked either way, and
// mv.baseline_also_at the size where it was.
std::optional<Flag> smaller_size_baseline_check(const Ctx& c, const PairVerdict& v,
                                                const MethodInfo& m, const Result& judged,
                                                const Link& link, MethodVerdict& mv);
// The flag `r` earns (below-link), or nullopt; fills mv.bar and mv.bar_basis either way.
std::optional<Flag> bandwidth_shortfall(const Ctx& c, const PairVerdict& v, const MethodInfo& m,
                                        const Result& r, const Link& link, const std::string& kind,
                                        MethodVerdict& mv);
// The asymmetric flag of `r` against the reverse direction `back`, or nullopt.
std::optional<Flag> asymmetry_shortfall(const Ctx& c, const PairVerdict& v, const MethodInfo& m,
                                        const Result& r, const Result& back);

// verdict_trust.cpp: judging a measured case over its attempts (the plan's and the repeats).
// States from best to worst: not-applicable < not-judged < pass < not-a-link < incomplete <
// noisy < throttled < contended < flagged; -1 for anything else.
int state_rank(const std::string& state);
void judge_measured(const Ctx& c, PairVerdict& v, const MethodInfo& m, const Result& r,
                    const Link& link, MethodVerdict& mv);
// "pid 4242 (copyloop, 2.5 GB, SM 99 %) on rank 1 (GPU 1 ...)" for the evidence of a state.
std::string interference_text(const Ctx& c, const Result& r);
// The same with `who` naming a rank.
std::string interference_text_by(const Result& r, const std::function<std::string(int)>& who);
nlohmann::json interference_json(const Result& r);

}  // namespace peerbench::verdict_detail
