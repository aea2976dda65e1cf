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
//             flagged > incomplete > not-a-link > pass > not-judged > not-applicable
//   methods   one MethodVerdict per requested method, with its own state:
//     pass            measured, and within every bar that applies
//     flagged         a flag names this method (below-link, high-latency, data-errors, ...)
//     incomplete      requested and not measured: absent from a run that was cut short or
//                     failed, an error, a timeout, not run after an earlier failure, skipped
//                     for a fault, or the largest requested size missing
//     not-applicable  not possible by design (copies across hosts, no peer access: the pair's
//                     host-staged flag says so), with the reason
//     not-a-link      both ranks drive the same GPU: nothing about a link can be said
//     not-judged      measured, but no bar applies: the largest size is below judge_min_bytes
//                     (and above the small-message range), or the link kind is unknown
//   flags     {code, method, message, evidence}; codes in known_flag_codes()
//   cards     the physical GPUs (host, index, PCI bus id, UUID, serial)
//   concurrent_pairs  under --schedule rounds, the pairs that ran at the same time
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/results.h"

namespace peerbench {

// Bars, built-in or from an --expect file. Link kinds for per-kind bars: "nvlink", "pcie",
// "staged" (through host memory: the staged method, NCCL's SHM transport), "net" (the network).
struct Expectations {
  // below-link: a bandwidth median under this fraction of the raw link bandwidth (per
  // direction; twice that for bidirectional totals). H200 NV18 gives ~0.83 for ce-write, PCIe
  // P2P ~0.8, so 0.6 leaves room for noise but catches PCIe-like numbers on NVLink.
  double fraction_of_link = 0.6;
  double allreduce_fraction_of_link = 0.5;  // all-reduce busbw against the slowest local link
  double asymmetry_tolerance = 0.15;        // |a->b - b->a| / max
  // Bandwidth is judged only at sizes that fill a link. On 2 x H200 (tests/fixtures/runs/h200x2
  // default.json) copies reach 96-98% of their 1 GiB figure at 64 MiB but NCCL only 76-91%
  // (sendrecv-bidir 76%, all-reduce 82%); at 256 MiB copies are within 1%, NCCL at 85-97%.
  std::uint64_t judge_min_bytes = 256ull << 20;
  // A bandwidth method whose largest size is at most this is a latency-size run ("-b 8 -e 8"):
  // its time per operation is judged against small_message_us instead.
  std::uint64_t small_message_max_bytes = 64ull << 10;
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

std::vector<PairVerdict> compute_verdicts(const RunDocument& d, const Expectations& e);

// Tallies of verdict states and flags, for headlines and exit codes.
struct VerdictCounts {
  int verdicts = 0;
  int pass = 0, flagged = 0, incomplete = 0, not_applicable = 0, not_a_link = 0, not_judged = 0;
  int flags = 0;
  int incomplete_methods = 0;  // method verdicts that are incomplete
};
VerdictCounts count_verdicts(const std::vector<PairVerdict>& v);
// "all 3 pass", or "1 flagged, 2 incomplete, 1 pass of 4 verdicts (3 flags)".
std::string verdict_headline(const VerdictCounts& c);

// Flags and incomplete methods selected by `fail_on`: "all" (every flag and every incomplete
// method), "none", or comma-separated flag codes and/or "incomplete".
int count_failing(const std::vector<PairVerdict>& v, const std::string& fail_on);
// 1 (kExitFlagged) when count_failing > 0, else 0: the exit code of `report`.
int verdict_exit_code(const std::vector<PairVerdict>& v, const std::string& fail_on);
// `run --expect FILE` (acceptance mode): 1 when anything is flagged or incomplete, else 0.
int acceptance_exit_code(const std::vector<PairVerdict>& v);

// The physical card behind a rank, from the run's system facts.
CardId card_of(const RunDocument& d, int rank);
// "GPU 0 (0000:00:06.0, serial 1654922003456) on vm" for messages and reports.
std::string card_label(const CardId& c);

// The headline figure of a result: algbw median (bandwidth) or time median (latency); busbw for
// collectives.
double headline_value(const MethodInfo* m, const Result& r);

}  // namespace peerbench
