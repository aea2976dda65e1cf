#pragma once
// The rules of diagnose() (diagnosis.h), one file per family of causes: settings and NCCL's words
// (diagnosis_settings.cpp), the container and platform (diagnosis_platform.cpp), the GPUs
// themselves and their other users (diagnosis_gpus.cpp). Internal to core/judge.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/judge/cause_table.h"
#include "core/model/diagnosis.h"
#include "core/model/results.h"

namespace peerbench::diagnosis_detail {

// One thing a cause may explain: a flag on a verdict, or a verdict state not the link's.
struct Finding {
  const PairVerdict* v = nullptr;
  std::string pair;    // "0->1", "all ranks"
  std::string flag;    // a flag code, or "" for a state
  std::string state;   // contended, throttled, incomplete (flag "")
  std::string method;  // the flag's or state's method, "" for none
  std::string bus;     // a GPU's own flag: the GPU's PCI bus id (its evidence)
};

struct Input {
  const RunDocument& d;
  const std::vector<PairVerdict>& verdicts;
  std::vector<Finding> findings;
};

// A cause and the findings it explains (indices into Input::findings).
struct Candidate {
  DiagnosedCause cause;
  std::vector<std::size_t> explains;
};

using Fields = std::map<std::string, std::string>;

// A candidate of `code` explaining the findings `pick` selects among those its row can explain
// (a state: where `pick` takes it), its words filled from `fields` and the findings ({pairs},
// {flags}, {host}); nullopt-like empty `explains` where none is picked.
Candidate make_candidate(const Input& in, const char* code, const char* strength, Fields fields,
                         const std::function<bool(const Finding&)>& pick);

// Each rule adds its candidates.
void setting_causes(const Input& in, std::vector<Candidate>& out);
void nccl_reason_causes(const Input& in, const std::vector<Candidate>& so_far,
                        std::vector<Candidate>& out);
// The container's: the findings no setting explained (`so_far`).
void container_causes(const Input& in, const std::vector<Candidate>& so_far,
                      std::vector<Candidate>& out);
void platform_causes(const Input& in, std::vector<Candidate>& out);
void gpu_causes(const Input& in, std::vector<Candidate>& out);
void activity_causes(const Input& in, std::vector<Candidate>& out);
// The causes of the findings nothing explained: one per Next line (the measurement that tells).
void unknown_causes(const Input& in, const std::vector<bool>& explained,
                    std::vector<Candidate>& out);
// cuda-order-differs where the ranks' CUDA order is not PCI order (said beside other causes).
void context_causes(const Input& in, std::vector<Candidate>& out);

// Helpers the rules share.
// Findings that `so_far` explains.
std::vector<bool> explained(const Input& in, const std::vector<Candidate>& so_far);
// Whether the finding's pair has `bus` as one of its cards (case-insensitive PCI bus id).
bool on_gpu(const Finding& f, const std::string& bus);
bool same_bus(const std::string& a, const std::string& b);
bool nccl_method(const std::string& method);
bool figure_flag(const std::string& flag);  // below-link, below-expected, high-latency, ...
std::string host_of_pair(const Input& in, const PairVerdict& v);
const PairFacts* pair_facts(const RunDocument& d, int src, int dst);
const NodeEvidence* evidence_of(const RunDocument& d, const std::string& host);
// The run's value of an environment variable, from its recorded environment or its node
// evidence; "" when unset.
std::string env_value(const Input& in, const std::string& name, std::string* where = nullptr);
// NCCL's reason lines that start with `prefix`.
std::vector<std::string> reasons_with(const RunDocument& d, const std::string& prefix);
// "GPU 0 0000:00:06.0" of a rank's card.
std::string gpu_text(const RunDocument& d, int rank);
// The ratio to known-good of the copy-engine figures on a pair ("ce-write 1.00"), where judged.
std::vector<std::string> copy_engine_ratios(const PairVerdict& v);

}  // namespace peerbench::diagnosis_detail
