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

namespace {

// Measured, and not beside another job, under held clocks or launch-bound (the host's enqueue
// rate, -z 1 among them).
bool settles(const Result& r) {
  return has_figure(r) && !contended(r) && !throttled(r) && !(r.enqueue && r.enqueue->launch_bound);
}

}  // namespace

const Result* settled_result(const RunDocument& d, const Result& r) {
  const Result* best = settles(r) ? &r : nullptr;
  const CaseKey key = case_key(r);
  int attempt = 0;
  for (const auto& x : d.confirmations) {
    const CaseKey k = case_key(x);
    if (k < key || key < k || x.attempt <= attempt || !settles(x)) continue;
    best = &x;
    attempt = x.attempt;
  }
  return best;
}

}  // namespace peerbench
