#include "core/model/method_info.h"
#include "core/base/text.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "core/base/errors.h"

namespace peerbench {

std::vector<MethodGroup> method_groups() {
  return {
      {"all", "every method"},
      {"p2p", "copy-engine, SM-kernel and latency methods (no NCCL, no host staging)"},
      {"ce", "copy-engine methods"},
      {"sm", "SM-kernel methods"},
      {"latency", "ce-latency and sm-latency"},
      {"bidir", "methods that move both directions at once"},
      {"nccl", "NCCL methods"},
      {"host", "copies between each GPU and pinned host memory (h2d, d2h, h2d-all, d2h-all)"},
  };
}

namespace {

bool in_group(const MethodInfo& m, const std::string& group) {
  if (group == "all") return true;
  if (group == "p2p") return m.family == "ce" || m.family == "sm";
  if (group == "ce") return m.family == "ce";
  if (group == "sm") return m.family == "sm";
  if (group == "latency") return m.metric == Metric::kLatency;
  if (group == "bidir") return m.bidirectional;
  if (group == "nccl") return m.uses_nccl;
  if (group == "host") return m.family == "host";
  return false;
}

std::string allowed_names(const std::vector<MethodInfo>& catalog) {
  std::string names;
  for (const auto& m : catalog) names += (names.empty() ? "" : ", ") + m.name;
  names += "; groups: ";
  bool first = true;
  for (const auto& g : method_groups()) {
    names += (first ? "" : ", ") + g.name;
    first = false;
  }
  return names;
}

}  // namespace

std::vector<std::string> resolve_methods(const std::string& spec,
                                         const std::vector<MethodInfo>& catalog) {
  if (spec.empty()) {
    throw UsageError("-m/--methods: empty; use method names or groups: " + allowed_names(catalog));
  }
  std::set<std::string> wanted;
  for (const auto& item : split(spec, ',')) {
    if (item.empty()) {
      throw UsageError("-m/--methods: empty name in '" + spec + "'; separate names with commas");
    }
    if (find_method(catalog, item)) {
      wanted.insert(item);
      continue;
    }
    const auto groups = method_groups();
    const bool is_group = std::any_of(groups.begin(), groups.end(),
                                      [&](const MethodGroup& g) { return g.name == item; });
    if (!is_group) {
      throw UsageError("-m/--methods: unknown method '" + item +
                       "'; allowed: " + allowed_names(catalog));
    }
    for (const auto& m : catalog) {
      if (in_group(m, item)) wanted.insert(m.name);
    }
  }
  std::vector<std::string> out;
  for (const auto& m : catalog) {
    if (wanted.count(m.name)) out.push_back(m.name);
  }
  if (out.empty()) throw UsageError("-m/--methods: '" + spec + "' selects no method");
  return out;
}

const MethodInfo* find_method(const std::vector<MethodInfo>& catalog, const std::string& name) {
  for (const auto& m : catalog) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

std::string to_string(MethodScope s) {
  switch (s) {
    case MethodScope::kPair:
      return "pair";
    case MethodScope::kAllRanks:
      return "all-ranks";
    case MethodScope::kPerGpu:
      return "per-gpu";
  }
  return "pair";
}
std::string to_string(Metric m) {
  return m == Metric::kBandwidth ? "bandwidth" : "latency";
}

bool figure_is_time(const MethodInfo* m, std::uint64_t bytes, std::uint64_t small_max) {
  return (m && m->metric == Metric::kLatency) || bytes <= small_max;
}

}  // namespace peerbench
