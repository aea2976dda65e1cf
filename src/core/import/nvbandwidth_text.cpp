// nvbandwidth's text output (output.cpp): version lines, the host and its devices (or, under
// MPI, "Process N (host): device D: NAME"), then per test "Running NAME." and its matrices, each
// a description line, a header of column indices and one line per row.
#include <cstdlib>

#include "core/import/import_document.h"
#include "core/import/nvbandwidth.h"

namespace peerbench::import_detail {
namespace {

struct NvbState {
  std::string test;
  std::optional<NvbMatrix> matrix;  // being read
  std::string last_plain;           // the line before the first "Device 0:": the host name
  bool header_seen = false;         // the matrix's line of column indices
  bool test_has_matrix = false;     // the last "Running" test printed a matrix
  int tests = 0;
};

void end_matrix(RunDocument& d, NvbState& s) {
  if (s.matrix && !s.matrix->values.empty()) add_nvb_matrix(d, *s.matrix);
  s.matrix.reset();
}

// "Process 0 (host): device 0: NVIDIA H100 80GB HBM3 (00000000:19:00)"
void read_process_line(RunDocument& d, const std::string& l) {
  const auto open = l.find('('), close = l.find("): device ");
  if (open == std::string::npos || close == std::string::npos || close < open) return;
  add_nvb_device(d, l.substr(open + 1, close - open - 1), "Device " + l.substr(close + 10));
}

// "0 1 2 3": the header of a matrix's columns.
bool column_indices(const std::vector<std::string>& w) {
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (w[i] != std::to_string(i)) return false;
  }
  return !w.empty();
}

// A row of the matrix being read: its index, then a value or N/A per column.
bool read_matrix_row(NvbState& s, const std::vector<std::string>& w) {
  if (w.empty() || !number(w[0])) return false;
  std::vector<std::optional<double>> row;
  for (std::size_t i = 1; i < w.size(); ++i) row.push_back(number(w[i]));
  s.matrix->values.push_back(row);
  return true;
}

void read_line(RunDocument& d, NvbState& s, const std::string& l) {
  const auto w = words(l);
  // "SUM NAME total" after a matrix names its test where the "Running" line was left out.
  if (starts_with(l, "SUM ") && w.size() >= 2 && s.matrix && s.matrix->test.empty())
    s.matrix->test = w[1];
  if (starts_with(l, "nvbandwidth Version:") && w.size() >= 3) {
    d.tool.version = w[2];
  } else if (starts_with(l, "Driver Version:") && w.size() >= 3) {
    d.system.driver_version = w[2];
  } else if (starts_with(l, "CUDA Runtime Version:") && w.size() >= 4) {
    d.system.cuda_runtime_version = std::atoi(w[3].c_str());
  } else if (starts_with(l, "Device ") && contains(l, ": ") && d.results.empty() && !s.tests) {
    const std::string host = s.last_plain.find(' ') == std::string::npos ? s.last_plain : "";
    add_nvb_device(d, d.system.ranks.empty() ? host : d.system.ranks.front().host, l);
  } else if (starts_with(l, "Process ") && contains(l, "): device ")) {
    read_process_line(d, l);
  } else if (starts_with(l, "Running ") && l.back() == '.') {
    end_matrix(d, s);
    s.test = l.substr(8, l.size() - 9);
    ++s.tests;
    s.test_has_matrix = false;
  } else if (starts_with(l, "memcpy ") || contains(l, "bandwidth (GB/s)") ||
             contains(l, "latency (ns)")) {
    end_matrix(d, s);
    s.matrix = NvbMatrix{s.test, l, {}};
    s.header_seen = false;
    s.test_has_matrix = true;
    if (s.tests == 0) s.tests = 1;  // a matrix whose "Running" line was left out
  } else if (s.matrix && !s.header_seen && column_indices(w)) {
    s.header_seen = true;
  } else if (s.matrix && !read_matrix_row(s, w)) {
    end_matrix(d, s);
  }
  if (starts_with(l, "Waived")) s.test_has_matrix = true;  // not run here, and said so
  if (starts_with(l, "Waiving ") && l.back() == '.') {     // v0.2: "Waiving NAME."
    note_nvb_waived(d, l.substr(8, l.size() - 9));
    ++s.tests;
    s.test_has_matrix = true;
  } else if (starts_with(l, "Waived")) {
    note_nvb_waived(d, s.test);
  }
  if (contains(l, "Invalid value when checking the pattern")) note_nvb_wrong_data(d, s.test, l);
  if (!w.empty() && !s.matrix) s.last_plain = l;
}

}  // namespace

RunDocument read_nvbandwidth_text(const std::string& text, const std::string& file) {
  RunDocument d = new_document("nvbandwidth", "", "nvbandwidth text", file);
  NvbState s;
  for (const auto& l : text_lines(text, file)) {
    std::string_view t = trim(l.text);
    while (!t.empty() && t.front() == '>') t = trim(t.substr(1));  // a Markdown quote of it
    if (!t.empty()) read_line(d, s, std::string(t));
  }
  end_matrix(d, s);
  if (d.system.driver_version.empty()) note_unknown(d, "the driver version");
  const bool complete = s.tests > 0 && s.test_has_matrix;
  finish_document(d, complete,
                  s.tests == 0 ? "the output stops before its first test: no matrix of figures"
                               : "the output stops in test '" + s.test + "' before its matrix");
  return d;
}

}  // namespace peerbench::import_detail
