// A case (method, pair, size, datatype, op) as the confirmation repeats name it.
#include <tuple>

#include "core/judge/verdict.h"

namespace peerbench {

using nlohmann::json;

bool CaseKey::operator<(const CaseKey& o) const {
  return std::tie(method, src, dst, bytes, datatype, op) <
         std::tie(o.method, o.src, o.dst, o.bytes, o.datatype, o.op);
}

CaseKey case_key(const Result& r) {
  return {r.method, r.src, r.dst, r.bytes, r.datatype, r.op};
}

json to_json(const CaseKey& k) {
  return json{{"method", k.method}, {"src", k.src},           {"dst", k.dst},
              {"bytes", k.bytes},   {"datatype", k.datatype}, {"op", k.op}};
}

CaseKey case_key_from_json(const json& j) {
  CaseKey k;
  k.method = j.at("method").get<std::string>();
  k.src = j.at("src").get<int>();
  k.dst = j.at("dst").get<int>();
  k.bytes = j.at("bytes").get<std::uint64_t>();
  k.datatype = j.at("datatype").get<std::string>();
  k.op = j.at("op").get<std::string>();
  return k;
}

int settled_attempt(const std::vector<PairVerdict>& vs, const Result& r) {
  for (const auto& v : vs) {
    if (v.src != r.src || v.dst != r.dst) continue;
    for (const auto& m : v.methods)
      if (m.method == r.method && m.bytes == r.bytes) return m.attempt;
  }
  return 0;
}

const Result* settled_result(const RunDocument& d, const Result& r, int attempt) {
  if (attempt <= 0) return &r;
  const CaseKey key = case_key(r);
  for (const auto& x : d.confirmations) {
    const CaseKey k = case_key(x);
    if (!(k < key) && !(key < k) && x.attempt == attempt && has_figure(x)) return &x;
  }
  return &r;
}

std::string host_path_suspect(const std::string& link) {
  // Over NVLink the staged copy leaves the link aside; over PCIe it crosses the GPUs' own links
  // too, and an unknown link ("?", per-task binding) is named by nobody (a review).
  if (link.rfind("NV", 0) == 0)
    return "(through host memory: the host's memory path, not the " + link +
           " link, is the suspect)";
  return "(through host memory: the host's memory path and the GPUs' PCIe links to it, not a "
         "GPU-to-GPU link, are the suspects)";
}

bool placeable(const RunDocument& d, const Result& r) {
  // A schema-1 figure whose start gate timed out includes launch gaps; its verdict judges nothing
  // (verdict_trust.cpp), and it joined the fleet's medians all the same (an audit).
  if (!has_figure(r) || contended(r) || throttled(r) || r.gate_timeouts > 0) return false;
  // Launch-bound figures are the host's enqueue rate; under -z every figure is, and such a run's
  // nodes are set beside each other in their own -z group.
  const bool blocking = d.config.is_object() && d.config.contains("blocking") &&
                        d.config["blocking"].is_number() && d.config["blocking"].get<int>() != 0;
  return blocking || !(r.enqueue && r.enqueue->launch_bound);
}

}  // namespace peerbench
