// p2pBandwidthLatencyTest's output (cuda-samples, p2pBandwidthLatencyTest.cu): its devices, the
// peer access of each pair, the P2P connectivity matrix and its bandwidth and latency matrices,
// each a title line, a "D\D" (or "GPU"/"CPU") header and one line per row.
#include <cstdlib>
#include <map>

#include "core/base/text.h"
#include "core/import/import_document.h"
#include "core/import/method_map.h"
#include "core/import/p2p_bandwidth.h"

namespace peerbench::import_detail {
namespace {

// 40,000,000 ints (its numElems default, which the output does not print) per bandwidth copy,
// one int4 per latency copy.
constexpr std::uint64_t kBandwidthBytes = 160'000'000;
constexpr std::uint64_t kLatencyBytes = 16;

using Matrix = std::vector<std::vector<std::optional<double>>>;

struct P2pState {
  std::string section;    // the title of the matrix being read
  bool cpu_part = false;  // the latency matrices' CPU half
  std::map<std::string, Matrix> matrices;
  bool ended = false;  // the closing NOTE was printed
};

// "Device: 0, NVIDIA H100 80GB HBM3, pciBusID: 18, pciDeviceID: 0, pciDomainID:0"
void read_device(RunDocument& d, const std::string& l) {
  const auto parts = split(l.substr(7), ',');
  if (parts.size() < 2) return;
  std::string pci;
  std::map<std::string, std::string> ids;
  for (std::size_t i = 2; i < parts.size(); ++i) {
    const auto colon = parts[i].find(':');
    if (colon != std::string::npos)
      ids[std::string(trim(parts[i].substr(0, colon)))] =
          std::string(trim(parts[i].substr(colon + 1)));
  }
  if (ids.count("pciBusID") && ids.count("pciDeviceID") && ids.count("pciDomainID")) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%04lX:%02lX:%02lX.0",
                  std::strtol(ids["pciDomainID"].c_str(), nullptr, 16),
                  std::strtol(ids["pciBusID"].c_str(), nullptr, 16),
                  std::strtol(ids["pciDeviceID"].c_str(), nullptr, 16));
    pci = buf;
  }
  add_rank(d, "", std::atoi(parts[0].c_str()), std::string(trim(parts[1])), pci);
}

void read_line(RunDocument& d, P2pState& s, const std::string& l) {
  const auto w = words(l);
  if (starts_with(l, "Device: ")) return read_device(d, l);
  if (starts_with(l, "P2P Connectivity Matrix") || contains(l, "Matrix (GB/s)") ||
      contains(l, "Matrix (us)")) {
    s.section = l.substr(0, l.find(" Matrix"));
    s.cpu_part = false;
    return;
  }
  if (starts_with(l, "NOTE: The CUDA Samples")) s.ended = true;
  if (w.empty() || s.section.empty()) return;
  if (w[0] == "CPU") s.cpu_part = true;
  if (w[0] == "D\\D" || w[0] == "GPU" || w[0] == "CPU" || s.cpu_part) return;
  if (!number(w[0])) {
    s.section.clear();
    return;
  }
  std::vector<std::optional<double>> row;
  for (std::size_t i = 1; i < w.size(); ++i) row.push_back(number(w[i]));
  s.matrices[s.section].push_back(row);
}

const std::optional<double>* at(const P2pState& s, const std::string& m, int i, int j) {
  const auto it = s.matrices.find(m);
  if (it == s.matrices.end() || i >= int(it->second.size()) || j >= int(it->second[i].size()))
    return nullptr;
  return &it->second[i][j];
}

// The peer access of each pair: the connectivity matrix (1 where cudaDeviceCanAccessPeer said
// yes). Where the output names no GPU model (device lines left out), a pair without it may be so
// by design (a DGX-1's pairs across sockets): it is noted, not recorded as a fault.
void add_peer_access(RunDocument& d, const P2pState& s, int n) {
  const bool model_known = n > 0 && !d.system.ranks.front().gpu.name.empty();
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const auto* v = at(s, "P2P Connectivity", i, j);
      if (i == j || !v || !*v) continue;
      if (**v == 0 && !model_known) {
        note_unknown(d,
                     "whether pairs without peer access (P2P connectivity 0) are so by design: "
                     "the output names no GPU model");
        continue;
      }
      PairFacts f;
      f.src = i;
      f.dst = j;
      f.can_access_peer = **v != 0;
      f.peer_access = **v != 0 ? "enabled" : "unsupported";
      d.pairs.push_back(f);
    }
  }
}

bool peer_access(const P2pState& s, int i, int j) {
  const auto* v = at(s, "P2P Connectivity", i, j);
  return !v || !*v || **v != 0;  // no matrix: as the figures say
}

void add_matrix(RunDocument& d, const P2pState& s, const std::string& title, int n) {
  const ImportedMethod* m = imported_method("p2pBandwidthLatencyTest", title);
  if (!m || m->method.empty()) {
    note_unmapped(d, title, m ? m->why : "no peerbench method measures it");
    return;
  }
  const bool latency = contains(title, "Latency"), read = contains(title, "Reads");
  const bool bidir = starts_with(title, "Bidirectional"), p2p = contains(title, "P2P=Enabled");
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const auto* v = at(s, title, i, j);
      if (i == j || !v || !*v || (bidir && j < i)) continue;
      Result r = figure_result(m->method, read ? j : i, read ? i : j,
                               latency ? kLatencyBytes : kBandwidthBytes);
      if (latency)
        set_time(r, **v);
      else
        set_bandwidth(r, **v);
      if (p2p && !peer_access(s, i, j)) {
        r.status = ResultStatus::kNotApplicable;
        r.reason =
            "no peer access (P2P connectivity 0): the 'P2P=Enabled' figure is the "
            "driver's copy through host memory";
      }
      d.results.push_back(r);
    }
  }
  d.config["methods"].push_back(m->method);
}

}  // namespace

RunDocument read_p2p_bandwidth_latency(const std::string& text, const std::string& file) {
  RunDocument d = new_document("p2pBandwidthLatencyTest", "", "p2pBandwidthLatencyTest", file);
  note_unknown(d, "the cuda-samples version and the driver version (the output prints neither)");
  P2pState s;
  for (const auto& l : text_lines(text, file)) {
    const std::string t(trim(l.text));
    if (!t.empty()) read_line(d, s, t);
  }
  if (d.system.ranks.empty() && !s.matrices.empty()) {  // device lines left out of a post
    const auto& m = s.matrices.begin()->second;
    for (std::size_t i = 0; i < m.size(); ++i) add_rank(d, "", static_cast<int>(i), "", "");
    note_unknown(d, "the GPUs (the output lists no devices): their model");
  }
  const int n = static_cast<int>(d.system.ranks.size());
  d.config["methods"] = nlohmann::json::array();
  add_peer_access(d, s, n);
  for (const auto& [title, m] : s.matrices) {
    if (title != "P2P Connectivity") add_matrix(d, s, title, n);
  }
  // A post trimmed of some matrices still holds figures; only an output without one stopped.
  const bool figures = s.matrices.size() > s.matrices.count("P2P Connectivity");
  if (!s.ended && figures)
    note_unknown(d, "whether the test ended (its closing NOTE is not there)");
  finish_document(d, figures, "the output stops before its first matrix of figures");
  return d;
}

}  // namespace peerbench::import_detail
