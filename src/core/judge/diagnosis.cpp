// diagnose(): the findings of a run's verdicts, the rules' candidates, and their ranking
// (diagnosis.h). The rules live in diagnosis_*.cpp.
#include "core/judge/diagnosis.h"

#include <algorithm>
#include <set>

#include "core/base/text.h"
#include "core/judge/diagnosis_rules.h"
#include "core/model/flag_table.h"

namespace peerbench {

using diagnosis_detail::Candidate;
using diagnosis_detail::Finding;
using diagnosis_detail::Input;

std::string diagnosis_pair_label(int src, int dst) {
  if (src < 0) return "all ranks";
  if (src == dst) return "GPU of rank " + std::to_string(src) + " host link";
  return std::to_string(src) + "->" + std::to_string(dst);
}

std::uint64_t nccl_shm_bytes_needed(int ranks) {
  constexpr std::uint64_t kBufferBytes = 9637888;  // one SHM connection's buffer, NCCL 2.28
  constexpr std::uint64_t kChannels = 4;           // what it took between 2 H200s, P2P off
  const std::uint64_t r = static_cast<std::uint64_t>(std::max(ranks, 2));
  return r * (r - 1) * kChannels * kBufferBytes;
}

bool shm_too_small(const std::optional<std::uint64_t>& shm_bytes, int ranks) {
  return ranks >= 2 && shm_bytes && *shm_bytes < nccl_shm_bytes_needed(ranks);
}

bool nccl_switch_on(const std::string& value) {
  return !value.empty() && value != "0";
}

std::string setpci_acs_off(const std::vector<std::string>& bridges) {
  std::vector<std::string> commands;
  for (const auto& b : bridges) commands.push_back("setpci -s " + b + " ECAP_ACS+0x6.w=0000");
  return join(commands, " and ");
}

std::string shm_mib(std::uint64_t bytes) {
  return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB";
}

namespace {

namespace vs = verdict_state;

// The flags of every verdict that is not a pass, and the states a cause may explain.
std::vector<Finding> findings_of(const std::vector<PairVerdict>& verdicts) {
  std::vector<Finding> out;
  for (const auto& v : verdicts) {
    const std::string pair = diagnosis_pair_label(v.src, v.dst);
    for (const auto& f : v.flags) {
      Finding x{&v, pair, f.code, "", f.method, ""};
      const FlagInfo* info = find_flag(f.code);
      if (info && info->scope == FlagScope::kGpu && f.evidence.is_object() &&
          f.evidence.contains("pci_bus_id") && f.evidence["pci_bus_id"].is_string())
        x.bus = f.evidence["pci_bus_id"].get<std::string>();
      out.push_back(std::move(x));
    }
    for (const auto& m : v.methods) {
      if (m.state == vs::kContended || m.state == vs::kThrottled || m.state == vs::kIncomplete)
        out.push_back({&v, pair, "", m.state, m.method, ""});
    }
  }
  return out;
}

int strength_rank(const std::string& s) {
  if (s == cause_strength::kConfirmed) return 0;
  if (s == cause_strength::kLikely) return 1;
  if (s == cause_strength::kSuspected) return 2;
  return 3;
}

int table_rank(const std::string& code) {
  const auto& t = cause_table();
  for (std::size_t i = 0; i < t.size(); ++i)
    if (code == t[i].code) return static_cast<int>(i);
  return static_cast<int>(t.size());
}

// Strongest evidence first; of equal strength, the cause that explains more; then table order.
void rank(std::vector<Candidate>& cs) {
  std::stable_sort(cs.begin(), cs.end(), [](const Candidate& a, const Candidate& b) {
    const int sa = strength_rank(a.cause.strength), sb = strength_rank(b.cause.strength);
    if (sa != sb) return sa < sb;
    if (a.explains.size() != b.explains.size()) return a.explains.size() > b.explains.size();
    return table_rank(a.cause.code) < table_rank(b.cause.code);
  });
}

// Which findings a flag needs a cause for: every flag; a state only where a rule took it (a run
// cut short is said by the verdict line; a held or contended figure by its own cause).
std::vector<bool> explained_by(const Input& in, const std::vector<Candidate>& cs) {
  std::vector<bool> done(in.findings.size(), false);
  for (std::size_t i = 0; i < in.findings.size(); ++i) done[i] = !in.findings[i].state.empty();
  for (const auto& c : cs)
    for (std::size_t i : c.explains) done[i] = true;
  return done;
}

}  // namespace

std::vector<DiagnosedCause> diagnose(const RunDocument& d,
                                     const std::vector<PairVerdict>& verdicts) {
  Input in{d, verdicts, findings_of(verdicts)};
  if (in.findings.empty()) return {};
  std::vector<Candidate> cs;
  diagnosis_detail::setting_causes(in, cs);
  diagnosis_detail::container_causes(in, std::vector<Candidate>(cs), cs);
  diagnosis_detail::platform_causes(in, cs);
  diagnosis_detail::gpu_causes(in, cs);
  diagnosis_detail::activity_causes(in, cs);
  diagnosis_detail::nccl_reason_causes(in, std::vector<Candidate>(cs), cs);
  cs.erase(
      std::remove_if(cs.begin(), cs.end(), [](const Candidate& c) { return c.explains.empty(); }),
      cs.end());
  diagnosis_detail::unknown_causes(in, explained_by(in, cs), cs);
  if (cs.empty()) return {};  // nothing but states no rule takes (a run cut short)
  rank(cs);
  diagnosis_detail::context_causes(in, cs);
  std::vector<DiagnosedCause> out;
  for (auto& c : cs) out.push_back(std::move(c.cause));
  return out;
}

}  // namespace peerbench
