// The shared steps of every reader: lines checked once, the document, ranks, figures, NCCL's log,
// and the finish that names the methods and the hosts.
#include "core/import/import_document.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "core/base/errors.h"
#include "core/model/known_good.h"
#include "core/model/method_catalog.h"
#include "core/model/schema.h"
#include "core/platform/input_limits.h"

namespace peerbench::import_detail {

void refuse(const std::string& file, int line, const std::string& why) {
  throw InputError(file, "", (line > 0 ? "line " + std::to_string(line) + ": " : "") + why);
}

std::vector<Line> text_lines(const std::string& text, const std::string& file) {
  std::vector<Line> out;
  std::size_t start = 0;
  int number = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    ++number;
    std::string_view l(text.data() + start, end - start);
    if (l.size() > kMaxImportLineBytes)
      refuse(file, number,
             "longer than " + std::to_string(kMaxImportLineBytes) +
                 " bytes: not the text output of nccl-tests, nvbandwidth, "
                 "p2pBandwidthLatencyTest or nvidia-smi topo -m");
    if (l.find('\0') != std::string_view::npos)
      refuse(file, number, "a NUL byte: binary data, not a tool's text output");
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    out.push_back({l, number});
    start = end + 1;
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    const std::size_t b = i;
    while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i > b) out.emplace_back(s.substr(b, i - b));
  }
  return out;
}

std::optional<double> number(std::string_view s) {
  const std::string t(trim(s));
  if (t.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || v != v) return std::nullopt;  // text, or nan
  return v;
}

RunDocument new_document(const std::string& tool, const std::string& version,
                         const std::string& format, const std::string& file) {
  RunDocument d;
  d.schema_version = kSchemaVersion;
  d.tool.name = tool;
  d.tool.version = version;
  d.config = nlohmann::json::object();
  d.config["imported"] = {{"tool", tool},
                          {"format", format},
                          {"file", file},
                          {"unmapped", nlohmann::json::array()},
                          {"unknown", nlohmann::json::array()}};
  d.nccl.mode = "not-captured";
  d.nccl.note = "the output holds no NCCL INFO lines (NCCL_DEBUG=INFO was not set)";
  return d;
}

int add_rank(RunDocument& d, const std::string& host, int device, const std::string& gpu_name,
             const std::string& pci_bus_id) {
  RankInfo r;
  r.rank = static_cast<int>(d.system.ranks.size());
  r.host = host;
  r.local_rank = static_cast<int>(std::count_if(d.system.ranks.begin(), d.system.ranks.end(),
                                                [&](const RankInfo& o) { return o.host == host; }));
  r.gpu.index = device;
  r.gpu.name = gpu_name;
  r.gpu.pci_bus_id = pci_bus_id;
  if (const auto cc = compute_capability_major(gpu_name)) r.gpu.cc_major = *cc;
  d.system.ranks.push_back(r);
  return r.rank;
}

Result figure_result(const std::string& method, int src, int dst, std::uint64_t bytes) {
  Result r;
  r.method = method;
  r.src = src;
  r.dst = dst;
  r.bytes = bytes;
  r.status = ResultStatus::kOk;
  r.samples = 1;
  return r;
}

namespace {
Stats one_value(double v) {
  Stats s;
  s.min = s.median = s.max = s.mean = v;
  s.count = 1;
  return s;
}
}  // namespace

void set_bandwidth(Result& r, double gbps) {
  r.algbw_gbps = one_value(gbps);
}
void set_time(Result& r, double us) {
  r.time_us = one_value(us);
}

void note_unmapped(RunDocument& d, const std::string& test, const std::string& why) {
  auto& list = d.config["imported"]["unmapped"];
  for (const auto& u : list) {
    if (u["test"] == test) return;
  }
  list.push_back({{"test", test}, {"why", why}});
}

void note_unknown(RunDocument& d, const std::string& what) {
  auto& list = d.config["imported"]["unknown"];
  if (std::find(list.begin(), list.end(), what) == list.end()) list.push_back(what);
}

void add_nccl_log(RunDocument& d, const NcclLogParse& log) {
  if (log.nccl_version && d.system.nccl_version.empty()) d.system.nccl_version = *log.nccl_version;
  if (log.transports.empty() && log.graphs.empty()) return;
  d.nccl.mode = "user-file";
  d.nccl.note = "NCCL INFO lines of the imported output";
  d.nccl.graphs = log.graphs;
  d.nccl.unknown_lines = log.unknown;
  d.nccl.path_type = dominant_intra_path(log.graphs);
  for (const auto& t : summarize_transports(log.transports)) {
    PairFacts f;
    f.src = t.src_rank;
    f.dst = t.dst_rank;
    f.same_host = host_of(d, t.src_rank) == host_of(d, t.dst_rank);
    f.peer_access = f.same_host ? "" : "not-applicable";
    f.nccl = t;
    d.pairs.push_back(f);
  }
}

void finish_document(RunDocument& d, bool complete, const std::string& why_incomplete) {
  std::set<std::string> measured;
  auto& cfg = d.config;
  if (cfg.contains("methods")) {
    for (const auto& m : cfg["methods"]) measured.insert(m.get<std::string>());
  }
  for (const auto& r : d.results) measured.insert(r.method);
  nlohmann::json names = nlohmann::json::array();
  for (const auto& m : method_catalog()) {
    if (!measured.count(m.name)) continue;
    names.push_back(m.name);
    d.methods.push_back(m);
  }
  cfg["methods"] = names;
  for (const auto& r : d.system.ranks) {
    if (std::find(d.system.hosts.begin(), d.system.hosts.end(), r.host) == d.system.hosts.end())
      d.system.hosts.push_back(r.host);
  }
  d.status = complete ? "complete" : "incomplete";
  if (!complete) d.errors.push_back(why_incomplete);
}

// Compute capability by model: what the NVLink rate per link depends on (core/model/topology.h,
// nvlink_gbps_per_link). CUDA's names, folded as normalize_gpu_name folds them.
std::optional<int> compute_capability_major(const std::string& gpu_name) {
  const std::string n = normalize_gpu_name(gpu_name);
  struct Row {
    const char* prefix;
    int cc;
  };
  static const Row rows[] = {{"V100", 7},  {"TESLA V100", 7}, {"A100", 8},  {"A800", 8},
                             {"A40", 8},   {"A30", 8},        {"A10", 8},   {"H100", 9},
                             {"H200", 9},  {"H800", 9},       {"H20", 9},   {"GH200", 9},
                             {"B200", 10}, {"B100", 10},      {"GB200", 10}};
  for (const auto& r : rows) {
    const std::string p = normalize_gpu_name(r.prefix);
    if (n.compare(0, p.size(), p) == 0 && (n.size() == p.size() || n[p.size()] == ' ')) return r.cc;
  }
  return std::nullopt;
}

}  // namespace peerbench::import_detail
