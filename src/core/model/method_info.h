#pragma once
// What a transfer method is, as data: the catalogue (core/model/method_catalog.h) declares one
// MethodInfo per method, and the core uses the list for option validation, --list-methods, plans,
// reports and verdicts, without knowing how any method runs; the GPU layer attaches each entry's
// implementation.
#include <string>
#include <vector>

#include "core/model/bandwidth.h"
#include "core/model/sizes.h"

namespace peerbench {

// kPair: one ordered (or, bidirectional, unordered) pair of ranks per result. kAllRanks: one
// collective over every rank, src = dst = -1. kPerGpu: one GPU and its host (h2d, d2h), one
// result per rank with src = dst = that rank.
enum class MethodScope { kPair, kAllRanks, kPerGpu };
enum class Metric { kBandwidth, kLatency };

// Families group methods for verdicts: "ce" (copy engine), "sm" (kernels dereferencing peer
// memory), "staged" (through pinned host memory), "nccl", "host" (copies between a GPU and
// pinned host memory).
struct MethodInfo {
  std::string name;
  std::string summary;
  std::string family;
  MethodScope scope = MethodScope::kPair;
  Metric metric = Metric::kBandwidth;
  Collective collective = Collective::kCopy;
  bool bidirectional = false;   // moves a->b and b->a at once; one result per unordered pair
  bool needs_p2p = false;       // skipped with a reason when the pair cannot peer
  bool same_host_only = false;  // not-applicable across hosts
  bool uses_nccl = false;
  bool graph_capturable = true;   // -G captures its iterations in a CUDA graph
  bool fixed_size = false;        // ignores the sweep; runs at --latency-bytes
  unsigned fixed_bytes = 0;       // with fixed_size: this size instead of --latency-bytes
  bool typed = false;             // runs once per -d/--datatype
  bool reduces = false;           // runs once per -o/--op
  bool rooted = false;            // takes -r/--root
  bool all_gpus_at_once = false;  // kPerGpu: every GPU of the job in one step (h2d-all)
  bool host_staged = false;       // copies through the job's host staging ring (staged)
  // Ranks that time one case, whose times -a combines: 1 (one end), 2 (both ends), 0 (every rank
  // of the job). The GPU registry checks it against the implementation's workers().
  int workers = 1;
  // Runs back to back behind the start gate, so -I's per-iteration sample can time it (staged
  // paces itself and takes none). The GPU registry checks it against use_start_gate().
  bool start_gated = true;
};

// Named groups accepted by --methods besides method names.
struct MethodGroup {
  std::string name;
  std::string summary;
};
std::vector<MethodGroup> method_groups();

// Expands a comma-separated --methods value ("all", "ce", "nccl-allreduce,sm-read", ...) into
// method names in catalog order, without duplicates. Throws UsageError naming the flag and the
// names allowed.
std::vector<std::string> resolve_methods(const std::string& spec,
                                         const std::vector<MethodInfo>& catalog);

const MethodInfo* find_method(const std::vector<MethodInfo>& catalog, const std::string& name);

// Whether a figure at `bytes` is a time per operation: a latency method's, and a bandwidth
// method's at latency sizes (up to `small_max`, Expectations::small_message_max_bytes), where
// 8 B is 0.0 GB/s. Verdicts judge it; reports, compare, fleet and burn-in series show it.
bool figure_is_time(const MethodInfo* m, std::uint64_t bytes,
                    std::uint64_t small_max = kSmallMessageMaxBytes);

std::string to_string(MethodScope s);
std::string to_string(Metric m);

}  // namespace peerbench
