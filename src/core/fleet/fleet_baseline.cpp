#include "core/fleet/fleet_baseline.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/judge/baseline.h"

namespace peerbench {

using nlohmann::json;

namespace {

bool counts(const FleetNode& n) {
  return n.state == NodeState::kPass && !n.file.empty();
}

// The versions a node lacks: a per-version baseline cannot place it (its entry, with no driver,
// would judge every driver by it), so it is left out with this reason. "" when it has them all.
std::string versions_missing(const FleetNode& n) {
  std::vector<std::string> missing;
  if (n.versions.driver.empty()) missing.emplace_back("driver");
  if (n.versions.cuda.empty()) missing.emplace_back("CUDA");
  if (n.versions.nccl.empty()) missing.emplace_back("NCCL");
  if (missing.empty()) return "";
  std::string what = missing.back();
  if (missing.size() > 1) {
    missing.pop_back();
    what = join(missing, ", ") + " or " + what;
  }
  return "recorded no " + what + " version, and the baseline is per version (the fleet mixes them)";
}

// Whether a node's figures go into the baseline: it passed, and a per-version one knows its
// versions.
bool counted(const FleetNode& n, bool by_version) {
  return counts(n) && (!by_version || versions_missing(n).empty());
}

bool outlier(const FleetPair& p, const std::string& method) {
  return std::any_of(p.flags.begin(), p.flags.end(), [&](const Flag& f) {
    return f.code == "fleet-outlier" && f.method == method;
  });
}

// One entry's figures, from the values of its healthy pairs.
struct Gathered {
  BaselineEntry entry;
  std::vector<double> values;
  std::set<std::string> nodes;
};

using Key = std::tuple<std::string, std::string, std::string, std::string, std::uint64_t, int,
                       std::string, std::string, std::string>;

std::map<Key, Gathered> gather(const FleetReport& r, bool by_version) {
  std::map<Key, Gathered> out;
  for (const auto& g : r.groups) {
    for (const auto& n : r.nodes) {
      if (!counted(n, by_version)) continue;
      const NodeVersions v = by_version ? n.versions : NodeVersions{};
      for (const auto& p : n.pairs) {
        if (p.gpu_model != g.gpu_model || p.group_of(g.method) != g.link || outlier(p, g.method))
          continue;
        for (const auto& m : p.measurements) {
          if (m.method != g.method || m.bytes != g.bytes) continue;
          auto& x = out[{g.method, g.gpu_model, p.link_label, g.link, g.bytes, p.ranks, v.driver,
                         v.cuda, v.nccl}];
          x.entry = {g.gpu_model, p.link_label, g.link, g.method, g.bytes,
                     p.ranks,     v.driver,     v.cuda, v.nccl,   m.lower_is_better};
          x.values.push_back(m.value);
          x.nodes.insert(n.host);
        }
      }
    }
  }
  return out;
}

json provenance(const FleetReport& r, bool by_version) {
  json used = json::array(), left = json::array();
  std::string first, last;
  std::set<std::string> drivers, cudas, nccls;
  for (const auto& n : r.nodes) {
    if (!counts(n)) {
      left.push_back({{"host", n.host}, {"state", to_string(n.state)}});
      continue;
    }
    if (!counted(n, by_version)) {
      left.push_back(
          {{"host", n.host}, {"state", to_string(n.state)}, {"reason", versions_missing(n)}});
      continue;
    }
    used.push_back({{"host", n.host}, {"file", n.file}, {"started_at", n.started_at}});
    if (first.empty() || n.started_at < first) first = n.started_at;
    if (last.empty() || n.started_at > last) last = n.started_at;
    // A node that recorded no version adds none ("driver /580.159.04" read in reports).
    if (!n.versions.driver.empty()) drivers.insert(n.versions.driver);
    if (!n.versions.cuda.empty()) cudas.insert(n.versions.cuda);
    if (!n.versions.nccl.empty()) nccls.insert(n.versions.nccl);
  }
  return json{{"nodes", used},      {"left_out", left}, {"first_run", first}, {"last_run", last},
              {"drivers", drivers}, {"cuda", cudas},    {"nccl", nccls}};
}

// Whether the nodes a baseline counts ran more than one driver, CUDA or NCCL: one failed node on
// another driver made every entry per-version, and a later node on the healthy nodes' own
// versions matched none of them (an audit). A node that recorded none mixes nothing.
bool counted_versions_mixed(const FleetReport& r) {
  std::set<std::string> drivers, cudas, nccls;
  for (const auto& n : r.nodes) {
    if (!counts(n)) continue;
    if (!n.versions.driver.empty()) drivers.insert(n.versions.driver);
    if (!n.versions.cuda.empty()) cudas.insert(n.versions.cuda);
    if (!n.versions.nccl.empty()) nccls.insert(n.versions.nccl);
  }
  return drivers.size() > 1 || cudas.size() > 1 || nccls.size() > 1;
}

json too_few_entry(const Gathered& x) {
  json j = {{"method", x.entry.method}, {"model", x.entry.model}, {"link", x.entry.link},
            {"group", x.entry.group},   {"bytes", x.entry.bytes}, {"ranks", x.entry.ranks},
            {"pairs", x.values.size()}, {"nodes", x.nodes.size()}};
  if (!x.entry.driver.empty()) j["driver"] = x.entry.driver;
  if (!x.entry.cuda.empty()) j["cuda"] = x.entry.cuda;
  if (!x.entry.nccl.empty()) j["nccl"] = x.entry.nccl;
  return j;
}

}  // namespace

json make_baseline(const FleetReport& r, double tolerance, const std::string& written_at) {
  const bool mixed = counted_versions_mixed(r);
  json entries = json::array(), too_few = json::array();
  for (auto& [key, x] : gather(r, mixed)) {
    // Under kFleetMinGroupPairs the fleet judges nothing (its median is one of two figures): a
    // bar from it would fail a healthy pair of the very node it came from. One node is no
    // fleet: its 56 pairs made "a site baseline of 1 healthy nodes" (an audit).
    if (static_cast<int>(x.values.size()) < kFleetMinGroupPairs ||
        static_cast<int>(x.nodes.size()) < kBaselineMinNodes) {
      too_few.push_back(too_few_entry(x));
      continue;
    }
    std::sort(x.values.begin(), x.values.end());
    BaselineEntry& e = x.entry;
    e.min = x.values.front();
    e.max = x.values.back();
    e.median = quantile(x.values, 0.5);
    e.p25 = quantile(x.values, 0.25);
    e.p75 = quantile(x.values, 0.75);
    e.pairs = static_cast<int>(x.values.size());
    e.nodes = static_cast<int>(x.nodes.size());
    e.bar = e.lower_is_better ? e.median * (1 + tolerance) : e.median * (1 - tolerance);
    if (e.median > 0) entries.push_back(to_json(e));
  }
  if (entries.empty()) {
    throw InputError("fleet", "--write-baseline",
                     too_few.empty()
                         ? "no node passed, so there is no healthy figure to write a baseline from"
                         : "no case has " + std::to_string(kFleetMinGroupPairs) +
                               " healthy pairs or more on " + std::to_string(kBaselineMinNodes) +
                               " nodes or more, the fewest a fleet median is drawn from "
                               "(a case: one model, link, size and rank count, and one driver, "
                               "CUDA and NCCL where the fleet mixes them); give more nodes of a "
                               "kind");
  }
  json from = provenance(r, mixed);
  from["cases_too_few_pairs"] = too_few;
  return json{{"comment", "site baseline of " + std::to_string(from["nodes"].size()) +
                              " healthy nodes, written " + written_at + " by peerbench fleet"},
              {"fleet_outlier_tolerance", tolerance},
              {"baseline",
               {{"tolerance", tolerance},
                {"written_at", written_at},
                {"per_version", mixed},
                {"from", from},
                {"entries", entries}}}};
}

}  // namespace peerbench
