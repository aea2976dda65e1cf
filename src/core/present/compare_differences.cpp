// What differs between two runs besides their figures, one line each: versions, cards and their
// order, NCCL's transports, the hosts, the options that change a figure, the environment.
#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "core/model/json_text.h"
#include "core/model/result_index.h"
#include "core/present/compare_differences.h"
#include "core/present/report.h"
#include "core/present/report_parts.h"

namespace peerbench::compare_detail {
namespace {

void diff(std::vector<std::string>& out, const std::string& what, const std::string& a,
          const std::string& b) {
  if (a != b)
    out.push_back(what + ": " + (a.empty() ? "(none)" : a) + " -> " + (b.empty() ? "(none)" : b));
}

std::string gpu_names(const RunDocument& d) {
  std::map<std::string, int> n;
  for (const auto& r : d.system.ranks) n[r.gpu.name]++;
  std::string s;
  for (const auto& [k, v] : n) s += (s.empty() ? "" : ", ") + std::to_string(v) + "x " + k;
  return s;
}

// Each rank's GPU by host and PCI bus id, "0:vm/0000:00:06.0 1:vm/0000:00:07.0"; "" when a rank
// has no PCI id.
std::string gpu_of_rank(const RunDocument& d) {
  std::vector<RankInfo> ranks = d.system.ranks;
  std::sort(ranks.begin(), ranks.end(),
            [](const RankInfo& x, const RankInfo& y) { return x.rank < y.rank; });
  std::string s;
  for (const auto& r : ranks) {
    if (r.gpu.pci_bus_id.empty()) return "";
    s += (s.empty() ? "" : " ") + std::to_string(r.rank) + ":" + r.host + "/" + r.gpu.pci_bus_id;
  }
  return s;
}

// How many of B's GPUs are cards A did not have (by UUID): the same slots with other cards
// explain figures that moved with no version changed (an audit saw "nothing recorded").
void cards_differ(const RunDocument& a, const RunDocument& b, Comparison& c) {
  const auto in_a = card_uuids(a), in_b = card_uuids(b);
  int other = 0;
  for (const auto& u : in_b) other += in_a.count(u) ? 0 : 1;
  // A file without UUIDs cannot tell cards apart; the mapping below is still compared (review).
  if (other && !in_a.count("") && !in_b.count("")) {
    // Run-neutral words: a history says "run 3: GPU cards: ..." (B and A read wrong there).
    c.differences.push_back("GPU cards: " + std::to_string(other) + " of " +
                            std::to_string(in_b.size()) + " are other cards (UUIDs differ)");
  }
  const std::string ma = gpu_of_rank(a), mb = gpu_of_rank(b);
  if (!ma.empty() && !mb.empty()) diff(c.differences, "GPU of each rank (host/PCI)", ma, mb);
}

// NCCL's transport per pair of ranks ("0->1 P2P/CUMEM"), in words: a change of it explains NCCL
// figures that moved (an audit saw 16 regressions with no word of SHM in What differs).
void transports_differ(const RunDocument& a, const RunDocument& b, Comparison& c) {
  const ResultIndex ia(a), ib(b);
  std::set<std::pair<int, int>> pairs;
  for (const auto& p : a.pairs) pairs.insert({p.src, p.dst});
  for (const auto& p : b.pairs) pairs.insert({p.src, p.dst});
  for (const auto& [s, t] : pairs) {
    const std::string ta = report_parts::transport_of(ia, s, t);
    const std::string tb = report_parts::transport_of(ib, s, t);
    if (!ta.empty() || !tb.empty())
      diff(c.differences, "NCCL transport " + pair_name(s, t), ta, tb);
  }
}

// The options that change what a figure is, or which cases a run holds.
void config_differs(const RunDocument& a, const RunDocument& b, Comparison& c) {
  // The options that change what a figure is (whose time -a takes, NCCL's buffers under -R,
  // blocking -z, events of -I and -C); paths, timeouts and bars do not.
  // Sizes, methods and pairs too: they explain the rows listed only in A or only in B.
  for (const char* k : {"minbytes",
                        "maxbytes",
                        "stepfactor",
                        "stepbytes",
                        "methods_spec",
                        "pairs",
                        "warmup_iters",
                        "iters",
                        "samples",
                        "cudagraph_replays",
                        "schedule",
                        "check",
                        "allreduce_inplace",
                        "datatypes",
                        "ops",
                        "root",
                        "staged_chunk",
                        "staged_slots",
                        "latency_bytes",
                        "latency_iters",
                        "average",
                        "local_register",
                        "blocking",
                        "report_cputime",
                        "per_iteration"}) {
    // A key one file lacks is one its version did not record: a change of format, not of run.
    const bool both = a.config.is_object() && a.config.contains(k) && b.config.is_object() &&
                      b.config.contains(k);
    if (both)
      diff(c.differences, std::string("config ") + k, json_text(a.config[k]),
           json_text(b.config[k]));
  }
}

void environment_differs(const RunDocument& a, const RunDocument& b, Comparison& c) {
  std::set<std::string> env_keys;
  for (const auto& [k, v] : a.environment) env_keys.insert(k);
  for (const auto& [k, v] : b.environment) env_keys.insert(k);
  for (const auto& k : env_keys) {
    const auto ia = a.environment.find(k);
    const auto ib = b.environment.find(k);
    diff(c.differences, "env " + k, ia == a.environment.end() ? "" : ia->second,
         ib == b.environment.end() ? "" : ib->second);
  }
}

std::string burn_in_text(const RunDocument& d) {
  if (!d.burn_in) return "";
  const BurnIn& b = *d.burn_in;
  return std::to_string(b.cycles_done) + (b.cycles_done == 1 ? " whole cycle" : " whole cycles") +
         ", stopped by " + (b.stopped_by.empty() ? std::string("nothing recorded") : b.stopped_by);
}

}  // namespace

// The UUIDs of a run's GPUs ("" for a rank that recorded none).
std::set<std::string> card_uuids(const RunDocument& d) {
  std::set<std::string> u;
  for (const auto& r : d.system.ranks) u.insert(r.gpu.uuid);
  return u;
}

// What differs between the runs besides the figures: versions, GPUs, hosts, config, environment.
void what_differs(const RunDocument& a, const RunDocument& b, Comparison& c) {
  diff(c.differences, "driver", a.system.driver_version, b.system.driver_version);
  diff(c.differences, "CUDA driver API", std::to_string(a.system.cuda_driver_version),
       std::to_string(b.system.cuda_driver_version));
  diff(c.differences, "CUDA runtime", std::to_string(a.system.cuda_runtime_version),
       std::to_string(b.system.cuda_runtime_version));
  diff(c.differences, "NCCL", a.system.nccl_version, b.system.nccl_version);
  // Some MPI libraries end the string with a NUL, which made "...2023\x00 -> ...2023" a difference.
  const auto mpi = [](std::string v) {
    while (!v.empty() && (v.back() == '\0' || v.back() == '\n' || v.back() == ' ')) v.pop_back();
    return v;
  };
  diff(c.differences, "MPI", mpi(a.system.mpi_library_version), mpi(b.system.mpi_library_version));
  diff(c.differences, "GPUs", gpu_names(a), gpu_names(b));
  auto hosts = [](const RunDocument& d) {
    std::string s;
    for (const auto& h : d.system.hosts) s += (s.empty() ? "" : ",") + h;
    return s;
  };
  diff(c.differences, "hosts", hosts(a), hosts(b));
  if (hosts(a) != hosts(b)) {
    c.hosts_a = hosts(a);
    c.hosts_b = hosts(b);
    c.other_hosts = "A: " + hosts(a) + "; B: " + hosts(b);
  }
  diff(c.differences, "peerbench", a.tool.version + " " + a.tool.git_revision,
       b.tool.version + " " + b.tool.git_revision);
  // A run that failed or was cut short, and its errors: what explains the cases it lost.
  diff(c.differences, "run status", a.status, b.status);
  const auto errors = [](const RunDocument& d) {
    return d.errors.empty() ? std::string()
                            : std::to_string(d.errors.size()) + " (" + d.errors.front() +
                                  (d.errors.size() > 1 ? ", ..." : "") + ")";
  };
  diff(c.differences, "run errors", errors(a), errors(b));
  diff(c.differences, "burn-in", burn_in_text(a), burn_in_text(b));
  // Read with defaults where a file predates a key, so an older run's -R 0 still shows.
  const auto mode = [](const RunDocument& d) {
    const std::string m = measurement_mode(d);
    return m.empty() ? std::string("defaults (-R 0 -a 3 -z 0)") : m;
  };
  diff(c.differences, "settings that change the figures", mode(a), mode(b));
  cards_differ(a, b, c);
  transports_differ(a, b, c);
  config_differs(a, b, c);
  environment_differs(a, b, c);
}

}  // namespace peerbench::compare_detail
