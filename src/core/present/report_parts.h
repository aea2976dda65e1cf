#pragma once
// What the report formats share (core/present/report_*.cpp): the pieces of a run a
// report shows, computed once from the document and its verdicts. Internal to the reporters.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/model/result_index.h"
#include "core/model/results.h"
#include "core/present/sections.h"

namespace peerbench::report_parts {

// The type/op variants of an all-ranks method, in the order the run measured them.
std::vector<std::string> variants_of(const RunDocument& d, const std::string& method);
std::string variant_suffix(const std::string& v);  // " (float/sum)", or ""
// Methods of one scope that appear in the run's results, in the run's method order.
std::vector<const MethodInfo*> methods_in(const RunDocument& d, MethodScope scope);
// One method's column in the pair and host tables: its median at the method's largest size.
// A bandwidth method measured only at latency sizes (at most kSmallMessageMaxBytes, where the
// verdict judges time per operation) shows that time: 1 B in 3.2 us is 0.0003 GB/s, which a
// table printed as "0.0" for a healthy NVLink pair.
struct MethodColumn {
  const MethodInfo* m = nullptr;
  std::uint64_t bytes = 0;   // the largest size measured; 0 when nothing was
  bool time_per_op = false;  // cells in us, not GB/s
  std::string unit;          // "GB/s @ 1G", "us @ 8", or the unit alone when nothing was measured
};
MethodColumn column_of(const RunDocument& d, const MethodInfo* m);
// Cell for (method, pair) at the largest size: the headline number, or the status.
std::string cell(const ResultIndex& idx, const MethodColumn& c, int src, int dst);
// What makes a figure not the link's, as a mark after it in a table and in words: "!" data
// errors, "c" beside another job, "t" clocks held, "g" start gate timed out (schema 1 kept such
// samples), "h" launch-bound (the host's enqueue rate).
struct FigureMark {
  const char* mark;
  const char* words;
  bool (*on)(const Result&);
  bool always_named;  // in every legend (a reader learns them once), or only where seen
};
const std::vector<FigureMark>& figure_mark_kinds();
// The marks of a figure: "!c", or "".
std::string figure_marks(const Result& r);
// The marks a table legend names: those always named, the others where a figure of the run
// carries them.
std::vector<const FigureMark*> figure_marks_in(const RunDocument& d);
// Those marks for a legend: "'!' = data errors, 'c' = ..." with quote "'" and between " = ".
std::string figure_marks_legend(const RunDocument& d, const std::string& quote,
                                const std::string& between);
// Every case that ran beside another process or under held clocks, judged or not, grouped by
// what was seen: "pid 4242 (other-job) on rank 0 (...): nccl-sendrecv-ring all ranks 64M, ...".
std::vector<std::string> interference_lines(const RunDocument& d);
// What the report's names mean: each method of the run (its summary) and the terms a reader meets
// (busbw, NVn, NCCL's transports), as {term, meaning}.
std::vector<std::pair<std::string, std::string>> terms_of(const RunDocument& d);
// Link label per pair, from the verdicts.
std::map<std::pair<int, int>, std::string> links_of(const std::vector<PairVerdict>& vs);
std::string link_label(const std::map<std::pair<int, int>, std::string>& links, int s, int t);
std::string unit(const MethodInfo* m);  // "us", "busbw GB/s", "GB/s"

// Pair methods per ordered pair at the largest size: what the text and Markdown tables and the
// HTML heat map show.
struct PairTable {
  std::vector<MethodColumn> columns;  // a pair method each, in the run's method order
  struct Row {
    int src = -1, dst = -1;
    std::string pair, link;  // "0->1", "NV18"
    std::vector<std::string> cells;
    std::string transport;  // NCCL's, in words
  };
  std::vector<Row> rows;
};
PairTable pair_table(const RunDocument& d, const ResultIndex& idx,
                     const std::map<std::pair<int, int>, std::string>& links);

// Host<->GPU methods per GPU at the largest size, and for the every-GPU-at-once methods the
// host's total (the sum of the GPUs' medians: they ran in the same timed window).
struct HostTable {
  std::vector<const MethodInfo*> methods;
  std::vector<std::string> units;
  struct Row {
    std::string rank, gpu, link;  // "rank 2", "node1 GPU 0", "PCIe Gen5 x16"
    std::vector<std::string> cells;
  };
  std::vector<Row> rows;
  std::vector<std::string> totals;  // "h2d-all on vm: 110.6 GB/s from 2 GPUs at once @ 1G ..."
  // Where each rank's pinned host buffer was, as the run recorded it ("rank 0: 1 GiB pinned on
  // NUMA node 0, GPU's node unknown ..."): the header must not claim the GPU's node for it.
  std::vector<std::string> memory;
};
HostTable host_table(const RunDocument& d, const ResultIndex& idx,
                     const std::map<std::pair<int, int>, std::string>& links);

std::string transport_of(const ResultIndex& idx, int src, int dst);  // NCCL's, in words
std::string system_line(const RunDocument& d);
// The command the run was started with ("" when the file has none), and the variables of its
// environment that steer NCCL or pick GPUs (NCCL_*, but its log settings, CUDA_VISIBLE_DEVICES,
// PEERBENCH_HOST_ID): an acceptance report shows under what it measured (NCCL_P2P_DISABLE=1 turns
// every NCCL figure into SHM's).
std::string command_line_text(const RunDocument& d);
std::string steering_environment_text(
    const RunDocument& d);  // "2 ranks on 1 host, 2x NVIDIA H200, ..."

// Results that were not measured, grouped by method, status and reason: nothing asked for is
// dropped without saying why.
struct Unmeasured {
  std::string method, status, reason;
  std::vector<std::string> pairs;
  int cases = 0;
};
std::vector<Unmeasured> unmeasured(const RunDocument& d);

// The GPUs of the judged pairs: host, index, PCI bus id, UUID, serial.
std::vector<CardId> cards_in(const std::vector<PairVerdict>& vs);
// A card's GPU index as a technician should read it: "0", or where another card of its host
// shows the same index under another PCI id (per-task binding: each rank sees its GPU as 0),
// "0 as its rank sees it (go by the PCI id)".
std::string gpu_index_text(const CardId& c, const std::vector<CardId>& all);
std::string serial_text(const CardId& c);

// Per pair and method: the figure beside its known-good one (data/known_good), and its source;
// or, once per pair, why there is none.
struct KnownGoodRow {
  std::string pair, link, method, measured, expected, ratio, basis;
};
std::vector<KnownGoodRow> known_good_rows(const std::vector<PairVerdict>& vs);
// The known-good sources the rows name, each with its citation ("peerbench-h200x2: this
// repository: results/examples/... real peerbench runs on 2 x NVIDIA H200 ..."): a bare id told
// no reader that a ratio of 1.00 may set a run against figures drawn from runs like it (an
// audit).
std::vector<std::string> known_good_sources(const std::vector<KnownGoodRow>& rows);

// A burn-in (-N, --duration): its cycles in one line, the counters that grew, and per case the
// spread of its figure across the cycles, the drift (last quarter against the first) and the
// cycles with data errors, failures or another process beside it.
struct BurnInRow {
  std::string method, pair, size, unit, median, range, cv, drift, errors, failed, contended;
  int cycles = 0;
};
struct BurnInSummary {
  std::string headline;               // "102 cycles in 600 s (until 10m), stopped by duration; ..."
  std::vector<std::string> counters;  // "cycle 3 at 14 s: link 2 replay +1 on GPU 0 ..."
  std::vector<BurnInRow> rows;
};
std::optional<BurnInSummary> burn_in_summary(const RunDocument& d);

std::string upper(std::string s);
// A verdict as the text report shows it: upper case where it is not a pass and not neutral.
std::string verdict_word(const std::string& state);
// How a verdict state reads at a glance (HTML colours it): only pass is good.
Tone state_tone(const std::string& state);
// A state as a table cell: its word (verdict_word) and its tone.
Cell state_cell(const std::string& state);

}  // namespace peerbench::report_parts
