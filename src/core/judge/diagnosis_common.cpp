// What diagnose()'s rules share (diagnosis_rules.h): a candidate from a cause table row and the
// findings it explains, and the facts of a run the rules look up.
#include <algorithm>
#include <cctype>
#include <set>

#include "core/base/text.h"
#include "core/judge/diagnosis_rules.h"
#include "core/judge/verdict.h"

namespace peerbench::diagnosis_detail {

namespace {

void add_once(std::vector<std::string>& xs, const std::string& x) {
  if (!x.empty() && std::find(xs.begin(), xs.end(), x) == xs.end()) xs.push_back(x);
}

}  // namespace

Candidate make_candidate(const Input& in, const char* code, const char* strength, Fields fields,
                         const std::function<bool(const Finding&)>& pick) {
  Candidate c;
  std::vector<std::string> hosts;
  std::set<std::string> pairs_seen;  // a cause may explain thousands of pairs
  for (std::size_t i = 0; i < in.findings.size(); ++i) {
    const Finding& f = in.findings[i];
    if (!f.flag.empty() && !cause_explains(code, f.flag)) continue;
    if (!pick(f)) continue;
    c.explains.push_back(i);
    if (pairs_seen.insert(f.pair).second) c.cause.pairs.push_back(f.pair);
    add_once(c.cause.flags, f.flag);
    add_once(c.cause.states, f.state);
    add_once(hosts, host_of_pair(in, *f.v));
  }
  // The words name GPU pairs where there are any; the all-ranks verdict is in the list it explains.
  std::vector<std::string> gpu_pairs;
  for (const auto& p : c.cause.pairs)
    if (p != "all ranks") gpu_pairs.push_back(p);
  if (!fields.count("pairs"))
    fields["pairs"] = join(gpu_pairs.empty() ? c.cause.pairs : gpu_pairs, ", ");
  if (!fields.count("flags")) fields["flags"] = join(c.cause.flags, ", ");
  if (!fields.count("host")) fields["host"] = hosts.empty() ? "this host" : hosts.front();
  if (in.d.system.hosts.size() > 1 && hosts.size() == 1) c.cause.host = hosts.front();
  DiagnosedCause words = table_cause(code, strength, fields);
  c.cause.code = std::move(words.code);
  c.cause.strength = std::move(words.strength);
  c.cause.summary = std::move(words.summary);
  c.cause.next = std::move(words.next);
  return c;
}

std::vector<bool> explained(const Input& in, const std::vector<Candidate>& so_far) {
  std::vector<bool> done(in.findings.size(), false);
  for (const auto& c : so_far)
    for (std::size_t i : c.explains) done[i] = true;
  return done;
}

bool same_bus(const std::string& a, const std::string& b) {
  if (a.empty() || a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

bool on_gpu(const Finding& f, const std::string& bus) {
  if (!f.bus.empty()) return same_bus(f.bus, bus);
  return std::any_of(f.v->cards.begin(), f.v->cards.end(),
                     [&](const CardId& c) { return same_bus(c.pci_bus_id, bus); });
}

bool nccl_method(const std::string& method) {
  return method.rfind("nccl-", 0) == 0;
}

bool figure_flag(const std::string& flag) {
  return flag == "below-link" || flag == "below-expected" || flag == "high-latency" ||
         flag == "off-baseline";
}

std::string host_of_pair(const Input& in, const PairVerdict& v) {
  const std::string h = host_of(in.d, v.src >= 0 ? v.src : 0);
  return h.empty() ? (in.d.system.hosts.empty() ? "" : in.d.system.hosts.front()) : h;
}

const PairFacts* pair_facts(const RunDocument& d, int src, int dst) {
  for (const auto& p : d.pairs)
    if (p.src == src && p.dst == dst) return &p;
  return nullptr;
}

const NodeEvidence* evidence_of(const RunDocument& d, const std::string& host) {
  for (const auto& n : d.node_evidence)
    if (n.host == host || d.node_evidence.size() == 1) return &n;
  return nullptr;
}

std::string env_value(const Input& in, const std::string& name, std::string* where) {
  const auto it = in.d.environment.find(name);
  if (it != in.d.environment.end() && !it->second.empty()) {
    if (where) *where = "environment (the run's)";
    return it->second;
  }
  for (const auto& n : in.d.node_evidence) {
    const auto e = n.steering_environment.find(name);
    if (e != n.steering_environment.end() && !e->second.empty()) {
      if (where) *where = "node evidence of " + n.host + ": steering_environment";
      return e->second;
    }
  }
  return "";
}

std::vector<std::string> reasons_with(const RunDocument& d, const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& r : d.nccl.reasons)
    if (r.rfind(prefix, 0) == 0) out.push_back(r);
  return out;
}

std::string gpu_text(const RunDocument& d, int rank) {
  const CardId c = card_of(d, rank);
  if (c.gpu_index < 0) return "rank " + std::to_string(rank);
  return "GPU " + std::to_string(c.gpu_index) + (c.pci_bus_id.empty() ? "" : " " + c.pci_bus_id);
}

std::vector<std::string> copy_engine_ratios(const PairVerdict& v) {
  std::vector<std::string> out;
  for (const auto& m : v.methods) {
    if ((m.method == "ce-write" || m.method == "ce-read") && m.expected_ratio)
      out.push_back(m.method + " " + format_fixed(*m.expected_ratio, 2));
  }
  return out;
}

}  // namespace peerbench::diagnosis_detail
