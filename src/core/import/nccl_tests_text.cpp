// nccl-tests' text output: version lines, the test's settings, the ranks, NCCL's INFO lines
// interleaved, the table (out of place and in place, with -I's per-iteration columns and -T's
// timestamps) and the footer. The formats are util.cu's PRINT lines (nccl-tests 2.13-2.19) and
// the older common.cu ones (no Group, "[0x1b]" bus numbers, no "Collective test starting").
#include <algorithm>
#include <string>
#include <vector>

#include "core/import/import_document.h"
#include "core/import/nccl_tests.h"
#include "core/model/nccl_log.h"

namespace peerbench::import_detail {
namespace {

struct TextState {
  std::string program;
  std::string tests_version;
  long nccl_code = 0;
  int iters = 0, graph = 0;
  std::vector<std::string> columns;  // the header's names after '#': size count type ...
  std::vector<NcclTestsRow> rows;
  bool footer = false;
  std::vector<std::string> failures;  // lines that say the test failed
  std::vector<std::string> warnings;  // NCCL WARN lines
};

// "# nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters:
// 20 agg iters: 1 validation: 1 graph: 0"
void read_settings(RunDocument& d, TextState& s, const std::vector<std::string>& w) {
  for (std::size_t i = 1; i + 1 < w.size(); ++i) {
    const auto v = number(w[i + 1]);
    if (!v) continue;
    if (w[i] == "minBytes") d.config["imported"]["min_bytes"] = static_cast<std::uint64_t>(*v);
    if (w[i] == "maxBytes") d.config["sizes"] = {static_cast<std::uint64_t>(*v)};
    if (w[i] == "iters:" && w[i - 1] != "warmup" && w[i - 1] != "agg") s.iters = int(*v);
    if (w[i] == "graph:") s.graph = int(*v);
    if (w[i] == "nGpus" || w[i] == "nThread") d.config["imported"][w[i]] = int(*v);
  }
}

// "# nccl-tests version 2.13.9 nccl-headers=21803 nccl-library=21803"
void read_version(TextState& s, const std::vector<std::string>& w) {
  if (w.size() >= 4) s.tests_version = w[3];
  for (const auto& x : w) {
    if (x.rfind("nccl-library=", 0) == 0) s.nccl_code = std::atol(x.c_str() + 13);
  }
}

// The figures of one section of a row, from its first column.
std::optional<NcclTestsFigures> figures_at(const std::vector<std::string>& w, std::size_t at) {
  if (at + 3 >= w.size()) return std::nullopt;
  const auto t = number(w[at]), a = number(w[at + 1]), b = number(w[at + 2]);
  if (!t || !a || !b) return std::nullopt;
  NcclTestsFigures f{*t, *a, *b, number(w[at + 3])};
  return f;
}

bool has_column(const TextState& s, const char* name) {
  return std::find(s.columns.begin(), s.columns.end(), name) != s.columns.end();
}

// A row: size count type redop root, then out of place and in place, each time algbw busbw
// #wrong (+ four per-iteration columns with -I). Older versions print no root column, and some an
// empty redop cell; without its out-of-place figures (trace replay prints blanks) one section
// fewer.
bool read_row(TextState& s, const std::vector<std::string>& w) {
  const std::size_t section = s.columns.size() >= 21 ? 8 : 4;
  if (w.size() < 3 + 4) return false;
  const auto bytes = number(w[0]), count = number(w[1]);
  if (!bytes || !count || number(w[2])) return false;
  NcclTestsRow r;
  r.bytes = static_cast<std::uint64_t>(*bytes);
  r.count = static_cast<std::uint64_t>(*count);
  r.type = w[2];
  std::size_t at = 3;
  if (!number(w[at])) {
    r.redop = w[at++];
  } else {
    r.redop_cell_empty = has_column(s, "redop");  // an empty cell leaves the time here
  }
  const bool root = s.columns.empty() ? (w.size() - at - 1) % 4 == 0 : has_column(s, "root");
  if (root) {
    const auto v = number(w[at++]);
    if (!v) return false;
    r.root = static_cast<int>(*v);
  }
  const bool both = w.size() >= at + 2 * section;
  if (both) r.out_of_place = figures_at(w, at);
  r.in_place = figures_at(w, both ? at + section : at);
  if (!r.in_place) return false;
  s.rows.push_back(r);
  return true;
}

void read_comment(RunDocument& d, TextState& s, const std::string& line) {
  const auto w = words(line);
  if (w.size() >= 3 && w[1] == "nccl-tests" && w[2] == "version") return read_version(s, w);
  if (contains(line, "Collective test starting:") && w.size() >= 5) s.program = w[4];
  if (w.size() >= 2 && w[1] == "nThread") return read_settings(d, s, w);
  if (read_rank_line(d, line)) return;
  if (w.size() >= 3 && w[1] == "size" && w[2] == "count") {
    s.columns.assign(w.begin() + 1, w.end());
    return;
  }
  if (contains(line, "Avg bus bandwidth")) s.footer = true;
  if (contains(line, "Out of bounds values") && contains(line, "FAILED"))
    s.failures.push_back(std::string(trim(line)));
}

// Lines that say the test failed (nccl-tests' own), and NCCL's warnings (kept, not a failure:
// "falling back to simple order" warns and goes on).
bool failure_line(std::string_view l) {
  return contains(l, "Test NCCL failure") || contains(l, "Test CUDA failure") ||
         contains(l, "Test failure") || contains(l, "Cuda failure");
}

std::string stop_reason(const TextState& s) {
  if (!s.failures.empty() && !s.footer) return "the test failed: " + s.failures.back();
  if (s.rows.empty())
    return "the output stops before its table: no row of figures (a hang or a crash before the "
           "first size)";
  return "the output stops after " + std::to_string(s.rows.size()) +
         " rows, before '# Avg bus bandwidth' (a hang or a crash during the sweep)";
}

}  // namespace

// srun --label prefixes every line with its task ("  0: "): the line is what follows.
std::string_view unlabelled(std::string_view t) {
  std::size_t i = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  if (i == 0 || i + 1 >= t.size() || t[i] != ':' || t[i + 1] != ' ') return t;
  return trim(t.substr(i + 1));
}

// "Test failure all_reduce.cu:90": the program, where the output names it nowhere else.
void program_of_failure(TextState& s, std::string_view l) {
  const auto cu = l.find(".cu:");
  if (!s.program.empty() || cu == std::string_view::npos) return;
  const auto start = l.rfind(' ', cu);
  const std::string name(l.substr(start == std::string_view::npos ? 0 : start + 1,
                                  cu - (start == std::string_view::npos ? 0 : start + 1)));
  if (name != "common" && name != "util" && name != "timer") s.program = name + "_perf";
}

// Whether the sweep ended: its footer; without one (a post trimmed to its table), the sizes the
// settings line asked for, or a failure said. A table alone, and nothing else, cannot tell.
bool sweep_ended(RunDocument& d, const TextState& s) {
  if (s.footer) return true;
  if (s.rows.empty() || !s.failures.empty()) return false;
  if (d.config.contains("sizes"))
    return s.rows.back().bytes >= d.config["sizes"][0].get<std::uint64_t>();
  note_unknown(d, "whether the sweep ended (no '# Avg bus bandwidth' line, no settings line)");
  return true;
}

RunDocument read_nccl_tests_text(const std::string& text, const std::string& file) {
  TextState s;
  RunDocument d = new_document("nccl-tests", "", "nccl-tests text", file);
  for (const auto& l : text_lines(text, file)) {
    const std::string_view t = unlabelled(trim(l.text));
    if (t.empty()) continue;
    if (t.front() == '#') {
      read_comment(d, s, std::string(t));
    } else if (failure_line(t)) {
      if (s.failures.size() < 10) s.failures.push_back(std::string(t));
      program_of_failure(s, t);
    } else if (contains(t, "NCCL WARN")) {
      if (s.warnings.size() < 10) s.warnings.push_back(std::string(t));
    } else if (!s.footer) {
      read_row(s, words(t));
    }
  }
  d.tool.version = s.tests_version;
  add_nccl_log(d, parse_nccl_log(text));
  if (d.system.nccl_version.empty()) d.system.nccl_version = nccl_version_of_code(s.nccl_code);
  if (d.system.ranks.empty())
    note_unknown(d, "the ranks and their GPUs (the '#  Rank' lines are not in the output)");
  if (s.program.empty()) s.program = program_of_rows(s.rows, int(d.system.ranks.size()));
  const std::string method = s.program.empty() ? "" : method_of_program(d, s.program);
  if (s.program.empty())
    note_unknown(d, "which nccl-tests program ran (the output does not name it)");
  if (!method.empty()) {
    d.config["methods"] = {method};
    for (const auto& r : s.rows) add_row(d, method, r, s.iters, s.graph);
  }
  for (const auto* list : {&s.warnings, &s.failures}) {
    for (const auto& f : *list) d.errors.push_back(f);
  }
  finish_document(d, sweep_ended(d, s), stop_reason(s));
  return d;
}

}  // namespace peerbench::import_detail
