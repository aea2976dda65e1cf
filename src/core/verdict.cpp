#include "core/verdict.h"
#include "core/text.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <set>
#include <sstream>

#include "core/errors.h"
#include "core/json_in.h"
#include "core/sizes.h"

namespace peerbench {

using nlohmann::json;

namespace {

const PairFacts* facts_of(const RunDocument& d, int src, int dst) {
  for (const auto& p : d.pairs) {
    if (p.src == src && p.dst == dst) return &p;
  }
  return nullptr;
}

const GpuTopology* gpu_topo(const RunDocument& d, int rank, const HostTopology** host_out) {
  const auto* ri = rank_info(d, rank);
  if (!ri || !d.topology) return nullptr;
  for (const auto& h : d.topology->hosts) {
    if (h.host != ri->host) continue;
    for (const auto& g : h.gpus) {
      if (g.index == ri->gpu.index) {
        if (host_out) *host_out = &h;
        return &g;
      }
    }
  }
  return nullptr;
}

struct Link {
  LinkClass cls;
  std::optional<LinkExpectation> expected;
};

Link link_of(const RunDocument& d, int src, int dst) {
  Link l;
  if (host_of(d, src) != host_of(d, dst)) {
    l.cls = cross_host_link();
    return l;
  }
  const HostTopology* h = nullptr;
  const auto* a = gpu_topo(d, src, &h);
  const auto* b = gpu_topo(d, dst, nullptr);
  const auto* ra = rank_info(d, src);
  const auto* rb = rank_info(d, dst);
  if (ra && rb && ra->gpu.index == rb->gpu.index && ra->host == rb->host) {
    l.cls.kind = LinkKind::kSameGpu;
    l.cls.label = "X";
    return l;
  }
  if (!a || !b || !h) {
    l.cls.label = "?";
    return l;
  }
  for (const auto& p : h->pairs) {
    if (p.gpu_a == a->index && p.gpu_b == b->index) {
      l.cls = classify_link(p);
      l.expected = expected_link_bandwidth(l.cls, *a, *b);
      return l;
    }
  }
  l.cls.label = "?";
  return l;
}

bool is_staged_family(const MethodInfo* m) {
  return m && m->family == "staged";
}

}  // namespace

Expectations expectations_from_json(const json& j, const std::string& file) {
  JsonIn in(j, file);
  in.require_object();
  Expectations e;
  e.source = file;
  static const std::set<std::string> known{"fraction_of_link", "allreduce_fraction_of_link",
                                           "asymmetry_tolerance", "min_gbps", "comment"};
  for (const auto& [k, v] : j.items()) {
    if (!known.count(k)) {
      in.fail("unknown key '" + k +
              "'; allowed: fraction_of_link, allreduce_fraction_of_link, asymmetry_tolerance, "
              "min_gbps, comment");
    }
  }
  if (auto v = in.opt_number("fraction_of_link", 0, 2)) e.fraction_of_link = *v;
  if (auto v = in.opt_number("allreduce_fraction_of_link", 0, 2)) e.allreduce_fraction_of_link = *v;
  if (auto v = in.opt_number("asymmetry_tolerance", 0, 1)) e.asymmetry_tolerance = *v;
  if (auto m = in.opt("min_gbps")) {
    m->require_object();
    for (const auto& [k, v] : m->raw().items()) {
      e.min_gbps[k] = JsonIn(v, file, m->path() + "." + k).number(0, 1e6);
    }
  }
  return e;
}

Expectations load_expectations(const std::string& path) {
  return expectations_from_json(load_json_file(path, 1 << 20, 16), path);
}

const Result* largest_ok_result(const RunDocument& d, const std::string& method, int src, int dst) {
  const Result* best = nullptr;
  for (const auto& r : d.results) {
    if (r.method != method || r.src != src || r.dst != dst || r.status != ResultStatus::kOk)
      continue;
    if (!r.algbw_gbps && !r.time_us) continue;
    if (!best || r.bytes > best->bytes) best = &r;
  }
  return best;
}

double headline_value(const MethodInfo* m, const Result& r) {
  if (m && m->metric == Metric::kLatency) return r.time_us ? r.time_us->median : 0;
  if (m && m->uses_nccl && r.busbw_gbps) return r.busbw_gbps->median;
  return r.algbw_gbps ? r.algbw_gbps->median : 0;
}

std::vector<PairVerdict> compute_verdicts(const RunDocument& d, const Expectations& e) {
  std::vector<PairVerdict> out;
  // Ordered pairs known to the run: from its pair facts and its pair results.
  std::set<std::pair<int, int>> pairs;
  for (const auto& p : d.pairs) pairs.insert({p.src, p.dst});
  for (const auto& r : d.results) {
    if (r.src >= 0 && r.dst >= 0) pairs.insert({r.src, r.dst});
  }
  auto method = [&](const std::string& name) { return find_method(d.methods, name); };

  for (const auto& [src, dst] : pairs) {
    PairVerdict v;
    v.src = src;
    v.dst = dst;
    const bool same_host = host_of(d, src) == host_of(d, dst);
    const Link link = link_of(d, src, dst);
    v.link = link.cls.label;
    v.link_description = link.cls.describe();
    const auto* facts = facts_of(d, src, dst);
    std::vector<std::string> observed;
    bool measured = false;

    // host-staged: no P2P between two GPUs of one host.
    if (same_host && facts && link.cls.kind != LinkKind::kSameGpu) {
      const bool cannot = (facts->can_access_peer && !*facts->can_access_peer) ||
                          facts->peer_access == "unsupported" || facts->peer_access == "error";
      if (cannot) {
        Flag f;
        f.code = "host-staged";
        f.message = "no peer-to-peer between " + rank_label(d, src) + " and " + rank_label(d, dst) +
                    " on one host: copies go through host memory";
        f.evidence = {
            {"can_access_peer", facts->can_access_peer ? json(*facts->can_access_peer) : json()},
            {"peer_access", facts->peer_access},
            {"error", facts->error}};
        if (const auto* st = largest_ok_result(d, "staged", src, dst)) {
          f.evidence["staged_gbps"] = st->algbw_gbps->median;
          f.evidence["staged_bytes"] = st->bytes;
        }
        v.flags.push_back(f);
      }
    }

    // nccl-shm / nccl-net: NCCL left P2P between GPUs of one host.
    if (facts && facts->nccl) {
      const auto& t = *facts->nccl;
      observed.push_back("NCCL " + (t.details.empty() ? t.kind : t.details.front()) + " (" +
                         std::to_string(t.channels) + " ch)");
      if (same_host && link.cls.kind != LinkKind::kSameGpu) {
        for (const auto& k : t.kinds) {
          if (k != "SHM" && k != "NET") continue;
          Flag f;
          f.code = k == "SHM" ? "nccl-shm" : "nccl-net";
          f.message =
              "NCCL used " +
              (k == "SHM" ? std::string("shared memory (SHM)") : "the network (NET)") + " from " +
              rank_label(d, src) + " to " + rank_label(d, dst) + " on one host" +
              (link.cls.kind == LinkKind::kNvLink ? " although they share " + v.link_description
                                                  : "");
          f.evidence = {{"transport", t.kind},
                        {"details", t.details},
                        {"channels", t.channels},
                        {"log_line", t.example},
                        {"link", v.link}};
          v.flags.push_back(f);
        }
      }
    }

    // Per-method figures at the largest size.
    for (const auto& r : d.results) {
      if (r.src != src || r.dst != dst) continue;
      if (r.wrong > 0) {
        Flag f;
        f.code = "data-errors";
        f.method = r.method;
        f.message = r.method + " delivered " + std::to_string(r.wrong) + " wrong elements at " +
                    format_size(r.bytes) + " from " + rank_label(d, src) + " to " +
                    rank_label(d, dst);
        f.evidence = {
            {"bytes", r.bytes}, {"wrong", r.wrong}, {"checked_elements", r.checked_elements}};
        v.flags.push_back(f);
      }
      if (r.status == ResultStatus::kError || r.status == ResultStatus::kTimeout) {
        Flag f;
        f.code = "measurement-failed";
        f.method = r.method;
        f.message =
            r.method + " " + to_string(r.status) + " at " + format_size(r.bytes) + ": " + r.reason;
        f.evidence = {{"bytes", r.bytes}, {"status", to_string(r.status)}, {"reason", r.reason}};
        v.flags.push_back(f);
      }
    }
    std::set<std::string> methods_here;
    for (const auto& r : d.results) {
      if (r.src == src && r.dst == dst) methods_here.insert(r.method);
    }
    for (const auto& name : methods_here) {
      const auto* m = method(name);
      const auto* r = largest_ok_result(d, name, src, dst);
      if (!r) continue;
      measured = true;
      const double value = headline_value(m, *r);
      const bool latency = m && m->metric == Metric::kLatency;
      observed.push_back(name + " " + format_fixed(value, latency ? 2 : 1) +
                         (latency ? " us" : " GB/s"));
      if (latency || is_staged_family(m)) continue;
      // below-link
      const bool bidir = m && m->bidirectional;
      std::optional<double> threshold;
      std::string basis;
      if (auto it = e.min_gbps.find(name); it != e.min_gbps.end()) {
        threshold = it->second;
        basis = "minimum from " + e.source;
      } else if (link.expected && same_host) {
        threshold = e.fraction_of_link * link.expected->raw_gbps * (bidir ? 2 : 1);
        basis = format_fixed(e.fraction_of_link * 100, 0) + "% of " + link.expected->basis +
                (bidir ? ", both directions" : "");
      }
      if (threshold && value < *threshold) {
        Flag f;
        f.code = "below-link";
        f.method = name;
        f.message = name + " reached " + format_fixed(value, 1) + " GB/s at " +
                    format_size(r->bytes) + " from " + rank_label(d, src) + " to " +
                    rank_label(d, dst) + ", under the " + format_fixed(*threshold, 1) +
                    " GB/s that " + v.link_description + " should carry";
        f.evidence = {{"measured_gbps", value},
                      {"threshold_gbps", *threshold},
                      {"basis", basis},
                      {"bytes", r->bytes},
                      {"link", v.link}};
        if (link.expected) f.evidence["link_raw_gbps"] = link.expected->raw_gbps;
        v.flags.push_back(f);
      }
      // asymmetric: compare with the reverse direction (unidirectional methods only).
      if (!bidir && m && m->scope == MethodScope::kPair) {
        const auto* back = largest_ok_result(d, name, dst, src);
        if (back && back->bytes == r->bytes) {
          const double other = headline_value(m, *back);
          const double hi = std::max(value, other);
          if (hi > 0 && value < other && (hi - value) / hi > e.asymmetry_tolerance) {
            Flag f;
            f.code = "asymmetric";
            f.method = name;
            f.message = name + " " + std::to_string(src) + "->" + std::to_string(dst) + " " +
                        format_fixed(value, 1) + " GB/s vs " + std::to_string(dst) + "->" +
                        std::to_string(src) + " " + format_fixed(other, 1) + " GB/s at " +
                        format_size(r->bytes) + " (" + format_fixed(100 * (hi - value) / hi, 1) +
                        "% apart; tolerance " + format_fixed(100 * e.asymmetry_tolerance, 0) + "%)";
            f.evidence = {{"this_direction_gbps", value},
                          {"reverse_direction_gbps", other},
                          {"bytes", r->bytes},
                          {"tolerance", e.asymmetry_tolerance}};
            v.flags.push_back(f);
          }
        }
      }
    }
    // p2p-slower-than-staged: compare at the largest size both measured.
    if (same_host) {
      for (const auto& name : methods_here) {
        const auto* m = method(name);
        if (!m || (m->family != "ce" && m->family != "sm") || m->metric != Metric::kBandwidth ||
            m->bidirectional) {
          continue;
        }
        const Result* p2p = nullptr;
        const Result* staged = nullptr;
        for (const auto& r : d.results) {
          if (r.src != src || r.dst != dst || r.status != ResultStatus::kOk || !r.algbw_gbps)
            continue;
          if (r.method != name) continue;
          for (const auto& s : d.results) {
            if (s.method == "staged" && s.src == src && s.dst == dst && s.bytes == r.bytes &&
                s.status == ResultStatus::kOk && s.algbw_gbps && (!p2p || r.bytes > p2p->bytes)) {
              p2p = &r;
              staged = &s;
            }
          }
        }
        if (p2p && staged && p2p->algbw_gbps->median < staged->algbw_gbps->median) {
          Flag f;
          f.code = "p2p-slower-than-staged";
          f.method = name;
          f.message = name + " (" + format_fixed(p2p->algbw_gbps->median, 1) +
                      " GB/s) is slower than copying through host memory (" +
                      format_fixed(staged->algbw_gbps->median, 1) + " GB/s) at " +
                      format_size(p2p->bytes) + ": the peer path is broken or throttled";
          f.evidence = {{"p2p_gbps", p2p->algbw_gbps->median},
                        {"staged_gbps", staged->algbw_gbps->median},
                        {"bytes", p2p->bytes}};
          v.flags.push_back(f);
        }
      }
    }
    v.observed.clear();
    for (const auto& o : observed) v.observed += (v.observed.empty() ? "" : "; ") + o;
    v.verdict = !v.flags.empty() ? "flagged" : (measured ? "pass" : "not-measured");
    out.push_back(std::move(v));
  }

  // Methods over all ranks (all-reduce): one verdict.
  bool any_all = false;
  PairVerdict all;
  all.link = "all";
  all.link_description = "all ranks";
  for (const auto& r : d.results) {
    if (r.src >= 0 || r.dst >= 0) continue;
    any_all = true;
    if (r.wrong > 0) {
      all.flags.push_back({"data-errors",
                           r.method,
                           r.method + " produced " + std::to_string(r.wrong) +
                               " wrong elements at " + format_size(r.bytes),
                           {{"bytes", r.bytes}, {"wrong", r.wrong}}});
    }
    if (r.status == ResultStatus::kError || r.status == ResultStatus::kTimeout) {
      all.flags.push_back(
          {"measurement-failed",
           r.method,
           r.method + " " + to_string(r.status) + " at " + format_size(r.bytes) + ": " + r.reason,
           {{"bytes", r.bytes}, {"reason", r.reason}}});
    }
  }
  if (any_all) {
    std::set<std::string> names;
    for (const auto& r : d.results) {
      if (r.src < 0 && r.dst < 0) names.insert(r.method);
    }
    // Slowest local link among the ranks bounds a single-host all-reduce.
    std::optional<double> slowest;
    std::string slowest_basis;
    if (d.system.hosts.size() <= 1) {
      for (const auto& [s, t] : pairs) {
        const auto l = link_of(d, s, t);
        if (l.expected && (!slowest || l.expected->raw_gbps < *slowest)) {
          slowest = l.expected->raw_gbps;
          slowest_basis = l.expected->basis;
        }
      }
    }
    std::vector<std::string> observed;
    for (const auto& name : names) {
      const auto* r = largest_ok_result(d, name, -1, -1);
      if (!r) continue;
      const double value = headline_value(method(name), *r);
      observed.push_back(name + " busbw " + format_fixed(value, 1) + " GB/s @ " +
                         format_size_compact(r->bytes));
      std::optional<double> threshold;
      std::string basis;
      if (auto it = e.min_gbps.find(name); it != e.min_gbps.end()) {
        threshold = it->second;
        basis = "minimum from " + e.source;
      } else if (slowest) {
        threshold = e.allreduce_fraction_of_link * *slowest;
        basis = format_fixed(e.allreduce_fraction_of_link * 100, 0) +
                "% of the slowest local link, " + slowest_basis;
      }
      if (threshold && value < *threshold) {
        all.flags.push_back({"below-link",
                             name,
                             name + " bus bandwidth " + format_fixed(value, 1) + " GB/s at " +
                                 format_size(r->bytes) + " is under " +
                                 format_fixed(*threshold, 1) + " GB/s",
                             {{"measured_gbps", value},
                              {"threshold_gbps", *threshold},
                              {"basis", basis},
                              {"bytes", r->bytes}}});
      }
    }
    for (const auto& o : observed) all.observed += (all.observed.empty() ? "" : "; ") + o;
    all.verdict = !all.flags.empty() ? "flagged" : (observed.empty() ? "not-measured" : "pass");
    out.push_back(std::move(all));
  }
  return out;
}

int count_failing_flags(const std::vector<PairVerdict>& v, const std::string& fail_on) {
  if (fail_on == "none") return 0;
  const auto codes = split(fail_on, ',');
  int n = 0;
  for (const auto& pv : v) {
    for (const auto& f : pv.flags) {
      if (fail_on == "all" || std::find(codes.begin(), codes.end(), f.code) != codes.end()) ++n;
    }
  }
  return n;
}

}  // namespace peerbench
