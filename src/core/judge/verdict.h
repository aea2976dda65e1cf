#pragma once
// Verdicts: per ordered pair of ranks, and once for the methods over all ranks, what the topology
// promises against what the measurements, NCCL and the link counters showed. GPU-free: computed
// on rank 0 at the end of a run, and again by `report` from any run's JSON (with a site's own
// bars from --expect), so an old file can be judged by new rules.
//
// The API is plain data (results.h): compute_verdicts() gives one PairVerdict per ordered pair
// that had something requested or flagged, one per GPU with src = dst = its rank for the
// host<->GPU methods (judged against the GPU's PCIe link), plus one with src = dst = -1 for
// all-rank methods.
// Each PairVerdict holds
//   verdict   the pair's state, the worst of its methods and flags:
//             flagged > contended > throttled > noisy > incomplete > not-a-link > pass >
//             not-judged > not-applicable
//   methods   one MethodVerdict per requested method, with its own state:
//     pass            measured, and within every bar that applies (by a measurement that ran
//                     with no other process on its GPUs and unthrottled clocks)
//     flagged         a flag names this method (below-link, high-latency, data-errors, ...);
//                     a bar's flag stands only when its confirmation repeat fails it too
//     contended       the case ran while another process used one of its GPUs (named in the
//                     reason), and no clean measurement decides it: its figure is not the link's
//     throttled       the same for clocks held down (HW slowdown, thermal, power brake, power cap)
//     noisy           it would fail a bar, but its samples spread beyond noisy_cv and no repeat
//                     confirmed it
//     incomplete      requested and not measured: absent from a run that was cut short or
//                     failed, an error, a timeout, not run after an earlier failure, skipped
//                     for a fault, the largest requested size missing, or a confirmation repeat
//                     that was requested and not measured
//     not-applicable  not possible by design (copies across hosts, no peer access: the pair's
//                     host-staged flag says so; a size that holds no element), with the reason
//     not-a-link      both ranks drive the same GPU (or one rank runs a collective alone)
//     not-judged      measured, but no bar applies: the largest size is below judge_min_bytes
//                     (and above the small-message range), the link kind is unknown, or the
//                     host could not keep the GPU fed (launch-bound)
//   flags     {code, method, message, evidence}; codes in known_flag_codes()
//   cards     the physical GPUs (host, index, PCI bus id, UUID, serial)
//   concurrent_pairs  under --schedule rounds, the pairs that ran at the same time
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/judge/baseline.h"
#include "core/model/results.h"
#include "core/model/sizes.h"

namespace peerbench {

// Bars, built-in or from an --expect file. Link kinds for per-kind bars: "nvlink", "pcie",
// "staged" (through host memory: the staged method, NCCL's SHM transport), "net" (the network).
struct Expectations {
  // below-link: a bandwidth median under this fraction of the raw link bandwidth (per
  // direction; twice that for bidirectional totals). H200 NV18 gives ~0.83 for ce-write, PCIe
  // P2P ~0.8, so 0.6 leaves room for noise but catches PCIe-like numbers on NVLink.
  // Collectives' busbw still climbs past 256 MiB, so their bars scale with the size judged:
  // fraction x raw x size / (size + 64 MiB) (copies: + 4 MiB), which sits 15-30 % under every
  // collective nccl-tests measured on 2 x H200 from 256 MiB to 4 GiB (README, "Bars").
  double fraction_of_link = 0.6;
  double allreduce_fraction_of_link = 0.55;  // all-reduce busbw against the slowest local link
  // all-gather, reduce-scatter and all-to-all: busbw is (n-1)/n of algbw, and on 2 x H200 they
  // reach 0.50-0.61 of the raw link from 256 MiB to 4 GiB.
  double scatter_gather_fraction_of_link = 0.5;
  // noisy: samples' coefficient of variation above this. 1 GiB copies on 2 x H200 spread under
  // 1 %; 8-byte NCCL operations under 4 %.
  double noisy_cv = 0.1;
  // below-expected: a bandwidth under this fraction of the known-good figure for its GPU model,
  // link and size (data/known_good), where the table has one; 0 turns it off (then the
  // link-rate rule applies). 0.85, not 0.9: known-good figures are medians of healthy runs, so
  // half of healthy runs sit under them; at 0.9 a healthy 2 x H200 pair met 52 of 112 bars at
  // 256 MiB-4 GiB by 5-10 %. At 0.85 every bar sits at least 10 % under it (issue 17.7).
  double expected_fraction = 0.85;
  // drift: a burn-in's last quarter of cycles worse than its first by more than this.
  double drift_tolerance = 0.05;
  // A site's healthy fleet medians (`fleet --write-baseline`): off-baseline under their bars.
  std::vector<BaselineEntry> baseline;
  BaselineOrigin baseline_origin;     // the versions its fleet ran
  double asymmetry_tolerance = 0.15;  // |a->b - b->a| / max
  // Bandwidth is judged only at sizes that fill a link. On 2 x H200 (tests/fixtures/runs/h200x2
  // default.json) copies reach 96-98% of their 1 GiB figure at 64 MiB but NCCL only 76-91%
  // (sendrecv-bidir 76%, all-reduce 82%); at 256 MiB copies are within 1%, NCCL at 85-97%.
  std::uint64_t judge_min_bytes = 256ull << 20;
  // A bandwidth method whose largest size is at most this is a latency-size run ("-b 8 -e 8"):
  // its time per operation is judged against small_message_us instead.
  std::uint64_t small_message_max_bytes = kSmallMessageMaxBytes;
  // off-nvlink: NVLink data counters moved less than this fraction of a copy's payload.
  double off_nvlink_fraction = 0.9;
  // Site bars per method: method -> link kind (or "*" for every kind) -> value.
  std::map<std::string, std::map<std::string, double>> min_gbps;
  std::map<std::string, std::map<std::string, double>> max_latency_us;
  // Latency methods (ce-latency, sm-latency) per link kind. Measured on 2 x H200 NV18:
  // ce-latency 2.2 us, sm-latency 0.67 us; a copy staged through the host 15.5-17.5 us. The
  // NVLink bar (5 us) is twice the copy-engine figure and a third of the host-staged one.
  std::map<std::string, double> latency_us{
      {"nvlink", 5}, {"pcie", 12}, {"staged", 40}, {"net", 100}};
  // Bandwidth methods at latency sizes: time of one operation. NCCL's 8-byte send/recv and
  // all-reduce take 5.5-11 us on NV18 (device time vs host-launched), copies ~2.2 us.
  std::map<std::string, double> small_message_us{
      {"nvlink", 25}, {"pcie", 40}, {"staged", 60}, {"net", 150}};
  std::string source = "built-in defaults";
};

// Reads an --expect file (README "Verdicts" lists the keys):
//   {"fraction_of_link": 0.7, "judge_min_bytes": "256M",
//    "min_gbps": {"ce-write": 380, "nccl-sendrecv": {"nvlink": 340, "net": 20}},
//    "max_latency_us": {"ce-latency": 4}, "latency_us": {"pcie": 10}}
// Unknown keys, methods (checked against `catalog`) and link kinds are refused with an
// InputError naming them: a typo must not silently switch a check off.
Expectations expectations_from_json(const nlohmann::json& j, const std::string& file,
                                    const std::vector<MethodInfo>& catalog);
Expectations load_expectations(const std::string& path, const std::vector<MethodInfo>& catalog);
// For callers that checked the same file against the catalogue already (run_command does,
// before the job starts): method names are not checked again.
Expectations load_expectations(const std::string& path);

// The bars as JSON in the --expect file's own keys, so a run can record the bars it judged by
// (config.expectations) and `report` judge the file again by the same ones.
nlohmann::json to_json(const Expectations& e);

std::vector<PairVerdict> compute_verdicts(const RunDocument& d, const Expectations& e);

// The known-good figure at a measured size, for charts: the line a healthy card would draw.
struct KnownGoodMark {
  std::string method;
  int src = -1, dst = -1;  // as the verdict's: -1/-1 over all ranks, src = dst a host<->GPU one
  std::uint64_t bytes = 0;
  double value = 0;
  std::string unit;    // "GB/s", "busbw GB/s", "us"
  std::string curve;   // "H200 SXM, NV18" (", 2 ranks" where the figure is for a job size)
  std::string source;  // the table's source id
};
// Per verdict in `vs` with a known-good figure at its judged size, that method's figure at each
// size the run measured (the first variant, the plan's attempt) where the table has one at or
// between its sizes; never past its largest, and in the unit the method's chart shows.
std::vector<KnownGoodMark> known_good_marks(const RunDocument& d, const Expectations& e,
                                            const std::vector<PairVerdict>& vs);

// One measured case: what a confirmation repeat measures again.
struct CaseKey {
  std::string method;
  int src = -1, dst = -1;  // -1/-1: over all ranks
  std::uint64_t bytes = 0;
  std::string datatype, op;  // a collective's variant; "" for others
  bool operator<(const CaseKey& o) const;
};
CaseKey case_key(const Result& r);
// Which measurement of `r`'s case settled its verdict in `vs` (MethodVerdict::attempt; 0 where no
// verdict judged that size), and that measurement: the confirmation repeat, or `r`. Compare and
// the fleet set it beside other runs: before, they took the plan's figure, so a transient the
// run's own repeat cleared read as a regression or a fleet outlier (audit).
int settled_attempt(const std::vector<PairVerdict>& vs, const Result& r);
const Result* settled_result(const RunDocument& d, const Result& r, int attempt);
// A figure that can stand beside other nodes': measured, not contended or throttled, and not
// launch-bound unless the run blocked (-z) throughout.
bool placeable(const RunDocument& d, const Result& r);
// Said of a figure through pinned host memory (staged) that a flag sets apart: "(through host
// memory: the host's memory path, not the NV18 link, is the suspect)".
std::string host_path_suspect(const std::string& link);
nlohmann::json to_json(const CaseKey& k);
CaseKey case_key_from_json(const nlohmann::json& j);

// Cases whose verdict a repeat would settle: a bar or the asymmetry check failed them, or they ran
// beside another process, under held clocks, or spread beyond noisy_cv. The job measures them
// again at the end of the run, after an idle check (run --confirm N). `d.config.confirm` must
// already say how many repeats will be made.
std::vector<CaseKey> cases_to_confirm(const RunDocument& d, const Expectations& e);

// Tallies of verdict states and flags, for headlines and exit codes.
struct VerdictCounts {
  int verdicts = 0;
  int pass = 0, flagged = 0, incomplete = 0, not_applicable = 0, not_a_link = 0, not_judged = 0;
  int contended = 0, throttled = 0, noisy = 0;
  int flags = 0;
  int incomplete_methods = 0;  // method verdicts that are incomplete
  int contended_methods = 0, throttled_methods = 0, noisy_methods = 0;
  // Figures measured and judged by no bar, in pairs of any verdict (--fail-on not-judged counts
  // these; `not_judged` counts pairs whose every figure is one).
  int not_judged_methods = 0;
};
VerdictCounts count_verdicts(const std::vector<PairVerdict>& v);
// "all 3 pass", or "1 flagged, 2 incomplete, 1 pass of 4 verdicts (3 flags)".
std::string verdict_headline(const VerdictCounts& c);
// Every count, none left out: "3 verdicts, 3 pass, 0 flagged, ...; 0 flags, 0 requested
// measurements missing, 5 figures judged by no bar". In every report format, not text alone.
std::string verdict_summary(const VerdictCounts& c);

// One line on what judged the figures: how many by each kind of bar (MethodVerdict::bar_source),
// and where `e` holds a site baseline, how many it had no entry for, or that it judged none.
std::string bars_used_line(const RunDocument& d, const std::vector<PairVerdict>& v,
                           const Expectations& e);
// What a site baseline's entries are for: "H200 over 2 ranks in groups NV18, driver 580, NCCL
// 2.27.3".
std::string baseline_scope(const std::vector<BaselineEntry>& entries);
// Whether a site baseline in `e` judged any of the figures.
bool baseline_judged_any(const std::vector<PairVerdict>& v);
// Where the verdicts stored in the file (by the peerbench that ran it, with its bars) differ from
// `now` (recomputed by this build, with these bars): where the headlines differ, both, and the
// flags that went or came; else "" (the same verdict with other flag codes says nothing).
std::string recorded_verdicts_note(const RunDocument& d, const std::vector<PairVerdict>& now);

// Flags and method states selected by `fail_on`: "all" (every flag and every incomplete,
// contended, throttled or noisy method), "none", or comma-separated flag codes and/or those
// states; opt_in_failing_states count only where named ("all,not-judged").
int count_failing(const std::vector<PairVerdict>& v, const std::string& fail_on);
// What count_failing counts, one item each: "link-errors flag on 0->1", "below-expected flag on
// nccl-allreduce all ranks", "staged 0->1 not-judged".
std::vector<std::string> failing_items(const std::vector<PairVerdict>& v,
                                       const std::string& fail_on);
// 1 (kExitFlagged) when count_failing > 0, else 0: the exit code of `report`, and of `run` on
// the verdicts it wrote.
int verdict_exit_code(const std::vector<PairVerdict>& v, const std::string& fail_on);
// The same for a whole run: a run whose status is "failed" (a fatal error, even one after its
// cases were measured: in a confirmation repeat or a later burn-in cycle) counts once more, as
// an incomplete measurement does (--fail-on incomplete, all). Its verdicts alone may all pass.
int run_failing(const RunDocument& d, const std::vector<PairVerdict>& v,
                const std::string& fail_on);
int run_exit_code(const RunDocument& d, const std::vector<PairVerdict>& v,
                  const std::string& fail_on);
// What run_failing counts: "the run failed" or "the run was cut short" first, then failing_items.
std::vector<std::string> run_failing_items(const RunDocument& d, const std::vector<PairVerdict>& v,
                                           const std::string& fail_on);
// Why the exit code is 1, for a report: "--fail-on all,not-judged counts staged 0->1 not-judged;
// ..." (the first six items), or "" when nothing fails. A run whose verdicts all pass can still
// exit 1 (an opt-in state, a run cut short), and the report had said nothing of why.
std::string failing_line(const RunDocument& d, const std::vector<PairVerdict>& v,
                         const std::string& fail_on);
// The same of items run_failing_items gave (report counts and words them from one list).
std::string failing_line(const std::vector<std::string>& items, const std::string& fail_on);
// What the default --fail-on (all) counts and `fail_on` does not: a flagged run that exits 0
// under --fail-on none said nothing of the flags it let pass. "" when nothing is left out.
std::string waived_line(const RunDocument& d, const std::vector<PairVerdict>& v,
                        const std::string& fail_on);
// What was in the way while `r` ran ("pid 4242 (copyloop, ...) on rank 1 (GPU 1 ...)"), whether
// the case was judged or not; "" when nothing was seen or nothing watched.
std::string interference_text(const RunDocument& d, const Result& r);
// verdict_headline, and for a failed run "; the run failed: <its first error>"; for a run cut
// short, run_cut_short's words first.
std::string run_headline(const RunDocument& d, const std::vector<PairVerdict>& v);
// Why a burn-in did not run what was asked: no end recorded (killed, or still running), or a
// signal before its -N or --duration; "" when it ran out its bound, or had none. Counts as
// incomplete in run_failing.
std::string burn_in_cut_short(const RunDocument& d);
// burn_in_cut_short, else for a file whose job never ended (in_progress left set: killed, or
// still running) "the run has no end recorded: it stopped while running <method> ..."; "" for
// a run that ended. Counts as incomplete in run_failing; `fleet` calls the node incomplete.
std::string run_cut_short(const RunDocument& d);

// The physical card behind a rank, from the run's system facts.
CardId card_of(const RunDocument& d, int rank);
// "GPU 0 (0000:00:06.0, serial 1654922003456) on vm" for messages and reports.
std::string card_label(const CardId& c);

// The headline figure of a result: algbw median (bandwidth) or time median (latency); busbw for
// collectives.
double headline_value(const MethodInfo* m, const Result& r);
// figure_is_time (core/model/method_info.h): whether that figure is a time per operation.
// That figure: the median time in us, or headline_value.
double figure_value(const MethodInfo* m, const Result& r,
                    std::uint64_t small_max = kSmallMessageMaxBytes);

// Flag codes of the verdicts (the run's rows of core/model/flag_table.h); report --fail-on accepts
// these and the states below.
std::vector<std::string> known_flag_codes();
// Method states that are not a pass and make the exit code 1 unless --fail-on leaves them out:
// incomplete, contended, throttled, noisy.
const std::vector<std::string>& failing_states();
// States that fail only where --fail-on names them, never under "all": not-judged (an acceptance
// run where no figure met a bar passed with exit 0; "all,not-judged" makes such a run fail).
const std::vector<std::string>& opt_in_failing_states();

}  // namespace peerbench
