#pragma once
// Verdicts: per ordered pair, the path the topology promises against what the measurements and
// NCCL showed. GPU-free: computed on rank 0 at the end of a run, and again by `report` from any
// run's JSON (with a site's own thresholds from --expect).
#include <map>
#include <string>
#include <vector>

#include "core/results.h"

namespace peerbench {

struct Expectations {
  // below-link: a method's median at the largest size under this fraction of the raw link
  // bandwidth (per direction; twice that for bidirectional totals). H200 NV18 gives ~0.83 for
  // ce-write, PCIe P2P ~0.8, so 0.6 leaves room for noise but catches PCIe-like numbers on NVLink.
  double fraction_of_link = 0.6;
  double allreduce_fraction_of_link = 0.5;  // all-reduce busbw against the slowest local link
  double asymmetry_tolerance = 0.15;        // |a->b - b->a| / max
  std::map<std::string, double> min_gbps;   // per method: absolute floor (site acceptance)
  std::string source = "built-in defaults";
};

// Reads an --expect file:
//   {"fraction_of_link": 0.7, "allreduce_fraction_of_link": 0.6, "asymmetry_tolerance": 0.1,
//    "min_gbps": {"ce-write": 380, "nccl-allreduce": 330}}
// Unknown keys are refused (a typo must not silently disable a threshold).
Expectations load_expectations(const std::string& path);
Expectations expectations_from_json(const nlohmann::json& j, const std::string& file);

std::vector<PairVerdict> compute_verdicts(const RunDocument& d, const Expectations& e);

// Number of flags whose code is selected by `fail_on` ("all", "none", or comma-separated codes).
int count_failing_flags(const std::vector<PairVerdict>& v, const std::string& fail_on);

// The result of `method` for src->dst at the largest size with status ok, or nullptr.
const Result* largest_ok_result(const RunDocument& d, const std::string& method, int src, int dst);

// The headline figure of a result: algbw median (bandwidth) or time median (latency); busbw for
// collectives.
double headline_value(const MethodInfo* m, const Result& r);

}  // namespace peerbench
