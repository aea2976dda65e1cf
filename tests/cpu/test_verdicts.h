#pragma once
// What the tests read from compute_verdicts' answer: one pair's verdict, one method's, the flag
// codes. A lookup that finds nothing throws, so the test fails naming what it looked for.
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/judge/verdict.h"

namespace peerbench::test {

// The verdict of pair s->d (-1, -1: the all-ranks one).
inline const PairVerdict& verdict_of(const std::vector<PairVerdict>& vs, int s, int d) {
  for (const auto& v : vs) {
    if (v.src == s && v.dst == d) return v;
  }
  throw std::runtime_error("no verdict for " + std::to_string(s) + "->" + std::to_string(d));
}

inline const MethodVerdict& method_verdict_of(const PairVerdict& v, const std::string& method) {
  for (const auto& m : v.methods) {
    if (m.method == method) return m;
  }
  throw std::runtime_error("no method verdict " + method + " on " + std::to_string(v.src) + "->" +
                           std::to_string(v.dst));
}

// The codes of a verdict's flags, in its order.
inline std::vector<std::string> flag_codes_of(const PairVerdict& v) {
  std::vector<std::string> out;
  for (const auto& f : v.flags) out.push_back(f.code);
  return out;
}

// The codes of every verdict's flags, each once.
inline std::set<std::string> flag_code_set(const std::vector<PairVerdict>& vs) {
  std::set<std::string> out;
  for (const auto& v : vs)
    for (const auto& f : v.flags) out.insert(f.code);
  return out;
}

}  // namespace peerbench::test
