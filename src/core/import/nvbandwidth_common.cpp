// What nvbandwidth's text and JSON readers share: devices, matrices, the copy size.
#include <algorithm>
#include <cstdlib>

#include "core/import/import_document.h"
#include "core/import/method_map.h"
#include "core/import/nvbandwidth.h"

namespace peerbench::import_detail {

std::uint64_t nvb_default_bytes(const std::string& version) {
  const std::string v = version.rfind("v", 0) == 0 ? version.substr(1) : version;
  if (v.empty() || !std::isdigit(static_cast<unsigned char>(v[0]))) return 0;
  const auto dot = v.find('.');
  const int major = std::atoi(v.c_str());
  const int minor = dot == std::string::npos ? 0 : std::atoi(v.c_str() + dot + 1);
  return major == 0 && minor < 7 ? 64ull << 20 : 512ull << 20;
}

void add_nvb_device(RunDocument& d, const std::string& host, const std::string& line) {
  // "Device 0: NAME (00000000:19:00)" or "0: NAME (00000000:19:00): (host)"
  std::string rest = line.rfind("Device ", 0) == 0 ? line.substr(7) : line;
  const auto colon = rest.find(": ");
  if (colon == std::string::npos) return;
  const int device = std::atoi(rest.c_str());
  std::string name = rest.substr(colon + 2), pci;
  const auto tail = name.find(": (");
  if (tail != std::string::npos) name.erase(tail);
  const auto open = name.rfind(" (");
  if (open != std::string::npos && name.back() == ')') {
    const std::string bus = name.substr(open + 2, name.size() - open - 3);  // 00000000:19:00
    if (bus.size() == 14 && bus[8] == ':' && bus[11] == ':') {
      pci = bus.substr(4, 4) + ":" + bus.substr(9, 2) + ":" + bus.substr(12, 2) + ".0";
      for (auto& ch : pci) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    }
    name.erase(open);
  }
  add_rank(d, host, device, std::string(trim(name)), pci);
}

namespace {

bool host_test(const NvbMatrix& m) {
  return contains(m.description, "CPU(row)");
}

// The bidirectional tests print Read1/Write1, Read2/Write2 and Total matrices (Total is what
// ce-bidir reports); older releases printed the measured stream's matrix alone.
bool bidir_part(const NvbMatrix& m) {
  return contains(m.test, "bidirectional") && !contains(m.description, "Total");
}

Result nvb_result(const RunDocument& d, const std::string& method, int src, int dst, double gbps) {
  Result r = figure_result(method, src, dst, nvb_default_bytes(d.tool.version));
  set_bandwidth(r, gbps);
  return r;
}

// nvbandwidth measures a pair only where peer access could be enabled, and prints N/A for the
// others: a pair with a figure has peer access, one without has none.
void note_peer_access(RunDocument& d, int a, int b, bool measured) {
  bool found = false;  // both directions are added together
  for (auto& f : d.pairs) {
    if ((f.src == a && f.dst == b) || (f.src == b && f.dst == a)) {
      found = true;
      if (measured) f.can_access_peer = true, f.peer_access = "enabled";
    }
  }
  if (found) return;
  for (const auto& [s, t] : {std::make_pair(a, b), std::make_pair(b, a)}) {
    PairFacts f;
    f.src = s;
    f.dst = t;
    f.can_access_peer = measured;
    f.peer_access = measured ? "enabled" : "unsupported";
    d.pairs.push_back(f);
  }
}

}  // namespace

// Outputs whose device lines were left out (posts trimmed): one rank per row or column of the
// matrix, its GPU unnamed.
static void ranks_of_matrix(RunDocument& d, const NvbMatrix& m) {
  if (!d.system.ranks.empty() || m.values.empty()) return;
  const std::size_t n = std::max(m.values.size(), m.values.front().size());
  for (std::size_t i = 0; i < n; ++i) add_rank(d, "", static_cast<int>(i), "", "");
  note_unknown(d, "the GPUs (the output lists no devices): their model");
}

void note_nvb_waived(RunDocument& d, const std::string& test) {
  if (test.rfind("device_to_device_", 0) != 0) return;
  note_unknown(d, test + " was waived: no pair of GPUs could enable peer access");
  const int n = static_cast<int>(d.system.ranks.size());
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) note_peer_access(d, a, b, false);
  }
}

void note_nvb_wrong_data(RunDocument& d, const std::string& test, const std::string& line) {
  const ImportedMethod* row = imported_method("nvbandwidth", test);
  d.errors.push_back(test + ": " + line);
  // A test with no method of its own (one_to_all_read_sm) still moved data with a copy engine or
  // a kernel, reading or writing: its wrong data is that family's.
  const bool sm = contains(test, "_sm"), read = contains(test, "read");
  std::string method = row && !row->method.empty() ? row->method : "";
  if (method.empty() && !contains(test, "host"))
    method = std::string(sm ? "sm-" : "ce-") + (read ? "read" : "write");
  if (method.empty()) return;
  Result r = figure_result(method, -1, -1, nvb_default_bytes(d.tool.version));
  r.status = ResultStatus::kError;
  r.reason = "nvbandwidth " + test + ": " + line;
  r.checked = true;
  r.wrong = 1;  // at least one: nvbandwidth stops at the first wrong value
  d.results.push_back(r);
}

void add_nvb_matrix(RunDocument& d, const NvbMatrix& m) {
  ranks_of_matrix(d, m);
  const ImportedMethod* row = imported_method("nvbandwidth", m.test);
  if (!row || row->method.empty()) {
    note_unmapped(d, m.test, row ? row->why : "no peerbench method measures it");
    return;
  }
  if (bidir_part(m)) return;  // one stream's share; the Total matrix is the figure
  if (nvb_default_bytes(d.tool.version) == 0) {
    note_unknown(d,
                 "the copy size (nvbandwidth prints no -b; its default depends on the version, "
                 "which the output does not say)");
    return;
  }
  const int n = static_cast<int>(d.system.ranks.size());
  const bool read = contains(m.test, "_read_");
  const bool bidir = contains(m.test, "bidirectional");
  for (std::size_t i = 0; i < m.values.size(); ++i) {
    for (std::size_t j = 0; j < m.values[i].size(); ++j) {
      const auto& v = m.values[i][j];
      const int a = static_cast<int>(i), b = static_cast<int>(j);
      if (b >= n || (!host_test(m) && (a >= n || a == b))) continue;
      if (!host_test(m)) note_peer_access(d, a, b, v.has_value());
      if (!v) continue;
      if (host_test(m)) {
        d.results.push_back(nvb_result(d, row->method, b, b, *v));
      } else if (bidir) {
        if (a < b) d.results.push_back(nvb_result(d, row->method, a, b, *v));
      } else {
        d.results.push_back(nvb_result(d, row->method, read ? b : a, read ? a : b, *v));
      }
    }
  }
  auto& methods = d.config["methods"];
  if (!methods.is_array()) methods = nlohmann::json::array();
  methods.push_back(row->method);
}

}  // namespace peerbench::import_detail
