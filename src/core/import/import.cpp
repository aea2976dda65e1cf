// Which tool wrote a file, by its content, and the reader that turns it into a run.
#include "core/import/import.h"

#include <algorithm>

#include "core/base/errors.h"
#include "core/import/import_document.h"
#include "core/import/nccl_tests.h"
#include "core/import/nvbandwidth.h"
#include "core/import/p2p_bandwidth.h"
#include "core/model/schema.h"
#include "core/platform/input_file.h"

namespace peerbench {

using namespace import_detail;

std::string format_name(ImportFormat f) {
  switch (f) {
    case ImportFormat::kPeerbenchRun:
      return "a peerbench results file";
    case ImportFormat::kNcclTestsText:
      return "nccl-tests text output";
    case ImportFormat::kNcclTestsJson:
      return "nccl-tests JSON (-J)";
    case ImportFormat::kNvbandwidthText:
      return "nvbandwidth text output";
    case ImportFormat::kNvbandwidthJson:
      return "nvbandwidth JSON (-j)";
    case ImportFormat::kP2pBandwidthLatency:
      return "p2pBandwidthLatencyTest output";
    case ImportFormat::kTopoMatrix:
      return "nvidia-smi topo -m output";
    case ImportFormat::kUnknown:
      break;
  }
  return "unknown";
}

namespace {

// What a verdict between GPUs of one host lacks without a topology.
constexpr const char* kNoTopology =
    "the links between the GPUs of a host (no nvidia-smi topo -m given: peerbench import LOG TOPO)";

// The first key of a JSON object, as written ("" where there is none). nvbandwidth writes
// {"nvbandwidth": ...} and nccl-tests {"version": 3, "start_time": ...} in that order, while
// peerbench's own files come sorted ("burn_in", "config", ...): a marker further in (nccl_version
// is a key of a peerbench run's system too) could mistake a large run for another tool's.
std::string first_key(std::string_view t) {
  t = trim(t.substr(1));
  if (t.empty() || t.front() != '"') return "";
  const auto end = t.find('"', 1);
  return end == std::string_view::npos ? "" : std::string(t.substr(1, end - 1));
}

ImportFormat detect_json(std::string_view head) {
  const std::string key = first_key(head);
  if (key == "nvbandwidth") return ImportFormat::kNvbandwidthJson;
  if (key == "version" && contains(head, "\"start_time\"") && contains(head, "\"args\""))
    return ImportFormat::kNcclTestsJson;
  if (contains(head, "\"peerbench-run\"") || contains(head, "\"schema_version\""))
    return ImportFormat::kPeerbenchRun;
  return ImportFormat::kUnknown;
}

// A line "GPU0 GPU1 ...": the header of nvidia-smi topo -m.
bool has_topo_header(std::string_view head) {
  std::size_t at = 0;
  while ((at = head.find("GPU0", at)) != std::string_view::npos) {
    const std::size_t bol = head.rfind('\n', at);
    const auto before = head.substr(bol == std::string_view::npos ? 0 : bol + 1,
                                    at - (bol == std::string_view::npos ? 0 : bol + 1));
    const auto w = words(head.substr(at, head.find('\n', at) - at));
    if (trim(before).empty() && w.size() >= 2 && w[1] == "GPU1") return true;
    at += 4;
  }
  return false;
}

}  // namespace

ImportFormat detect_format(const std::string& text) {
  const std::string_view head(text.data(), std::min(text.size(), kImportSniffBytes));
  const auto t = trim(head);
  if (!t.empty() && t.front() == '{') return detect_json(t);
  if (contains(head, "# nccl-tests version") || contains(head, "Collective test starting") ||
      (contains(head, "out-of-place") && contains(head, "in-place")) ||
      (contains(head, "#  Rank") && contains(head, " Pid ")))
    return ImportFormat::kNcclTestsText;
  if (contains(head, "nvbandwidth Version") || contains(head, "Running device_to_device_") ||
      contains(head, "Running host_to_device_") || contains(head, "memcpy CE GPU(row)"))
    return ImportFormat::kNvbandwidthText;
  if (contains(head, "P2P Connectivity Matrix") ||
      contains(head, "P2P (Peer-to-Peer) GPU Bandwidth Latency Test"))
    return ImportFormat::kP2pBandwidthLatency;
  if (has_topo_header(head)) return ImportFormat::kTopoMatrix;
  return ImportFormat::kUnknown;
}

namespace {

nlohmann::json parse_json(const std::string& text, const std::string& file) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(file, "", std::string("not valid JSON: ") + e.what());
  }
}

std::string file_stem(const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  const auto dot = name.rfind('.');
  return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

// Ranks with no host (outputs that print none) are named after the file, so that a fleet of such
// files is a fleet of nodes; config.imported.unknown says so.
void name_hosts(RunDocument& d, const std::string& file) {
  bool unnamed = false;
  for (auto& r : d.system.ranks) {
    if (!r.host.empty()) continue;
    r.host = file_stem(file);
    unnamed = true;
  }
  if (!unnamed) return;
  note_unknown(d, "the host name (the output prints none): named after the file");
  d.system.hosts.clear();
  for (const auto& r : d.system.ranks) {
    if (std::find(d.system.hosts.begin(), d.system.hosts.end(), r.host) == d.system.hosts.end())
      d.system.hosts.push_back(r.host);
  }
}

RunDocument read_by_format(ImportFormat f, const std::string& text, const std::string& file) {
  switch (f) {
    case ImportFormat::kNcclTestsText:
      return read_nccl_tests_text(text, file);
    case ImportFormat::kNcclTestsJson:
      return read_nccl_tests_json(parse_json(text, file), file);
    case ImportFormat::kNvbandwidthText:
      return read_nvbandwidth_text(text, file);
    case ImportFormat::kNvbandwidthJson:
      return read_nvbandwidth_json(parse_json(text, file), file);
    case ImportFormat::kP2pBandwidthLatency:
      return read_p2p_bandwidth_latency(text, file);
    case ImportFormat::kTopoMatrix:
      throw InputError(file, "",
                       "nvidia-smi topo -m output: a topology, not a run; give it beside a log "
                       "(peerbench import LOG TOPO)");
    default:
      break;
  }
  throw InputError(file, "",
                   "neither a peerbench results file nor the output of nccl-tests, nvbandwidth, "
                   "p2pBandwidthLatencyTest or nvidia-smi topo -m (docs/import.md)");
}

}  // namespace

RunDocument import_text(const std::string& text, const std::string& file) {
  const ImportFormat f = detect_format(text);
  if (f != ImportFormat::kNcclTestsJson && f != ImportFormat::kNvbandwidthJson)
    text_lines(text, file);  // binary data or an endless line: refused with its line
  RunDocument d = read_by_format(f, text, file);
  d.config["imported"]["format"] = format_name(f);
  name_hosts(d, file);
  if (f == ImportFormat::kNcclTestsText || f == ImportFormat::kP2pBandwidthLatency ||
      f == ImportFormat::kNvbandwidthText) {
    if (auto topo = read_topo_matrix(text, file)) attach_topology(d, *topo, file);
  }
  infer_board_topology(d);
  if (!d.topology && d.system.ranks.size() > d.system.hosts.size()) note_unknown(d, kNoTopology);
  return d;
}

TopologyReport import_topology(const std::string& text, const std::string& file) {
  auto t = read_topo_matrix(text, file);
  if (!t) throw InputError(file, "", "holds no nvidia-smi topo -m matrix");
  return *t;
}

void attach_topology(RunDocument& d, const TopologyReport& topology, const std::string& topo_file) {
  if (d.system.hosts.size() != 1)
    throw InputError(topo_file, "",
                     "a topo -m describes one host, and the run has " +
                         std::to_string(d.system.hosts.size()) + " hosts");
  HostTopology h = topology.hosts.front();
  h.host = d.system.hosts.front();
  for (auto& g : h.gpus) {
    for (const auto& r : d.system.ranks) {
      if (r.gpu.index != g.index) continue;
      static_cast<GpuInfo&>(g) = r.gpu;
    }
  }
  for (const auto& r : d.system.ranks) {
    if (r.gpu.index < 0 || r.gpu.index >= static_cast<int>(h.gpus.size()))
      throw InputError(topo_file, "",
                       "its matrix has " + std::to_string(h.gpus.size()) + " GPUs and rank " +
                           std::to_string(r.rank) + " drives GPU " + std::to_string(r.gpu.index));
  }
  d.topology = TopologyReport{{h}};
  d.config["imported"]["topology"] = topo_file;
  auto& unknown = d.config["imported"]["unknown"];
  unknown.erase(std::remove(unknown.begin(), unknown.end(), kNoTopology), unknown.end());
}

ImportFormat sniff_file(const std::string& path) {
  try {
    InputFile f(path, InputKind::kImport);
    std::string head(kImportSniffBytes, '\0');
    std::size_t got = 0;
    while (got < head.size()) {
      const std::size_t n = f.read_some(head.data() + got, head.size() - got);
      if (n == 0) break;
      got += n;
    }
    head.resize(got);
    return detect_format(head);
  } catch (const std::exception&) {
    return ImportFormat::kUnknown;
  }
}

RunDocument load_run_or_import(const std::string& path) {
  const ImportFormat f = sniff_file(path);
  // peerbench's own files, and anything no reader here knows, go to the run reader: its refusal
  // (not JSON, a topology, a field) is the one report and fleet have always given.
  if (f == ImportFormat::kUnknown || f == ImportFormat::kPeerbenchRun) return load_run_file(path);
  return import_text(read_input_file(path, InputKind::kImport), path);
}

}  // namespace peerbench
