#pragma once
// Fleet acceptance: many nodes' results files, one verdict. Each node keeps its own verdicts and
// gets a position in the fleet: per method at the judged size, grouped by GPU model and link
// kind, the fleet median and spread and each pair's ratio to that median. A pair worse than the
// median by more than a tolerance is flagged `fleet-outlier`. Plain structs; the reporters in
// fleet_report.h render them.
#include <algorithm>
#include <cstdint>
#include <exception>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/judge/baseline.h"  // kFleetMinGroupPairs, kBaselineMinNodes
#include "core/model/diagnosis.h"
#include "core/model/flag_table.h"
#include "core/model/results.h"
#include "core/model/versions.h"
#include "core/platform/input_limits.h"  // kMaxFolderDepth, kMaxHosts, ...

namespace peerbench {

enum class FleetFormat { kText, kMarkdown, kHtml, kCsv, kJunit, kOpenMetrics };

struct FleetOptions {
  std::vector<std::string> paths;  // results files or folders (searched for *.json)
  std::string write_baseline;      // --write-baseline FILE: the healthy medians as an expect file
  std::string hosts_file;          // expected nodes, one name per line
  std::string expect_path;         // verdict thresholds plus fleet_outlier_tolerance
  FleetFormat format = FleetFormat::kText;
  std::string output_path;  // "" = stdout
  std::string plots_dir;    // PNGs from scripts/plot_fleet.py to embed (HTML) or link (Markdown)
};

// One method on one pair at one size: the headline figure (GB/s, or us for latency).
struct Measurement {
  std::string method;
  std::uint64_t bytes = 0;
  double value = 0;
  bool lower_is_better = false;  // latency
  // Goes GPU -> pinned host memory -> GPU (staged): a slow figure is the host's memory path, not
  // the pair's link, whatever the pair's link is.
  bool through_host = false;
  bool both_ways = false;  // a bidirectional method: its figure is both directions' sum
  // GPU time of the case's iterations, warm-up and timed (at the median time per operation):
  // what a CI system shows as the test's time.
  double seconds = 0;
};

// Where a pair sits in its fleet group for one method.
struct FleetPosition {
  std::string method;
  std::uint64_t bytes = 0;
  double value = 0;
  double fleet_median = 0;
  double ratio = 0;  // value / median
  bool lower_is_better = false;
  bool outlier = false;
  bool group_judged = false;  // the group held enough pairs to call one an outlier
  // Set on a figure of a pair with none at its group's size (its run stopped short, or that
  // size's figure was not the link's): the group's size, this figure being at the largest size
  // the pair has, beside the fleet's figures there (FleetPair::short_positions).
  std::uint64_t fleet_bytes = 0;
  // The ratio as every report gives it, under 1 worse: for a latency, median / value (the CSV and
  // OpenMetrics gave a slower latency 1.007 and a faster one 0.993, against the text; an audit).
  double goodness() const { return lower_is_better ? 1 / std::max(ratio, 1e-9) : ratio; }
};

// One ordered pair of GPUs of a node (or the node's GPUs together, for all-rank methods).
struct FleetPair {
  std::string src_pci;   // "all" for methods over all ranks
  std::string dst_pci;   // "all"; "host/pci" when the peer is on another host
  bool one_gpu = false;  // a host<->GPU method: one rank and its host (not two ranks on one GPU)
  std::string gpu_model;
  std::string link;        // group label: "NV18", "PCIe Gen5 x16 PIX", "NET", "all 8 GPUs"
  std::string link_label;  // the verdict's own label ("NV18", "PIX", "PCIe Gen5 x16", "all")
  int ranks = 0;           // ranks of the run it came from
  // pass, flagged, incomplete, contended, throttled, noisy (not a pass: the node is not judged
  // healthy), or not-counted (not applicable, same GPU, not judged)
  std::string state;
  // Why, for a state that is not a pass, method by method: the CSV's rows and JUnit's cases of
  // those methods carry them (a row without a method, a "pair" test case, lost them to filters
  // and CI histories; an audit).
  std::vector<std::pair<std::string, std::string>> note_by_method;
  std::string note() const;  // the same in one line: "method: reason; ..."
  // NVML's reasons for held clocks seen on its GPUs while the cases its verdict settled on ran
  // (hw-thermal, sw-power-cap, ...): the fleet's advice rests on these, not on the note's words.
  std::set<std::string> throttle_reasons;
  std::vector<Flag> flags;  // the run's own flags, then fleet-outlier
  // A state that keeps the node from passing, without a flag of its own.
  bool unsettled() const {
    return state == "incomplete" || state == "contended" || state == "throttled" ||
           state == "noisy";
  }
  std::vector<Measurement> measurements;  // every size measured ok
  // (method, bytes) measured but kept out of the fleet: beside another job, held clocks, launch
  // gaps. A fleet size among them is not "not measured" (an audit); where the pair's state does
  // not say why (its verdict judged another size), the node's problems do (a review).
  std::set<std::pair<std::string, std::uint64_t>> left_out;
  std::vector<FleetPosition> positions;
  // Per method with no figure at its group's size, the figure at the largest size it has, set
  // beside every member's there (FleetReport::short_groups): drawn on the chart and listed in the
  // CSV and OpenMetrics, so a node that stopped at 64 MiB does not vanish from them (an audit: a
  // FAIL over a chart where every dot sat at 1.00). Never judged: no fleet-outlier flag, no
  // worst ratio (the node is incomplete for the size it lacks).
  std::vector<FleetPosition> short_positions;
  // The lowest of its methods' figure / known-good figure where a verdict judged the link (pass
  // or flagged); 0 where none had one. NCCL at 0.10 of known-good over shared memory showed
  // 0.98 against the fleet's medians, judged at a size it never ran (an audit).
  double known_good_ratio = 0;
  // Per method, the bar its verdict held the figure to (MethodVerdict::bar, bar_source, bytes),
  // where a pass or a flag rests on it: the fleet's chart draws it beside the median.
  struct JudgedBar {
    std::uint64_t bytes = 0;
    double bar = 0;
    std::string source;   // a MethodVerdict::bar_source
    double expected = 0;  // the known-good figure a known-good bar is a share of (0: none)
  };
  std::map<std::string, JudgedBar> bars;
  // Per method whose verdict judged nothing (not-judged), why: JUnit skips it rather than pass it
  // (NCCL at 0.11 of known-good, not judged, was a passing test; an audit).
  std::map<std::string, std::string> not_judged;
  // Per method, its group where the run's settings touch that method (-R: NCCL's only); the
  // fleet's groups and site baselines go by it.
  std::map<std::string, std::string> group_by_method;
  const std::string& group_of(const std::string& method) const {
    const auto it = group_by_method.find(method);
    return it == group_by_method.end() ? link : it->second;
  }
  std::string name() const {
    if (src_pci == "all") return "all GPUs";
    if (one_gpu) return src_pci + "<->host";
    return src_pci + "->" + dst_pci;
  }
};

// Worst first: the order nodes are listed in.
enum class NodeState { kFlagged, kIncomplete, kMissing, kPass };
std::string to_string(NodeState s);

// What a flag code says of a node, for ordering and for the first thing to do about it: its
// row's kind in core/model/flag_table.h.
FlagKind flag_kind(const std::string& code);

// The unit of a fleet figure of `method`: "us" (latency, and times at latency sizes), "busbw
// GB/s" for NCCL's methods (what their verdicts and known-good figures say), else "GB/s".
std::string fleet_unit(const std::string& method, bool lower_is_better);

struct NodeVersions {
  std::string driver, cuda, nccl;  // "" unknown
};

struct FleetNode {
  std::string host;
  std::string file;  // "" for a missing node
  std::string started_at;
  double elapsed_s = 0;  // the run's wall time, where it recorded one
  NodeState state = NodeState::kPass;
  std::vector<std::string> problems;  // why incomplete, in words
  std::vector<FleetPair> pairs;
  // Why its flags, and what to do next (core/judge/diagnosis.h): the causes of its run that are
  // this host's (all of a one-host run's); `fleet` groups nodes by their codes.
  std::vector<DiagnosedCause> causes;
  NodeVersions versions;
  std::set<std::string> gpu_uuids;  // its GPUs' UUIDs, where the run recorded them
  // Other nodes naming one of those GPUs: one machine's results under several names, not
  // independent evidence (FleetReport::nodes_sharing_gpus); CI's formats carry it too.
  std::set<std::string> shares_gpus_with;
  // With a site baseline given: whether it judged any figure of this node's run.
  std::optional<bool> baseline_judged;
  // What the node's run covered: the methods it was asked for (config, else its results) and
  // its GPU models, which the fleet compares with the other nodes of its model; the GPUs it ran
  // on beside those its topology lists (0: not recorded), and each pair method that answered for
  // fewer pairs of its GPUs than they make; --pairs as given.
  std::set<std::string> methods_run, gpu_models;
  int gpus_listed = 0, gpus_run = 0;
  std::vector<std::string> pairs_short;  // "ce-write 1 of 2": pair methods short of its pairs
  // Per fleet size, the methods of this node's pairs not measured at it, and how many cases:
  // one problem line per size (sixteen lines for a run cut at 64 MiB read as sixteen faults).
  struct CasesAtSize {
    std::set<std::string> methods;
    int cases = 0;
    void add(const std::string& method) {
      methods.insert(method);
      ++cases;
    }
  };
  std::map<std::uint64_t, CasesAtSize> short_of_size;
  // The same for cases measured there whose figure is not the link's (another job, held clocks,
  // launch gaps) where the pair's own verdict did not say so: one problem line per size.
  std::map<std::uint64_t, CasesAtSize> unplaced_at_size;
  std::string pairs_spec;
  // The lowest "goodness" of the node's figures: against the fleet median (1 = at it) and against
  // the known-good figure (FleetPair::known_good_ratio), under 1 worse.
  double worst_ratio = 0;
  bool has_ratio = false;  // some figure of the node was set beside the fleet's or known-good
  int flag_count() const;
  bool has_flag_of(FlagKind k) const;
};

// One group of the fleet: a method on one GPU model and link kind, at one size.
struct FleetGroup {
  std::string method, gpu_model, link;
  std::uint64_t bytes = 0;
  bool lower_is_better = false;
  bool through_host = false;  // Measurement::through_host
  bool both_ways = false;     // Measurement::both_ways
  int pairs = 0;
  int nodes = 0;
  double median = 0, p25 = 0, p75 = 0, min = 0, max = 0;
  bool judged = false;  // enough members to flag outliers
  // A group at a smaller size than the fleet's, for members short of it: that size (the group's
  // own `bytes` is the smaller one). 0 for the fleet's groups.
  std::uint64_t fleet_bytes = 0;
};

// Nodes by one version field: value -> nodes.
struct VersionSpread {
  std::string what;  // driver, CUDA, NCCL
  std::map<std::string, std::vector<std::string>> nodes_by_value;
  // Two known values or more: nodes that recorded none ("unknown") mix nothing.
  bool mixed() const { return nodes_by_value.size() - nodes_by_value.count("unknown") > 1; }
};

// In a fleet that mixes versions, one group's figures split by a version: the nodes on `slow`
// have a median worse than those on `fast` by more than the outlier tolerance. Each half sits
// near the pooled median, so no node is an outlier (an audit: 2 of 4 nodes on a new driver 12 %
// slower, and all passed with no word of it).
struct VersionGap {
  std::string what;  // driver, CUDA, NCCL ("driver, NCCL" where both changed on the same nodes)
  std::string slow, fast;  // "driver 590.10.01", or "driver 590.10.01 and NCCL 2.29.1"
  std::set<std::string> slow_hosts, fast_hosts;
  int slow_nodes = 0, fast_nodes = 0;
  std::string method, gpu_model, link;
  std::uint64_t bytes = 0;
  bool lower_is_better = false;
  double slow_median = 0, fast_median = 0;
  double shortfall = 0;  // how much worse the slow version's median is, as a fraction
  std::string text() const;
};

struct FleetReport {
  std::vector<FleetNode> nodes;  // worst first
  std::vector<FleetGroup> groups;
  // For members with no figure at their group's size: the fleet's figures at the size they
  // stopped at (FleetPair::short_positions), each after its fleet group's place in `groups`.
  std::vector<FleetGroup> short_groups;
  std::vector<VersionSpread> versions;
  std::vector<VersionGap> version_gaps;  // worst first
  std::vector<std::string> notes;        // duplicates, nodes not in --hosts, skipped inputs
  // A site baseline (--expect) that judged no figure on some nodes: which, and what its entries
  // are for; the verdict line carries it ("PASS" against a baseline that judged nothing read as
  // a pass against it; an audit). "" when it judged every node, or none was given.
  std::string baseline_unused;
  // Nodes whose results name a GPU (by UUID) another node's name too: one machine's results under
  // several host names, not independent nodes; the verdict line says how many (0: none).
  int nodes_sharing_gpus = 0;
  // Hosts found in more than one results file: each one's earlier runs, oldest first (only its
  // latest run counts in the fleet).
  struct EarlierRun {
    std::string file;
    int flags = 0;                // the run's own flags
    bool unsettled = false;       // a problem reading it, or a pair not measured, contended, ...
    std::set<std::string> cases;  // node_cases: what `compare` could match with another run
  };
  std::map<std::string, std::vector<EarlierRun>> earlier_runs;
  double outlier_tolerance = 0.10;
  std::string expectations_source;
  bool hosts_given = false;
  std::vector<std::string> inputs;  // every file read: results, --hosts, --expect
  int count(NodeState s) const;
};

// A node's measured cases ("ce-write 0000:06->0000:07 1073741824", with its rank count): two runs
// of a host that share none cannot be compared (fleet suggested a history that exited 2).
std::set<std::string> node_cases(const FleetNode& n);

// Every group where one version's nodes are beyond `tolerance` worse than another's (each side
// two nodes at least; a node that is the group's outlier is its own finding and left out), the
// worst pair of versions per group and version field; fields that changed on the same nodes
// (driver and NCCL together) are one gap.
std::vector<VersionGap> version_gaps(const std::vector<FleetNode>& nodes,
                                     const std::vector<FleetGroup>& groups,
                                     const std::vector<VersionSpread>& spreads, double tolerance);

// The interpolated q-quantile of sorted values (q in [0, 1]).
double quantile(const std::vector<double>& sorted, double q);

// What the paths given to fleet hold: files given directly, then every *.json (that is not a
// folder) under the folders, sorted per folder; and folders that could not be searched, with the
// reason. Symbolic links to folders are followed, but each folder (device and inode) is searched
// once, so links cannot loop; folders more than kMaxFolderDepth below a path are not searched
// (input_limits.h). Throws UsageError for a path that does not exist, or when the folders hold
// more than `max_entries` entries in all (a walk that would not end soon: /proc/self).
struct ResultFiles {
  std::vector<std::string> files;
  std::vector<std::pair<std::string, std::string>> unreadable;  // folder, why
  std::set<std::string> named;  // the files of `files` given by name, not found in a folder
};
ResultFiles collect_result_files(const std::vector<std::string>& paths,
                                 std::size_t max_entries = kMaxFolderEntries);

// What a file that load_run_file refused (`why`) is, where it is JSON but no run at all: "a
// topology file (topo --json)", "a site baseline (...)", "a JSON array", "a JSON file of kind
// 'x'", ...; "" where it may be a run that is damaged (not JSON, cut short, a field refused).
// Named on the command line, such a file is refused by fleet, report and compare alike.
std::string not_a_run(const std::string& path, const std::exception& why);

// Expected node names from a --hosts file (core/input_file's rules and size limit): one per
// line, blank lines, # comments and a UTF-8 byte-order mark ignored. Throws InputError when
// unreadable, naming no host, holding a name of control characters or over kMaxHostNameBytes, or
// more than kMaxHosts names (input_limits.h).
std::vector<std::string> load_host_list(const std::string& path);

// Fills the fleet figures into nodes already read: duplicates resolved (the later run counts),
// missing hosts added, groups and positions computed, states set, nodes sorted worst first.
FleetReport assemble_fleet(std::vector<FleetNode> nodes, const std::vector<std::string>& hosts,
                           bool hosts_given, double tolerance);

// Sets every pair with no figure at its group's size beside the fleet at the largest size it has
// (FleetPair::short_positions, FleetReport::short_groups); judges nothing.
void place_short_members(FleetReport& r);

// Everything `peerbench fleet` does short of writing the output: read, judge, assemble.
// `catalog`: the methods this peerbench has, for checking the --expect file.
FleetReport build_fleet(const FleetOptions& o, const std::vector<MethodInfo>& catalog);

// 0 all pass, 1 anything flagged, incomplete or missing.
int fleet_exit_code(const FleetReport& r);

}  // namespace peerbench
