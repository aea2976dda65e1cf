// Which road the bytes took: peer access that was never possible, NCCL's transport between GPUs
// of one host, NVLink data counters that did not move with a copy, a peer copy slower than going
// through host memory.
#include <algorithm>
#include <cctype>
#include <map>

#include "core/base/text.h"
#include "core/judge/verdict_context.h"
#include "core/model/sizes.h"

namespace peerbench::verdict_detail {

using nlohmann::json;

void host_staged_flag(const Ctx& c, PairVerdict& v, const PairFacts& f) {
  const bool cannot = (f.can_access_peer && !*f.can_access_peer) ||
                      f.peer_access == "unsupported" || f.peer_access == "error";
  if (!cannot) return;
  json ev = {{"can_access_peer", f.can_access_peer ? json(*f.can_access_peer) : json()},
             {"peer_access", f.peer_access},
             {"error", f.error}};
  if (const auto* st = c.idx.largest_ok("staged", v.src, v.dst)) {
    ev["staged_gbps"] = st->algbw_gbps ? st->algbw_gbps->median : 0.0;
    ev["staged_bytes"] = st->bytes;
  }
  v.flags.push_back(make_flag("host-staged", "",
                              "no peer-to-peer between " + who(c, v.src) + " and " + who(c, v.dst) +
                                  " on one host: copies go through host memory",
                              ev));
}

std::string transport_text(const PairTransport& t) {
  std::string s = t.details.empty() ? t.kind : t.details.front();
  if (!t.net_paths.empty()) {
    s.clear();
    for (const auto& p : t.net_paths) s += (s.empty() ? "" : ", ") + p;
    if (t.gdrdma) s += *t.gdrdma ? " GDRDMA" : " (no GDRDMA)";
  }
  return s + " (" + std::to_string(t.channels) + " ch)";
}

namespace {

// NCCL variables in the run's environment that steer NCCL off the road a link offers
// (NCCL_P2P_DISABLE=1 to SHM; with NCCL_SHM_DISABLE=1 to NET; NCCL_IB_DISABLE=1 to sockets). A
// flag raised under them still fails the run, but names the operator's setting as its cause
// rather than leaving a technician to suspect the link.
std::vector<std::string> forcing_variables(const Ctx& c, const std::string& road) {
  // Only values that turn the road off: NCCL_P2P_LEVEL=SYS or NVL allows P2P over NVLink, and
  // NCCL_NET=IB asks for InfiniBand; naming them would blame a setting for a real fault.
  static const std::map<std::string, std::vector<std::string>> steer = {
      {"SHM", {"NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL"}},
      {"NET", {"NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL", "NCCL_SHM_DISABLE"}},
      {"Socket", {"NCCL_IB_DISABLE", "NCCL_NET"}}};
  auto lower = [](std::string s) {
    for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
  };
  std::vector<std::string> set;
  for (const auto& name : steer.at(road)) {
    const auto it = c.d.environment.find(name);
    if (it == c.d.environment.end() || it->second.empty()) continue;
    const std::string value = lower(it->second);
    const bool off = name == "NCCL_P2P_LEVEL" ? value == "loc" || value == "0"
                     : name == "NCCL_NET"     ? value == "socket"
                                              : value != "0";  // the *_DISABLE variables
    if (off) set.push_back(name + "=" + it->second);
  }
  return set;
}

// The flag's message and evidence name the variables that forced the road, when any were set.
Flag forced_by(Flag f, const std::vector<std::string>& vars) {
  if (vars.empty()) return f;
  f.message += "; the run's environment set " + join(vars, " and ") +
               ", which steers NCCL this way: the setting, not the link, is the first suspect";
  f.evidence["forced_by"] = vars;
  return f;
}

}  // namespace

void nccl_flags(const Ctx& c, PairVerdict& v, const PairTransport& t, const Link& link) {
  const json base = {{"transport", t.kind},   {"details", t.details},     {"channels", t.channels},
                     {"log_line", t.example}, {"net_paths", t.net_paths}, {"link", v.link}};
  if (link.cls.kind == LinkKind::kCrossHost) {
    const bool socket = std::any_of(t.details.begin(), t.details.end(), [](const std::string& d) {
      return d.rfind("NET/Socket", 0) == 0;
    });
    if (socket) {
      v.flags.push_back(forced_by(
          make_flag("nccl-net-socket", "",
                    "NCCL used its Socket transport from " + who(c, v.src) + " to " +
                        who(c, v.dst) +
                        ": between hosts that means the InfiniBand/RoCE path is not in use",
                    base),
          forcing_variables(c, "Socket")));
    }
    return;
  }
  if (link.cls.kind == LinkKind::kSameGpu) return;
  for (const auto& k : t.kinds) {
    if (k != "SHM" && k != "NET") continue;
    v.flags.push_back(forced_by(
        make_flag(
            k == "SHM" ? "nccl-shm" : "nccl-net", "",
            "NCCL used " + (k == "SHM" ? std::string("shared memory (SHM)") : "the network (NET)") +
                " from " + who(c, v.src) + " to " + who(c, v.dst) + " on one host" +
                (link.cls.kind == LinkKind::kNvLink ? " although they share " + v.link_description
                                                    : ""),
            base),
        forcing_variables(c, k)));
  }
}

// NVML's NVLink data counters count whole KiB per link (18 links on H200), and small copies
// carry protocol overhead: on 2 x H200, 6 B of 1-byte copies read 0 KiB and 6000 B of 1000-byte
// copies 8-9 KiB. Under 1 MiB of payload the counters cannot tell a road; the check waits for one.
constexpr double kCountersResolveBytes = 1 << 20;

// A copy-engine copy on NVLink whose NVLink data counters moved less than the payload.
void off_nvlink_flag(const Ctx& c, PairVerdict& v, const MethodInfo& m,
                     const std::vector<const Result*>& rs, const Link& link) {
  if (m.family != "ce" || m.metric != Metric::kBandwidth || link.cls.kind != LinkKind::kNvLink)
    return;
  for (auto it = rs.rbegin(); it != rs.rend(); ++it) {
    const Result& r = **it;
    if (r.status != ResultStatus::kOk || !r.link_counters) continue;
    const auto& lc = *r.link_counters;
    if ((!lc.src_tx_bytes && !lc.dst_rx_bytes) || lc.payload_bytes < kCountersResolveBytes)
      continue;
    const double moved = std::min(lc.src_tx_bytes.value_or(lc.payload_bytes),
                                  lc.dst_rx_bytes.value_or(lc.payload_bytes));
    if (moved >= c.e.off_nvlink_fraction * lc.payload_bytes) return;
    v.flags.push_back(
        make_flag("off-nvlink", m.name,
                  m.name + " at " + format_size(r.bytes) + " from " + who(c, v.src) + " to " +
                      who(c, v.dst) + " moved " + format_fixed(100 * moved / lc.payload_bytes, 1) +
                      "% of its payload over NVLink: the bytes took another road",
                  {{"src_nvlink_tx_bytes", lc.src_tx_bytes ? json(*lc.src_tx_bytes) : json()},
                   {"dst_nvlink_rx_bytes", lc.dst_rx_bytes ? json(*lc.dst_rx_bytes) : json()},
                   {"payload_bytes", lc.payload_bytes},
                   {"fraction_required", c.e.off_nvlink_fraction},
                   {"bytes", r.bytes}}));
    return;
  }
}

// p2p-slower-than-staged: a peer copy slower than copying through host memory, at the largest
// size both measured.
void p2p_vs_staged_flags(const Ctx& c, PairVerdict& v) {
  for (const auto& mv : v.methods) {
    const auto* m = c.method(mv.method);
    if (!m || (m->family != "ce" && m->family != "sm") || m->metric != Metric::kBandwidth ||
        m->bidirectional) {
      continue;
    }
    const auto& rs = c.idx.of(m->name, v.src, v.dst);
    for (auto it = rs.rbegin(); it != rs.rend(); ++it) {
      const Result* p2p = *it;
      const Result* staged = c.idx.ok_at("staged", v.src, v.dst, p2p->bytes);
      if (p2p->status != ResultStatus::kOk || !p2p->algbw_gbps || !staged || !staged->algbw_gbps)
        continue;
      // Another process or held clocks slow either copy: no accusation from that comparison.
      if (contended(*p2p) || throttled(*p2p) || contended(*staged) || throttled(*staged)) break;
      if (p2p->algbw_gbps->median < staged->algbw_gbps->median) {
        v.flags.push_back(make_flag("p2p-slower-than-staged", m->name,
                                    m->name + " (" + format_fixed(p2p->algbw_gbps->median, 1) +
                                        " GB/s) is slower than copying through host memory (" +
                                        format_fixed(staged->algbw_gbps->median, 1) + " GB/s) at " +
                                        format_size(p2p->bytes) +
                                        ": the peer path is broken or throttled",
                                    {{"p2p_gbps", p2p->algbw_gbps->median},
                                     {"staged_gbps", staged->algbw_gbps->median},
                                     {"bytes", p2p->bytes}}));
      }
      break;
    }
  }
}

}  // namespace peerbench::verdict_detail
