#include "core/model/nccl_log.h"
#include "core/base/text.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>
#include <string>

namespace peerbench {
namespace {

// Splits the text after "via " into kind, detail and modifiers.
void classify_via(const std::string& via, TransportObservation& t) {
  auto parts = split(via, '/');
  if (parts.empty()) {
    t.kind = "unknown";
    return;
  }
  const std::string head = parts[0];
  if (head == "P2P") {
    t.kind = "P2P";
    if (parts.size() < 2) {
      t.detail = "";
      return;
    }
    t.detail = parts[1];
    std::size_t i = 2;
    if (t.detail == "MNNVL") {
      t.modifiers.push_back("MNNVL");
      t.detail = "CUMEM";
    }
    if (t.detail == "indirect" && parts.size() > 2) {
      t.modifiers.push_back("via " + parts[2]);
      i = 3;
    }
    for (; i < parts.size(); ++i) t.modifiers.push_back(parts[i]);
    if (t.detail != "CUMEM" && t.detail != "IPC" && t.detail != "direct pointer" &&
        t.detail != "indirect") {
      t.kind = "unknown";
    }
  } else if (head == "SHM") {
    t.kind = "SHM";
    // SHM/<send side>/<receive side>, each "direct" or "CE"
    std::string rest;
    for (std::size_t i = 1; i < parts.size(); ++i) rest += (i > 1 ? "/" : "") + parts[i];
    t.detail = rest;
  } else if (head == "NET") {
    t.kind = "NET";
    if (parts.size() >= 2) t.detail = parts[1];  // Socket, IB, AWS Libfabric, ...
    // parts[2] is the device ("0" or "0(1)" with a proxy rank); the rest are modifiers
    if (parts.size() >= 3) {
      const auto open = parts[2].find('(');
      t.net_device = parts[2].substr(0, open);
      if (open != std::string::npos) t.modifiers.push_back("proxy " + parts[2].substr(open));
    }
    for (std::size_t i = 3; i < parts.size(); ++i) t.modifiers.push_back(parts[i]);
  } else {
    t.kind = "unknown";
    t.detail = via;
  }
}

// A tiny cursor over one line. Hand-written rather than std::regex: log lines come from files
// we do not control, and libstdc++'s regex recurses per character on long input.
class Cursor {
 public:
  explicit Cursor(const std::string& s) : s_(s) {}
  void skip_spaces() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t')) ++i_;
  }
  bool literal(const char* lit) {
    const std::size_t n = std::char_traits<char>::length(lit);
    if (s_.compare(i_, n, lit) != 0) return false;
    i_ += n;
    return true;
  }
  bool number(int& out) {
    std::size_t j = i_;
    long v = 0;
    while (j < s_.size() && std::isdigit(static_cast<unsigned char>(s_[j])) && j - i_ < 9) {
      v = v * 10 + (s_[j] - '0');
      ++j;
    }
    if (j == i_) return false;
    out = static_cast<int>(v);
    i_ = j;
    return true;
  }
  bool decimal(double& out) {
    std::size_t j = i_;
    while (j < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[j])) || s_[j] == '.') &&
           j - i_ < 24) {
      ++j;
    }
    if (j == i_) return false;
    try {
      out = std::stod(s_.substr(i_, j - i_));
    } catch (...) {
      return false;
    }
    i_ = j;
    return true;
  }
  // Characters of `set` (alnum when null).
  bool word(std::string& out, bool hex_only) {
    std::size_t j = i_;
    while (j < s_.size() && j - i_ < 32) {
      const unsigned char c = static_cast<unsigned char>(s_[j]);
      if (hex_only ? !std::isxdigit(c) : !(std::isupper(c) || std::isdigit(c))) break;
      ++j;
    }
    if (j == i_) return false;
    out = s_.substr(i_, j - i_);
    i_ = j;
    return true;
  }
  std::string rest() const { return i_ < s_.size() ? s_.substr(i_) : std::string(); }

 private:
  const std::string& s_;
  std::size_t i_ = 0;
};

bool rank_and_dev(Cursor& c, int& rank, std::string& dev) {
  return c.number(rank) && c.literal("[") && c.word(dev, true) && c.literal("]");
}

// "Channel 00/0 : 0[0] -> 1[1] [send] via NET/Socket/0"
bool parse_channel(const std::string& tail, TransportObservation& t) {
  Cursor c(tail);
  if (!c.literal("Channel")) return false;
  c.skip_spaces();
  if (!c.number(t.channel)) return false;
  if (c.literal("/") && !c.number(t.conn_index)) return false;
  c.skip_spaces();
  if (!c.literal(":")) return false;
  c.skip_spaces();
  if (!rank_and_dev(c, t.src_rank, t.src_dev)) return false;
  c.skip_spaces();
  if (!c.literal("->")) return false;
  c.skip_spaces();
  if (!rank_and_dev(c, t.dst_rank, t.dst_dev)) return false;
  c.skip_spaces();
  if (c.literal("[send]")) {
    t.side = "send";
  } else if (c.literal("[receive]")) {
    t.side = "receive";
  }
  c.skip_spaces();
  if (!c.literal("via ")) return false;
  std::string via = c.rest();
  while (!via.empty() && std::isspace(static_cast<unsigned char>(via.back()))) via.pop_back();
  if (via.empty()) return false;
  classify_via(via, t);
  return true;
}

// "Pattern 4, crossNic 0, nChannels 24, bw 40.0/40.0, type NVL/PIX, sameChannels 1"
bool parse_pattern(const std::string& tail, GraphObservation& g) {
  Cursor c(tail);
  int cross = 0;
  if (!(c.literal("Pattern ") && c.number(g.pattern) && c.literal(", crossNic ") &&
        c.number(cross) && c.literal(", nChannels ") && c.number(g.nchannels) &&
        c.literal(", bw ") && c.decimal(g.bw_intra) && c.literal("/") && c.decimal(g.bw_inter) &&
        c.literal(", type ") && c.word(g.type_intra, false) && c.literal("/") &&
        c.word(g.type_inter, false))) {
    return false;
  }
  return true;
}

// The variables whose echo is a reason: they steer NCCL's transports.
bool steering_variable(const std::string& name) {
  static const char* const names[] = {
      "NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL",    "NCCL_SHM_DISABLE",   "NCCL_IB_DISABLE",
      "NCCL_NET",         "NCCL_CUMEM_ENABLE", "NCCL_SOCKET_IFNAME", "NCCL_NET_GDR_LEVEL"};
  for (const char* n : names)
    if (name == n) return true;
  return false;
}

}  // namespace

std::optional<std::string> nccl_reason_of(const std::string& line) {
  std::size_t at = line.find("NCCL INFO ");
  if (at == std::string::npos) at = line.find("NCCL WARN ");
  if (at == std::string::npos) return std::nullopt;
  std::string msg = line.substr(at + 10);
  while (!msg.empty() && std::isspace(static_cast<unsigned char>(msg.back()))) msg.pop_back();
  if (msg.size() > 400) msg.resize(400);  // NCCL's are short; cap a hostile file's
  const auto env = msg.find(" set by environment to ");
  if (env != std::string::npos) {
    if (steering_variable(msg.substr(0, env))) return msg;
    return std::nullopt;
  }
  static const char* const starts[] = {"Could not enable P2P between",
                                       "peer query failed between",
                                       "Legacy IPC not supported",
                                       "failed to peer with device",
                                       "P2P is disabled between",
                                       "NET/IB : No device found",
                                       "NET/Socket : No usable listening interface",
                                       "Error: failed to create shared memory",
                                       "Error: failed to extend ",
                                       "Error: Could not map ",
                                       "Error while creating shared memory segment",
                                       "Error while attaching to shared memory segment",
                                       "cuMem host allocations do not appear to be working"};
  for (const char* s : starts)
    if (msg.rfind(s, 0) == 0) return msg;
  return std::nullopt;
}

bool parse_nccl_log_line(const std::string& line_in, NcclLogParse& out) {
  std::string line = line_in;
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.pop_back();
  if (line.size() > 4096) line.resize(4096);  // NCCL lines are short; cap hostile input
  if (auto reason = nccl_reason_of(line)) {
    if (std::find(out.reasons.begin(), out.reasons.end(), *reason) == out.reasons.end() &&
        out.reasons.size() < 64) {
      out.reasons.push_back(std::move(*reason));
    }
    return true;
  }
  const auto ver = line.find("NCCL version ");
  if (ver != std::string::npos) {
    std::string v = line.substr(ver + 13);
    const auto end = v.find_first_of(" \t");
    if (end != std::string::npos) v.resize(end);
    if (!v.empty() && std::isdigit(static_cast<unsigned char>(v[0])) && !out.nccl_version) {
      out.nccl_version = v;
    }
    return false;
  }
  const auto ch = line.find("Channel ");
  if (ch != std::string::npos && line.find(" via ", ch) != std::string::npos) {
    const std::string tail = line.substr(ch);
    TransportObservation t;
    t.raw = tail;
    if (parse_channel(tail, t)) {
      if (t.kind == "unknown") out.unknown.push_back(tail);
      out.transports.push_back(std::move(t));
    } else {
      out.unknown.push_back(tail);
    }
    return true;
  }
  const auto pat = line.find("Pattern ");
  if (pat != std::string::npos) {
    GraphObservation g;
    g.raw = line.substr(pat);
    if (parse_pattern(g.raw, g)) {
      out.graphs.push_back(std::move(g));
      return true;
    }
  }
  return false;
}

NcclLogParse parse_nccl_log(const std::string& text) {
  NcclLogParse out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    ++out.lines_read;
    parse_nccl_log_line(line, out);
  }
  return out;
}

namespace {

// What the log says of one ordered pair of ranks, gathered over its connections.
struct TransportTally {
  std::map<std::string, int> kind_count;
  std::set<std::string> details;
  std::set<std::pair<int, int>> channels;  // (conn_index, channel)
  std::set<int> channel_ids;
  int connections = 0;
  std::string example;
  std::set<std::string> net_paths;
  std::optional<bool> gdrdma;
};

// The pair's transport: its most used kind ("mixed" where several), details, channels, example.
PairTransport transport_of(std::pair<int, int> pair, const TransportTally& a) {
  PairTransport p;
  p.src_rank = pair.first;
  p.dst_rank = pair.second;
  int best = -1;
  for (const auto& [k, c] : a.kind_count) {
    p.kinds.push_back(k);
    if (c > best) {
      best = c;
      p.kind = k;
    }
  }
  if (a.kind_count.size() > 1) {
    // A pair that mixes transports (say P2P for rings, NET for a proxy path) says so.
    p.kind = "mixed";
  }
  p.details.assign(a.details.begin(), a.details.end());
  p.channels = static_cast<int>(a.channel_ids.size());
  p.connections = a.connections;
  p.example = a.example;
  p.net_paths.assign(a.net_paths.begin(), a.net_paths.end());
  p.gdrdma = a.gdrdma;
  return p;
}

}  // namespace

std::vector<PairTransport> summarize_transports(const std::vector<TransportObservation>& obs) {
  std::map<std::pair<int, int>, TransportTally> by_pair;
  std::set<std::tuple<int, int, int, int, std::string>> seen;  // de-duplicate send/receive sides
  for (const auto& t : obs) {
    if (t.src_rank < 0 || t.dst_rank < 0) continue;
    auto key = std::make_tuple(t.src_rank, t.dst_rank, t.channel, t.conn_index, t.kind);
    auto& a = by_pair[{t.src_rank, t.dst_rank}];
    std::string d = t.kind;
    if (!t.detail.empty()) d += "/" + t.detail;
    for (const auto& m : t.modifiers) d += "/" + m;
    a.details.insert(d);
    if (t.kind == "NET") {
      a.net_paths.insert("NET/" + t.detail + (t.net_device.empty() ? "" : "/" + t.net_device));
      const bool rdma =
          std::find(t.modifiers.begin(), t.modifiers.end(), "GDRDMA") != t.modifiers.end();
      a.gdrdma = a.gdrdma.value_or(false) || rdma;
    }
    if (a.example.empty() ||
        (t.side != "receive" && a.example.find("[receive]") != std::string::npos)) {
      a.example = t.raw;
    }
    if (!seen.insert(key).second) continue;
    a.kind_count[t.kind]++;
    a.channel_ids.insert(t.channel);
    a.connections++;
  }
  std::vector<PairTransport> out;
  for (const auto& [pair, a] : by_pair) out.push_back(transport_of(pair, a));
  return out;
}

std::string dominant_intra_path(const std::vector<GraphObservation>& graphs) {
  std::map<std::string, int> count;
  for (const auto& g : graphs) count[g.type_intra] += std::max(1, g.nchannels);
  std::string best;
  int n = -1;
  for (const auto& [t, c] : count) {
    if (c > n) {
      best = t;
      n = c;
    }
  }
  return best;
}

}  // namespace peerbench
