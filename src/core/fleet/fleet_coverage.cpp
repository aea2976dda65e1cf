// What a node covered beside the fleet: the methods its GPU model's nodes ran, its own GPUs and
// pairs, and the cases it lacks at the fleet's sizes; each shortfall is one of its problems.
#include <algorithm>
#include <map>
#include <set>

#include "core/base/text.h"
#include "core/fleet/fleet_assembly.h"
#include "core/model/sizes.h"

namespace peerbench::fleet_detail {
namespace {

// What a node left out of its own GPUs: GPUs its topology lists that no rank ran on (--np
// smaller than the node, a GPU lost), pairs a pair method did not answer for (--pairs).
void add_own_coverage_problems(FleetNode& n) {
  if (n.gpus_listed > n.gpus_run && n.gpus_run > 0) {
    n.problems.push_back("ran on " + std::to_string(n.gpus_run) + " of the " +
                         std::to_string(n.gpus_listed) + " GPUs its topology lists");
  }
  if (!n.pairs_short.empty()) {
    n.problems.push_back(
        "measured fewer pairs than its " + std::to_string(n.gpus_run) +
        " GPUs make: " + some_of(n.pairs_short, 4) +
        (n.pairs_spec.empty() || n.pairs_spec == "all" ? "" : " (--pairs " + n.pairs_spec + ")"));
  }
}

}  // namespace

// A node that ran fewer methods than at least half of the fleet's nodes of its GPU model, or
// fewer GPUs or pairs than it has, has not shown what they showed: it passed before on whatever
// it measured (a node run with one method of twelve, or on 2 of its 4 GPUs, passed beside nodes
// that ran everything; audits). At least half, not any: one node of three run with an extra
// method leaves the others as they were; in a tie the nodes that ran less are incomplete.
void add_coverage_problems(std::vector<FleetNode>& nodes) {
  std::map<std::string, std::map<std::string, int>> ran;  // model -> method -> nodes
  std::map<std::string, int> of_model;                    // model -> nodes
  for (const auto& n : nodes) {
    for (const auto& model : n.gpu_models) {
      for (const auto& m : n.methods_run) ++ran[model][m];
      ++of_model[model];
    }
  }
  for (auto& n : nodes) {
    if (n.file.empty() || !n.problems.empty()) continue;  // missing, unreadable, cut short: said
    add_own_coverage_problems(n);
    std::set<std::string> missing;
    std::string model_of_missing;
    int fewest = 0;  // the fewest nodes that ran one of the missing methods
    for (const auto& model : n.gpu_models) {
      for (const auto& [m, count] : ran[model]) {
        if (2 * count < of_model[model] || n.methods_run.count(m) || !missing.insert(m).second)
          continue;
        // The count and the model named together are one model's (a mixed node has several).
        if (model_of_missing.empty() || count < fewest) {
          fewest = count;
          model_of_missing = model;
        }
      }
    }
    if (missing.empty()) continue;
    n.problems.push_back("did not run " + some_of({missing.begin(), missing.end()}) + " (" +
                         std::to_string(missing.size()) + " method" +
                         (missing.size() == 1 ? "" : "s") + " run on at least " +
                         std::to_string(fewest) + " of the fleet's " +
                         std::to_string(of_model[model_of_missing]) + " " + model_of_missing +
                         " nodes): run the node as they were run");
  }
}

// "12 cases not measured at the fleet's size 1 GiB (ce-bidir, ce-read, ...; its largest: 64 MiB)"
void say_sizes_not_measured(FleetNode& n) {
  std::uint64_t largest = 0;
  for (const auto& p : n.pairs) {
    for (const auto& m : p.measurements) largest = std::max(largest, m.bytes);
  }
  for (const auto& [bytes, at] : n.short_of_size) {
    n.problems.push_back(count_of(at.cases, "case") + " not measured at the fleet's size " +
                         format_size(bytes) + " (" +
                         some_of({at.methods.begin(), at.methods.end()}) +
                         (largest > 0 && largest < bytes ? "; its largest: " + format_size(largest)
                                                         : std::string()) +
                         ")");
  }
  for (const auto& [bytes, at] : n.unplaced_at_size) {
    n.problems.push_back(count_of(at.cases, "case") + " at the fleet's size " + format_size(bytes) +
                         " (" + some_of({at.methods.begin(), at.methods.end()}) +
                         ") measured beside another job, with clocks held or with launch gaps: "
                         "not the link's figure, measure again");
  }
}

}  // namespace peerbench::fleet_detail
