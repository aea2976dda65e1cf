#pragma once
// The run's results as plain structs. Reporters (console, JSON, Markdown, HTML, CSV) read these;
// nothing here knows how the numbers were measured.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/diagnosis.h"
#include "core/model/method_info.h"
#include "core/model/node_evidence.h"
#include "core/model/nccl_log.h"
#include "core/model/node_evidence.h"
#include "core/model/statistics.h"
#include "core/model/topology.h"

namespace peerbench {

enum class ResultStatus { kOk, kSkipped, kNotApplicable, kError, kTimeout, kNotRun };
std::string to_string(ResultStatus s);
std::optional<ResultStatus> result_status_from_string(const std::string& s);

struct DirectionResult {
  int src = -1;
  int dst = -1;
  Stats time_us;
  Stats algbw_gbps;
};

// NVML NVLink data counters read around a copy-engine test: proof of which link carried it.
struct LinkCounters {
  std::string source;                  // "nvml-field-values"
  std::optional<double> src_tx_bytes;  // NVLink bytes the source GPU sent during the test
  std::optional<double> dst_rx_bytes;  // NVLink bytes the destination GPU received
  double payload_bytes = 0;            // bytes the test moved
  std::string note;                    // why a counter is missing
};

// How the host fed the GPU. Iterations are enqueued behind the start gate in batches the launch
// queue holds, so the host's enqueue rate never enters the timed figure; a method that cannot wait
// behind the gate (launch_bound) may have timed the host instead of the link.
struct EnqueueInfo {
  double host_us_per_op = 0;  // host wall time to enqueue one operation (its CPU cost, -C)
  int batches = 1;            // gate openings per sample
  bool launch_bound = false;  // the GPU waited for the host: not a link figure
  std::string note;           // why launch_bound, in words
};

// Another process on a GPU of a case, as NVML names it.
struct ForeignProcess {
  long long pid = 0;
  std::string name;                                // "" when NVML's pid is not visible here
  std::optional<std::uint64_t> used_memory_bytes;  // NVML's usedGpuMemory
  std::optional<int> sm_util_pct;                  // its SM utilization while seen, when known
};

// What was in the way on one GPU of a case while it ran: other processes, utilization the job
// did not cause, clocks held down.
struct GpuInterference {
  int rank = -1;  // the rank driving the GPU
  std::string host;
  int gpu_index = -1;
  std::string pci_bus_id;
  std::vector<ForeignProcess> processes;
  std::optional<int> util_gpu_pct, util_mem_pct;  // device utilization, highest seen
  // Utilization seen while no rank of the job used this GPU: a process NVML cannot name
  // (another container) is still seen this way.
  bool busy_while_idle = false;
  std::vector<std::string> throttle_reasons;  // hw-slowdown, sw-thermal, hw-thermal, ...
  bool contended() const { return !processes.empty() || busy_while_idle; }
  bool throttled() const { return !throttle_reasons.empty(); }
};

struct Result {
  std::string method;
  int src = -1;  // ranks; -1/-1 for methods over all ranks
  int dst = -1;
  std::uint64_t bytes = 0;
  ResultStatus status = ResultStatus::kNotRun;
  std::string reason;
  int warmup_iters = 0;
  int iters = 0;
  int samples = 0;
  int graph_replays = 0;  // 0: not captured in a CUDA graph
  int round = 0;
  int concurrent_pairs = 1;
  std::optional<Stats> time_us;  // per operation
  std::optional<Stats> algbw_gbps;
  std::optional<Stats> busbw_gbps;
  std::vector<DirectionResult> directions;  // bidirectional methods
  bool checked = false;
  std::uint64_t checked_elements = 0;
  std::uint64_t wrong = 0;
  int gate_timeouts = 0;  // samples whose start gate released by timeout (launch queue full)
  std::vector<double> sample_time_us;  // each sample's time per operation, in run order
  std::optional<LinkCounters> link_counters;
  // NCCL collectives: element type, reduction op (reductions) and root (rooted ones); empty / -1
  // for everything else. A run with several -d/-o has one result per variant and size.
  std::string datatype;
  std::string op;
  int root = -1;
  // The plan's size when `bytes` differs from it: collectives round down to whole elements per
  // rank, as nccl-tests does. 0: `bytes` is the planned size.
  std::uint64_t requested_bytes = 0;
  std::optional<IterationStats> per_iteration;
  std::optional<EnqueueInfo> enqueue;
  // Other processes and throttled clocks seen on the case's GPUs while it ran: nullopt when not
  // watched (no NVML, files before schema 3), empty when watched and nothing was seen.
  std::optional<std::vector<GpuInterference>> interference;
  int attempt = 0;  // 0: the plan's measurement; 1..N: a confirmation repeat (RunDocument)
};

// The size the plan asked for (requested_bytes, else bytes).
std::uint64_t planned_bytes(const Result& r);
// The coefficient of variation of the samples' times (stdev / mean), or nullopt with fewer than
// two samples recorded.
std::optional<double> sample_cv(const Result& r);
// Interference seen while the case ran: someone else's work on one of its GPUs, or clocks held.
bool contended(const Result& r);
bool throttled(const Result& r);
// The figure is the host's pace, not the GPUs': its start gate timed out (launch gaps in its
// times) or the GPU waited on the host's enqueue (launch-bound).
bool host_paced(const Result& r);
// The figure is not the link's: beside another job, clocks held, or paced by the host. Such a
// figure is shown marked and never judged against a bar.
bool not_the_links_figure(const Result& r);

// "bfloat16/max", "int8", or "" for a result without a variant.
std::string variant_label(const Result& r);
// Status ok and a figure to show (a bandwidth or a time).
bool has_figure(const Result& r);

struct RankInfo {
  int rank = -1;
  std::string host;
  int local_rank = -1;
  GpuInfo gpu;
  std::string cpu_binding;  // what peerbench did about CPU affinity, in words
  std::string host_memory;  // host<->GPU methods: where their pinned buffer is, in words
};

struct SystemInfo {
  std::vector<std::string> hosts;
  std::vector<RankInfo> ranks;
  std::string driver_version;       // NVML's, e.g. "580.159.04"; "" when NVML is absent
  int cuda_driver_version = 0;      // cudaDriverGetVersion, e.g. 13000
  int cuda_runtime_version = 0;     // cudaRuntimeGetVersion
  std::string nccl_version;         // from ncclGetVersion
  std::string mpi_library_version;  // MPI_Get_library_version, first line
};

struct ToolInfo {
  std::string name = "peerbench";
  std::string version;
  std::string git_revision;
  std::vector<std::string> command_line;
};

// NVLink error counters of one link (nvmlDeviceGetNvLinkErrorCounter); cumulative since boot,
// so a run reads them before and after. nullopt: NVML could not read that counter.
struct NvLinkErrorCounts {
  int link = 0;
  std::optional<std::uint64_t> replay, recovery, crc_flit, crc_data;
};

// Link health of one GPU over a run, read by the rank that drives it.
struct GpuLinkHealth {
  std::string host;
  int gpu_index = -1;
  std::string pci_bus_id;
  std::vector<NvLinkErrorCounts> nvlink_errors_before;  // at job start
  std::vector<NvLinkErrorCounts> nvlink_errors_after;   // at job end
  // The PCIe bar: the highest generation both GPU and slot support, and the widest width.
  std::optional<int> pcie_gen_max, pcie_gen_gpu_max, pcie_width_max;
  // What the link ran at under load (read during a copy-heavy step; idle GPUs drop the gen).
  std::optional<int> pcie_gen_under_load, pcie_width_under_load;
  std::string under_load_during;  // the step it was read in, e.g. "ce-write 0->1 1G"
  std::string note;               // what could not be read, and why
};

// One look at a GPU's activity while the job was not using it (before the first case, before
// confirmation repeats): other processes, utilization and clock reasons.
struct IdleCheck {
  double at_s = 0;   // seconds since the run started
  std::string when;  // "start", "before confirmation", ...
  bool idle = true;
  double waited_s = 0;  // --wait-idle: how long the job waited for this GPU
  std::optional<int> util_gpu_pct, util_mem_pct;
  std::vector<ForeignProcess> processes;
  std::vector<std::string> throttle_reasons;
};

// Something seen on a GPU during the run, with the times it was first and last seen.
struct ActivitySighting {
  std::string kind;        // "process", "throttle", "busy-while-idle"
  ForeignProcess process;  // kind process
  std::string reason;      // kind throttle: the clock reason; busy-while-idle: the utilization
  double first_seen_s = 0, last_seen_s = 0;
  int samples = 0;
};

// Per GPU of the job, what its rank's monitor saw of the GPU's other users.
struct GpuActivityLog {
  std::string host;
  int gpu_index = -1;
  std::string pci_bus_id;
  std::string monitor;    // "nvml", or why the GPU was not watched
  double interval_s = 0;  // sampling interval of the monitor thread
  int samples = 0;        // samples taken
  std::vector<IdleCheck> idle_checks;
  std::vector<ActivitySighting> seen;
  std::string note;  // what NVML could not tell (per-process utilization, names of other pids)
};

// One case across the cycles of a burn-in (-N, --duration): its headline figure each cycle (null
// where it failed or ran beside another process), and the cycles with data errors or failures.
struct BurnInSeries {
  std::string method;
  int src = -1, dst = -1;
  std::uint64_t bytes = 0;
  std::string datatype, op;
  // "us": values are the median time per operation (a latency size: figure_is_time); "GB/s": the
  // headline bandwidth (busbw for NCCL methods). Says which way is better for drift.
  std::string unit = "GB/s";
  std::vector<std::optional<double>> values;  // index: cycle - 1
  std::vector<int> error_cycles;              // data errors (wrong elements)
  std::vector<int> failed_cycles;             // not ok: error, timeout, not run
  std::vector<int> contended_cycles;          // beside another process or under held clocks
  // Of those, the cycles with clocks held and no other process seen: not another job's doing.
  std::vector<int> throttled_cycles;
};

// The unit of a case's series from schema 4: "us" where its figure is a time (figure_is_time),
// "GB/s" elsewhere. The writer sets it and the reader holds a file to it.
std::string burn_in_unit(const MethodInfo* m, std::uint64_t bytes);

struct BurnInCycle {
  int cycle = 0;
  double started_s = 0, elapsed_s = 0;  // since the run started
  std::uint64_t wrong = 0;              // wrong elements over the cycle's cases
  int failed = 0;                       // cases not ok
  std::vector<std::string> counters;    // error counters that grew: "link 3 replay +2 on ..."
};

struct BurnIn {
  int cycles_requested = 1;  // -N (0: until stopped)
  double duration_s = 0;     // --duration (0: none)
  int cycles_done = 0;
  std::string stopped_by;  // cycles, duration, SIGINT, SIGTERM, error ("" while running)
  std::vector<BurnInCycle> cycles;
  std::vector<BurnInSeries> series;
};

// Peer-access facts for one ordered pair of ranks.
struct PairFacts {
  int src = -1;
  int dst = -1;
  bool same_host = true;
  std::optional<bool> can_access_peer;  // cudaDeviceCanAccessPeer(src GPU, dst GPU)
  std::string peer_access;              // enabled, already-enabled, unsupported, same-gpu,
                                        // not-applicable (other host), error
  std::optional<bool> already_enabled;  // access was on before peerbench asked
  std::string error;
  std::optional<PairTransport> nccl;  // what NCCL chose for src -> dst
};

// What was captured of NCCL's log, and why not when it was not.
struct NcclCapture {
  std::string mode;  // peerbench, user-file, not-captured, not-used
  std::string note;
  std::vector<std::string> subsystems;  // subsystems the log covered
  std::vector<GraphObservation> graphs;
  std::vector<std::string> unknown_lines;
  std::string path_type;  // dominant intra-node path type of the graphs
  // NCCL's own words on why it did not take a road (P2P, SHM, IB) or which variable steered it:
  // "NCCL_P2P_DISABLE set by environment to 1", "Could not enable P2P between dev 0(=60) and dev
  // 1(=70)", each once, from the part after "NCCL INFO"/"NCCL WARN" (nccl_reason_of, nccl_log.h).
  std::vector<std::string> reasons;
};

struct Flag {
  std::string code;    // host-staged, nccl-shm, nccl-net, below-link, ...
  std::string method;  // "" when not about one method
  std::string message;
  nlohmann::json evidence;
};

// The physical card behind a rank: what a person needs to find the GPU or baseboard to send back.
struct CardId {
  int rank = -1;
  std::string host;
  int gpu_index = -1;
  std::string pci_bus_id;
  std::string uuid;
  std::string serial;  // "" when NVML did not give one (or the file predates schema 2)
};

// Verdict states (core/judge/verdict.h says when each applies). Strings, as written in the JSON.
namespace verdict_state {
inline constexpr const char* kPass = "pass";
inline constexpr const char* kFlagged = "flagged";
inline constexpr const char* kIncomplete = "incomplete";
inline constexpr const char* kNotApplicable = "not-applicable";
inline constexpr const char* kNotALink = "not-a-link";
inline constexpr const char* kNotJudged = "not-judged";
inline constexpr const char* kContended = "contended";
inline constexpr const char* kThrottled = "throttled";
inline constexpr const char* kNoisy = "noisy";
}  // namespace verdict_state

// One requested method's verdict on one pair (or over all ranks).
struct MethodVerdict {
  std::string method;
  std::string state;            // a verdict_state
  std::string reason;           // why, for every state but pass and flagged
  std::optional<double> value;  // the judged figure (GB/s, or us for latency), when measured
  std::string unit;             // "GB/s", "busbw GB/s", "us"
  std::uint64_t bytes = 0;      // the size it was judged at
  std::optional<double> bar;    // the threshold it was judged against
  std::string bar_basis;        // where the threshold came from
  // Which kind of bar that is (bar_source_names): a site's min_gbps or max_latency_us, its fleet
  // baseline, the known-good figure, the link-rate rule or a per-kind latency bar; "" none.
  std::string bar_source;
  // Where the judged size has no site-baseline entry and a smaller size this run measured does:
  // that size, held to its entry on top (smaller_size_baseline_check); 0 otherwise.
  std::uint64_t baseline_also_at = 0;
  // Which measurement settled the state: 0 the plan's, k its confirmation repeat k. Compare and
  // the fleet take that one's figure.
  int attempt = 0;
  nlohmann::json evidence;  // contended, throttled, noisy, a repeat's pass: the attempts
  // Against the known-good figure for this GPU model, link, rank count and size
  // (data/known_good): the figure, measured / figure, and where it comes from; or why none.
  std::optional<double> expected;
  std::optional<double> expected_ratio;
  std::string expected_basis;
};

// MethodVerdict::bar_source values.
inline constexpr const char* kBarSiteBar = "site-bar";            // min_gbps, max_latency_us
inline constexpr const char* kBarSiteBaseline = "site-baseline";  // fleet --write-baseline
inline constexpr const char* kBarKnownGood = "known-good";        // data/known_good
inline constexpr const char* kBarLinkRate = "link-rate";          // fraction of the raw link
inline constexpr const char* kBarLatencyTable = "latency-table";  // latency_us, small_message_us

struct PairVerdict {
  int src = -1;  // -1/-1: the all-ranks verdict (all-reduce)
  int dst = -1;
  std::string link;  // expected path: "NV18", "PIX", "NET", ...
  std::string link_description;
  std::string observed;  // one line: what the measurements and NCCL showed
  std::string verdict;   // a verdict_state: the worst of `methods` and `flags`
  std::vector<Flag> flags;
  std::vector<MethodVerdict> methods;  // every requested method for this pair
  std::vector<CardId> cards;           // src and dst GPUs; every rank's for the all-ranks verdict
  std::vector<std::string> concurrent_pairs;  // --schedule rounds: pairs that ran at the same time
};

struct Timing {
  std::optional<double> estimated_s;
  std::optional<double> elapsed_s;
};

struct RunDocument {
  int schema_version = 0;
  ToolInfo tool;
  std::string started_at;
  std::string finished_at;
  std::string status;          // complete, incomplete (cut short), failed
  nlohmann::json in_progress;  // null, or the step running when written (SCHEMA.md)
  SystemInfo system;
  nlohmann::json config;
  std::map<std::string, std::string> environment;
  std::vector<MethodInfo> methods;
  std::vector<PairFacts> pairs;
  std::optional<TopologyReport> topology;
  NcclCapture nccl;
  std::vector<Result> results;
  // Cases that would have been flagged (or ran beside another process), measured again at the end
  // of the run after an idle check (--confirm); `attempt` numbers the repeats.
  std::vector<Result> confirmations;
  std::vector<GpuActivityLog> gpu_activity;  // per GPU; empty when not watched (or schema < 3)
  std::optional<BurnIn> burn_in;             // a burn-in's cycles; `results` hold the first cycle's
  std::vector<PairVerdict> verdicts;
  std::vector<GpuLinkHealth> link_health;  // per GPU; empty when not read (or schema 1)
  // What each host said about the road between its GPUs (ACS, IOMMU, VM, container, steering
  // variables, NVLinks, fabric): one per host; empty when not read (older files).
  std::vector<NodeEvidence> node_evidence;
  // Why, and what to do next (diagnosis.h): written by `run` from its verdicts; `report`
  // recomputes it with the verdicts it judges.
  std::vector<DiagnosedCause> diagnosis;
  Timing timing;
  std::vector<std::string> errors;
};

// Host of a rank, or "" when unknown.
std::string host_of(const RunDocument& d, int rank);
const RankInfo* rank_info(const RunDocument& d, int rank);
// "rank 0 (GPU 0 on host)" style label.
std::string rank_label(const RunDocument& d, int rank);

}  // namespace peerbench
