// Causes that are settings: the NCCL variables that steer it off a road (read in the run's
// environment, the node evidence, or NCCL's echo of them in its log), and NCCL's own reasons where
// no setting explains what it did (diagnosis_rules.h).
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "core/base/text.h"
#include "core/judge/diagnosis.h"
#include "core/judge/diagnosis_rules.h"

namespace peerbench::diagnosis_detail {

namespace {

namespace cs = cause_strength;

// The roads NCCL took off P2P on the run's pairs: "SHM/direct/direct", "NET/Socket/0".
std::string roads(const RunDocument& d) {
  std::vector<std::string> out;
  for (const auto& p : d.pairs) {
    if (!p.nccl || p.nccl->kind == "P2P") continue;
    for (const auto& x : p.nccl->details)
      if (x.rfind("P2P", 0) != 0 && std::find(out.begin(), out.end(), x) == out.end())
        out.push_back(x);
  }
  return out.empty() ? "another road" : join(out, ", ");
}

bool took(const RunDocument& d, const std::string& kind) {
  return std::any_of(d.pairs.begin(), d.pairs.end(),
                     [&](const PairFacts& p) { return p.nccl && p.nccl->kind == kind; });
}

// A variable's value from the environment or the node evidence, else from NCCL's echo of it
// ("NCCL_P2P_DISABLE set by environment to 1"); the evidence says which was read.
std::string setting(const Input& in, const std::string& name, std::vector<CauseEvidence>& ev) {
  std::string where;
  std::string value = env_value(in, name, &where);
  if (!value.empty()) ev.push_back({where, name + "=" + value});
  for (const auto& r : reasons_with(in.d, name + " set by environment to ")) {
    ev.push_back({"NCCL's log", "\"" + r + "\""});
    if (value.empty()) value = r.substr(name.size() + 23);
  }
  while (!value.empty() && value.back() == '.') value.pop_back();  // NCCL_ENV's echo ends so
  return value;
}

// What the pairs a cause names show: NCCL's transport, and copy-engine copies at known-good (the
// link is healthy where they reach 1.00: a setting, not the link).
void road_evidence(const Input& in, Candidate& c) {
  std::set<const PairVerdict*> seen;
  std::vector<std::pair<std::string, std::string>> facts;  // (what, fact), in order
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> pairs;
  const auto note = [&](const std::string& what, const std::string& fact, const std::string& pair) {
    auto& ps = pairs[{what, fact}];
    if (ps.empty()) facts.push_back({what, fact});
    ps.push_back(pair);
  };
  for (std::size_t i : c.explains) {
    const PairVerdict& v = *in.findings[i].v;
    if (v.src < 0 || !seen.insert(&v).second) continue;
    const std::string pair = in.findings[i].pair;
    if (const PairFacts* p = pair_facts(in.d, v.src, v.dst); p && p->nccl)
      note("nccl",
           join(p->nccl->details, ", ") + " on " + std::to_string(p->nccl->channels) + " channels",
           pair);
    const auto ce = copy_engine_ratios(v);
    if (!ce.empty())
      note("verdict",
           join(ce, ", ") + " of known-good: the link itself carries copies at that rate", pair);
  }
  for (const auto& [what, fact] : facts)
    c.cause.evidence.push_back({(what == "nccl" ? "pairs " : "verdicts ") +
                                    join(pairs[{what, fact}], ", ") +
                                    (what == "nccl" ? " nccl" : ""),
                                fact});
}

void add(const Input& in, Candidate c, std::vector<CauseEvidence> ev, std::vector<Candidate>& out) {
  if (c.explains.empty()) return;
  c.cause.evidence = std::move(ev);
  road_evidence(in, c);
  out.push_back(std::move(c));
}

bool off(const std::string& v) {
  return nccl_switch_on(v);
}

void disable_causes(const Input& in, std::vector<Candidate>& out) {
  std::vector<CauseEvidence> ev;
  const std::string p2p = setting(in, "NCCL_P2P_DISABLE", ev);
  if (off(p2p)) {
    add(in,
        make_candidate(in, "nccl-p2p-disabled-by-env", cs::kConfirmed,
                       {{"value", p2p}, {"road", roads(in.d)}},
                       [](const Finding& f) {
                         return f.flag == "nccl-shm" || f.flag == "nccl-net" ||
                                (!f.flag.empty() && nccl_method(f.method));
                       }),
        ev, out);
  }
  std::vector<CauseEvidence> shm_ev;
  const std::string shm = setting(in, "NCCL_SHM_DISABLE", shm_ev);
  if (off(shm) && took(in.d, "NET")) {
    add(in,
        make_candidate(in, "nccl-shm-disabled-by-env", cs::kConfirmed,
                       {{"value", shm}, {"road", roads(in.d)}},
                       [](const Finding& f) {
                         return f.flag == "nccl-net" || (!f.flag.empty() && nccl_method(f.method));
                       }),
        shm_ev, out);
  }
}

// NCCL's path types, nearest first (graph/topo.h's topoPathTypeStr), and the old numeric levels.
int path_index(const std::string& t) {
  static const std::vector<std::string> types = {"LOC", "NVL", "NVB", "C2C", "PIX", "PXB",
                                                 "P2C", "PXN", "PHB", "SYS", "NET"};
  const auto it = std::find(types.begin(), types.end(), t);
  return it == types.end() ? -1 : static_cast<int>(it - types.begin());
}

int level_index(const std::string& value) {
  static const std::vector<std::string> old = {"LOC", "PIX", "PXB", "PHB", "SYS", "SYS"};
  if (!value.empty() && std::isdigit(static_cast<unsigned char>(value[0])))
    return path_index(old[std::min<std::size_t>(value[0] - '0', old.size() - 1)]);
  return path_index(value);
}

// The pair's path as NCCL types it: NVLink NVL, nvidia-smi's NODE NCCL's PHB.
int pair_path_index(const std::string& link) {
  if (link.rfind("NV", 0) == 0) return path_index("NVL");
  return path_index(link == "NODE" ? "PHB" : link);
}

void level_cause(const Input& in, std::vector<Candidate>& out) {
  std::vector<CauseEvidence> ev;
  const std::string value = setting(in, "NCCL_P2P_LEVEL", ev);
  const int level = level_index(value);
  if (value.empty() || level < 0) return;
  const auto below = [&](const PairVerdict& v) {
    const int p = pair_path_index(v.link);
    return p > level;
  };
  if (!std::any_of(in.verdicts.begin(), in.verdicts.end(), below)) return;
  add(in,
      make_candidate(in, "nccl-p2p-level-env", cs::kConfirmed,
                     {{"value", value},
                      {"level", value == "LOC" ? "the same GPU (LOC)" : value},
                      {"road", roads(in.d)}},
                     [&](const Finding& f) {
                       return ((f.flag == "nccl-shm" || f.flag == "nccl-net") && below(*f.v)) ||
                              (!f.flag.empty() && nccl_method(f.method));
                     }),
      ev, out);
}

void net_forced_cause(const Input& in, std::vector<Candidate>& out) {
  std::vector<CauseEvidence> ev;
  const std::string ib = setting(in, "NCCL_IB_DISABLE", ev);
  const std::string net = setting(in, "NCCL_NET", ev);
  const bool ib_off = off(ib), socket = ascii_lower(net) == "socket";
  if (!ib_off && !socket) return;
  const std::string name = ib_off ? "NCCL_IB_DISABLE" : "NCCL_NET";
  add(in,
      make_candidate(
          in, "nccl-net-forced-by-env", cs::kConfirmed,
          {{"value", name + "=" + (ib_off ? ib : net)}, {"name", name}, {"road", roads(in.d)}},
          [](const Finding& f) {
            return f.flag == "nccl-net-socket" || (!f.flag.empty() && nccl_method(f.method));
          }),
      ev, out);
}

}  // namespace

void setting_causes(const Input& in, std::vector<Candidate>& out) {
  disable_causes(in, out);
  level_cause(in, out);
  net_forced_cause(in, out);
}

namespace {

// One nccl-reason-from-log cause: the findings `road` picks that nothing read explained, with
// NCCL's lines that start with one of `prefixes`, and the check that follows from them.
void reason_cause(const Input& in, const std::vector<bool>& done,
                  const std::vector<const char*>& prefixes, const std::string& check,
                  const std::function<bool(const Finding&)>& road, std::vector<Candidate>& out) {
  std::vector<std::string> said;
  for (const char* p : prefixes)
    for (auto& r : reasons_with(in.d, p)) said.push_back(r);
  if (said.empty()) return;
  const auto& fs = in.findings;
  Candidate c = make_candidate(in, "nccl-reason-from-log", cs::kLikely,
                               {{"reason", said.front()}, {"check", check}}, [&](const Finding& f) {
                                 const auto i = static_cast<std::size_t>(&f - fs.data());
                                 return !done[i] && !f.flag.empty() && road(f);
                               });
  std::vector<CauseEvidence> ev;
  for (const auto& r : said) ev.push_back({"NCCL's log", "\"" + r + "\""});
  add(in, std::move(c), ev, out);
}

}  // namespace

// NCCL's words for leaving P2P (or InfiniBand) where no setting or node fact explains it.
void nccl_reason_causes(const Input& in, const std::vector<Candidate>& so_far,
                        std::vector<Candidate>& out) {
  const std::vector<bool> done = explained(in, so_far);
  reason_cause(
      in, done,
      {"Could not enable P2P", "P2P is disabled between", "peer query failed",
       "Legacy IPC not supported", "failed to peer with device"},
      "run peerbench doctor on {host} to read what NCCL met (ACS, IOMMU, "
      "virtualization, container)",
      [](const Finding& f) {
        return f.flag == "nccl-shm" || f.flag == "nccl-net" || nccl_method(f.method);
      },
      out);
  // NCCL looks for InfiniBand on every host; only a run whose hosts met over sockets needs it.
  reason_cause(
      in, done, {"NET/IB : No device found", "NET/Socket : No usable listening interface"},
      "ibv_devinfo on {host}: NCCL saw no InfiniBand/RoCE device (its driver, or the "
      "container's --device or --privileged)",
      [](const Finding& f) { return f.flag == "nccl-net-socket"; }, out);
}

}  // namespace peerbench::diagnosis_detail
