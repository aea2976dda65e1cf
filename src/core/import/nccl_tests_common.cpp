// What nccl-tests' text and JSON readers share: version codes, rank lines, programs, rows.
#include <cmath>

#include "core/import/import_document.h"
#include "core/import/method_map.h"
#include "core/import/nccl_tests.h"

namespace peerbench::import_detail {

std::string nccl_version_of_code(long code) {
  if (code <= 0) return "";
  const long major = code >= 10000 ? code / 10000 : code / 1000;
  const long minor = code >= 10000 ? code / 100 % 100 : code / 100 % 10;
  const long patch = code % 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

namespace {

// "[0000:1b:00]" (domain:bus:device, nccl-tests 2.14 on) as "0000:1B:00.0"; "[0x1b]" (a bus
// number alone) gives "": a bus id cannot be told from it.
std::string pci_of(const std::string& bracket) {
  std::string in = bracket.substr(1, bracket.size() - 2);
  if (in.size() != 10 || in[4] != ':' || in[7] != ':') return "";
  for (auto& ch : in) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return in + ".0";
}

}  // namespace

bool read_rank_line(RunDocument& d, const std::string& line) {
  const auto w = words(line);
  // # Rank N [Group G] Pid P on HOST device D [BUS] NAME...
  if (w.size() < 10 || w[0] != "#" || w[1] != "Rank") return false;
  std::size_t i = 3;
  if (w[i] == "Group") i += 2;
  if (i + 6 >= w.size() || w[i] != "Pid" || w[i + 2] != "on" || w[i + 4] != "device") return false;
  const std::string host = w[i + 3];
  const auto dev = number(w[i + 5]);
  if (!dev) return false;
  std::size_t name_at = i + 6;
  std::string pci;
  if (w[name_at].front() == '[' && w[name_at].back() == ']') pci = pci_of(w[name_at++]);
  std::string name;
  for (; name_at < w.size(); ++name_at) name += (name.empty() ? "" : " ") + w[name_at];
  add_rank(d, host, static_cast<int>(*dev), name, pci);
  return true;
}

std::string method_of_program(RunDocument& d, const std::string& program) {
  std::string p = program.substr(program.find_last_of('/') + 1);
  if (p.size() < 5 || p.compare(p.size() - 5, 5, "_perf") != 0) p += "_perf";
  const ImportedMethod* m = imported_method("nccl-tests", p);
  if (!m) {
    note_unmapped(d, p, "not a program of nccl-tests this reader knows");
    return "";
  }
  if (m->method.empty()) note_unmapped(d, p, m->why);
  d.config["imported"]["test"] = p;
  return m->method;
}

void add_row(RunDocument& d, const std::string& method, const NcclTestsRow& row, int iters,
             int graph_replays) {
  const auto& f = row.out_of_place ? *row.out_of_place : *row.in_place;
  Result r = figure_result(method, -1, -1, row.bytes);
  set_time(r, f.time_us);
  set_bandwidth(r, f.algbw);
  Result busbw = r;
  set_bandwidth(busbw, f.busbw);
  r.busbw_gbps = busbw.algbw_gbps;
  r.iters = iters;
  r.graph_replays = graph_replays;
  r.datatype = row.type;
  r.op = row.redop == "none" ? "" : row.redop;  // "" also where the cell is empty
  const bool rooted = method == "nccl-broadcast" || method == "nccl-reduce";
  r.root = rooted ? row.root : -1;
  for (const auto* c : {&row.out_of_place, &row.in_place}) {
    if (!*c || !(*c)->wrong) continue;
    r.checked = true;
    r.wrong += static_cast<std::uint64_t>(std::max(0.0, *(*c)->wrong));
  }
  if (row.in_place && row.out_of_place) {
    d.config["imported"]["in_place"].push_back({{"bytes", row.bytes},
                                                {"time_us", row.in_place->time_us},
                                                {"algbw_gbps", row.in_place->algbw},
                                                {"busbw_gbps", row.in_place->busbw}});
  }
  if (!row.out_of_place) d.config["imported"]["figures"] = "in place (no out-of-place column)";
  d.results.push_back(std::move(r));
}

namespace {
bool near(double a, double b) {
  return std::fabs(a - b) <= 0.02 * std::max(a, b) + 0.011;
}
}  // namespace

std::string program_of_rows(const std::vector<NcclTestsRow>& rows, int ranks) {
  for (const auto& row : rows) {
    const auto& f = row.out_of_place ? *row.out_of_place : *row.in_place;
    const bool reduces = !row.redop.empty() && row.redop != "none";
    if (row.root >= 0) return reduces ? "reduce_perf" : "broadcast_perf";
    if (f.algbw < 1 || ranks < 2) continue;  // too small to read a ratio from
    const double ratio = f.busbw / f.algbw, n = ranks;
    // sendrecv_perf prints its reduction too (sum) and a busbw equal to algbw: on 2 ranks so
    // does all_reduce_perf, and the two cannot be told apart.
    if (reduces && near(ratio, 1) && ranks > 2) return "sendrecv_perf";
    if (reduces && near(ratio, 2 * (n - 1) / n) && ranks > 2) return "all_reduce_perf";
    if (reduces && near(ratio, (n - 1) / n)) return "reduce_scatter_perf";
    // Old versions: all_gather_perf printed no redop column, alltoall_perf an empty one.
    if (row.redop_cell_empty && near(ratio, (n - 1) / n)) return "alltoall_perf";
    return "";
  }
  return "";
}

}  // namespace peerbench::import_detail
