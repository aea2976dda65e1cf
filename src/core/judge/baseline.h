#pragma once
// Site baselines (issue 18): a healthy fleet's own figures, kept in an --expect file under the key
// "baseline" (written by `fleet --write-baseline`). Per GPU model, link, method, size and rank
// count (and per driver, CUDA and NCCL version where the fleet mixed them): the fleet median,
// its quartiles and range, and a bar the tolerance worse than the median. A run judged with the
// file is held to its own site's healthy median: flag off-baseline.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/json_in.h"
#include "core/model/results.h"

namespace peerbench {

// A fleet needs at least this many pairs in a group before it calls one an outlier; a site
// baseline's entry holds as many.
inline constexpr int kFleetMinGroupPairs = 3;
// A site baseline's entry comes from this many healthy nodes at least: one node is no fleet.
inline constexpr int kBaselineMinNodes = 2;

struct BaselineEntry {
  std::string model;  // GPU name as NVML prints it: "NVIDIA H200"
  std::string link;   // the verdict's link label: "NV18", "PIX", "PCIe Gen5 x16", "all"
  std::string group;  // the fleet's group label ("PCIe Gen5 x16 PIX", "all 8 GPUs")
  std::string method;
  std::uint64_t bytes = 0;
  int ranks = 0;                   // ranks of the runs it came from
  std::string driver, cuda, nccl;  // set where the fleet mixed versions: entries per version
  bool lower_is_better = false;    // latency (us)
  double median = 0, p25 = 0, p75 = 0, min = 0, max = 0;
  int pairs = 0, nodes = 0;
  double bar = 0;  // median x (1 - tolerance), or x (1 + tolerance) for latency
};

// The versions a run was measured with, spelled as the fleet spells them.
struct RunVersions {
  std::string driver, cuda, nccl;
};
RunVersions run_versions(const RunDocument& d);

// The settings of a run that change what its figures mean (-R, -a, -z, -G, in-place all-reduce):
// "" for peerbench's defaults, else e.g. "-R 2 -a 1". Keys an older file lacks read as defaults.
// With `m`, only the settings that touch that method (-R: NCCL's; in-place: the all-reduce).
std::string measurement_mode(const RunDocument& d, const MethodInfo* m = nullptr);
// A verdict's group in a fleet and a site baseline: the link label (PCIe paths: the generation
// and width both GPUs support), for all ranks their count and hosts, then the mode: "NV18",
// "PCIe Gen5 x16 PIX", "all 2 GPUs on 2 hosts", "all 2 GPUs, -R 2 -a 1". A baseline entry judges
// only a case of its own group, so a run under -R 2, or across hosts, meets no -R 0 or one-host
// median.
// With `m`, the settings that touch that method only (measurement_mode), and for a collective
// the type and reduction it was judged at where they are not float and sum ("NV18, -d half").
std::string baseline_group(const RunDocument& d, const PairVerdict& v,
                           const MethodInfo* m = nullptr);

struct BaselineQuery {
  std::string model, link, group, method;
  std::uint64_t bytes = 0;
  int ranks = 0;
  RunVersions versions;
};

// The entry for a case, or nullptr: model, link, group, method, size and rank count must match.
// Of the entries kept for the run's own versions (or for any), the one that names the most of
// driver, CUDA and NCCL, then the one drawn from the most pairs. Where every entry of the case is
// kept for other versions (a per-version baseline, a run on a new driver), the one that shares
// the most versions with the run judges it (of several, the strictest bar), and
// baseline_version_note says which it was for: a one-version baseline judged such a run and a
// per-version one judged nothing (an audit).
const BaselineEntry* find_baseline(const std::vector<BaselineEntry>& entries,
                                   const BaselineQuery& q);

// The versions a baseline's fleet ran ("from": drivers, cuda, nccl), for saying when a run on
// others is judged by entries that name none (a fleet of one version writes no per-entry ones).
struct BaselineOrigin {
  std::vector<std::string> drivers, cuda, nccl;
};
BaselineOrigin baseline_origin_from(const JsonIn& section);
// "" when the run's versions are the entry's (or, where it names none, among the origin's); else
// "the baseline's fleet ran driver X, NCCL Y; this run driver Z, NCCL W", or "the baseline's
// entry is for driver X; this run driver Z" for an entry kept per version.
std::string baseline_version_note(const BaselineEntry& e, const BaselineOrigin& from,
                                  const RunVersions& run);

nlohmann::json to_json(const BaselineEntry& e);
// The "baseline" section of an expect file: {"tolerance", "written_at", "from": {...}, "entries"}.
// Entries are read strictly (InputError naming the field): unknown keys, a method not in
// `catalog` (unless empty) and a unit other than the one its method is judged in at that size
// (`small_max`: the file's small_message_max_bytes) are refused. The provenance is kept as it is.
std::vector<BaselineEntry> baseline_entries_from(const JsonIn& section,
                                                 const std::vector<MethodInfo>& catalog,
                                                 std::uint64_t small_max);

}  // namespace peerbench
