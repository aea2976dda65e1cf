// Causes that are not the link's at all: another process on a GPU while the job ran, and clocks
// held by the power cap or by heat (diagnosis_rules.h). Read from each case's interference, the
// GPUs' activity logs and the node evidence's clock event reasons.
#include <algorithm>
#include <map>
#include <set>

#include "core/base/text.h"
#include "core/judge/diagnosis_rules.h"

namespace peerbench::diagnosis_detail {

namespace {

namespace cs = cause_strength;

struct GpuSeen {
  std::string gpu;                     // "GPU 1 0000:00:07.0"
  std::vector<std::string> processes;  // "pid 4242 (python)"
  std::set<std::string> reasons;       // clock event reasons
  std::vector<CauseEvidence> ev;
};

std::string process_text(const ForeignProcess& p) {
  return "pid " + std::to_string(p.pid) + (p.name.empty() ? "" : " (" + p.name + ")");
}

void add_process(GpuSeen& g, const std::string& p) {
  if (std::find(g.processes.begin(), g.processes.end(), p) == g.processes.end())
    g.processes.push_back(p);
}

void from_interference(const std::vector<Result>& rs, std::map<std::string, GpuSeen>& by_bus) {
  for (const auto& r : rs) {
    if (!r.interference) continue;
    for (const auto& g : *r.interference) {
      if (!g.contended() && !g.throttled()) continue;
      GpuSeen& s = by_bus[g.pci_bus_id];
      s.gpu = "GPU " + std::to_string(g.gpu_index) + " " + g.pci_bus_id;
      for (const auto& p : g.processes) add_process(s, process_text(p));
      if (g.busy_while_idle && g.processes.empty())
        add_process(s, "a process NVML could not name (busy while idle)");
      for (const auto& t : g.throttle_reasons) s.reasons.insert(t);
      if (s.ev.size() < 4)
        s.ev.push_back({"results " + r.method + " interference on " + s.gpu,
                        join(s.processes, ", ") +
                            (g.throttled() ? " clocks: " + join(g.throttle_reasons, ", ") : "")});
    }
  }
}

void from_activity(const RunDocument& d, std::map<std::string, GpuSeen>& by_bus) {
  for (const auto& a : d.gpu_activity) {
    for (const auto& s : a.seen) {
      GpuSeen& g = by_bus[a.pci_bus_id];
      g.gpu = "GPU " + std::to_string(a.gpu_index) + " " + a.pci_bus_id;
      if (s.kind == "process") add_process(g, process_text(s.process));
      if (s.kind == "busy-while-idle")
        add_process(g, "a process NVML could not name (" + s.reason + ")");
      if (s.kind == "throttle") g.reasons.insert(s.reason);
      g.ev.push_back({"gpu_activity of " + g.gpu,
                      s.kind + " " + (s.kind == "process" ? process_text(s.process) : s.reason)});
    }
  }
  for (const auto& ne : d.node_evidence) {
    for (const auto& n : ne.gpus) {
      if (n.clock_event_reasons.empty()) continue;
      GpuSeen& g = by_bus[n.pci_bus_id];
      g.gpu = "GPU " + std::to_string(n.gpu_index) + " " + n.pci_bus_id;
      for (const auto& r : n.clock_event_reasons) g.reasons.insert(r);
      g.ev.push_back({"node evidence of " + ne.host + ": " + g.gpu + " clock_event_reasons",
                      join(n.clock_event_reasons, ", ")});
    }
  }
}

bool power(const std::string& r) {
  return r.find("power") != std::string::npos;
}
bool thermal(const std::string& r) {
  return r.find("thermal") != std::string::npos || r == "hw-slowdown";
}

// One cause for every GPU that shows `has`: its pairs' `state` and the figures under their bars.
void add_cause(const Input& in, const std::map<std::string, GpuSeen>& by_bus, const char* code,
               const std::string& state, const std::function<bool(const GpuSeen&)>& has,
               const std::function<std::string(const GpuSeen&)>& what,
               std::vector<Candidate>& out) {
  std::vector<std::string> buses, gpus, whats;
  std::vector<CauseEvidence> ev;
  for (const auto& [bus, g] : by_bus) {
    if (!has(g)) continue;
    buses.push_back(bus);
    gpus.push_back(g.gpu);
    whats.push_back(what(g));
    ev.insert(ev.end(), g.ev.begin(), g.ev.end());
  }
  if (buses.empty()) return;
  const auto mine = [&](const Finding& f) {
    return std::any_of(buses.begin(), buses.end(),
                       [&](const std::string& b) { return on_gpu(f, b); });
  };
  Candidate c = make_candidate(
      in, code, cs::kConfirmed,
      {{"gpus", join(gpus, ", ")}, {"process", join(whats, ", ")}, {"reasons", join(whats, ", ")}},
      [&](const Finding& f) { return (f.flag.empty() ? f.state == state : true) && mine(f); });
  c.cause.gpus = gpus;
  c.cause.evidence = ev;
  if (!c.explains.empty()) out.push_back(std::move(c));
}

}  // namespace

void activity_causes(const Input& in, std::vector<Candidate>& out) {
  std::map<std::string, GpuSeen> by_bus;
  from_interference(in.d.results, by_bus);
  from_interference(in.d.confirmations, by_bus);
  from_activity(in.d, by_bus);
  const auto reasons_of = [](bool (*kind)(const std::string&)) {
    return [kind](const GpuSeen& g) {
      std::vector<std::string> r;
      for (const auto& x : g.reasons)
        if (kind(x)) r.push_back(x);
      return join(r, ", ");
    };
  };
  add_cause(
      in, by_bus, "gpu-busy-other-process", verdict_state::kContended,
      [](const GpuSeen& g) { return !g.processes.empty(); },
      [](const GpuSeen& g) { return join(g.processes, ", "); }, out);
  add_cause(
      in, by_bus, "clocks-power-capped", verdict_state::kThrottled,
      [&](const GpuSeen& g) { return !reasons_of(power)(g).empty(); }, reasons_of(power), out);
  add_cause(
      in, by_bus, "clocks-thermal", verdict_state::kThrottled,
      [&](const GpuSeen& g) { return !reasons_of(thermal)(g).empty(); }, reasons_of(thermal), out);
}

}  // namespace peerbench::diagnosis_detail
