// A report's figures at the judged size (core/present/report_document.h): a GPU x GPU matrix per
// pair method in nvbandwidth's shape (rows the source, columns the destination), each cell the
// figure and its ratio to known-good; the host links; the collectives over all ranks.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "core/base/text.h"
#include "core/judge/verdict.h"
#include "core/model/figure_unit.h"
#include "core/model/result_index.h"
#include "core/model/sizes.h"
#include "core/present/report_document.h"
#include "core/present/report_parts.h"

namespace peerbench::report_doc {
namespace {

namespace vs = verdict_state;
using Verdicts = std::map<std::pair<int, int>, const PairVerdict*>;

Verdicts verdicts_by_pair(const std::vector<PairVerdict>& all) {
  Verdicts out;
  for (const auto& v : all) out[{v.src, v.dst}] = &v;
  return out;
}

const MethodVerdict* method_verdict(const Verdicts& vs_, const std::string& method, int s, int d) {
  const auto it = vs_.find({s, d});
  if (it == vs_.end()) return nullptr;
  for (const auto& m : it->second->methods)
    if (m.method == method) return &m;
  return nullptr;
}

std::string state_text(const std::string& state) {
  if (state == vs::kNotApplicable) return "n/a";
  if (state == vs::kNotALink) return "same GPU";
  return state;
}

// The cell of a method's figure for s->d: the judged figure with the marks of the measurement
// that settled it, then its ratio to known-good; a state where nothing was measured.
Cell figure_cell(const ReportInput& in, const ResultIndex& idx, const MethodInfo& m,
                 const MethodVerdict* mv, int s, int d) {
  if (!mv) {
    const auto column = report_parts::column_of(*in.doc, &m);
    return Cell(report_parts::cell(idx, column, s, d));
  }
  if (!mv->value) return Cell(state_text(mv->state));
  std::string text = figure_text(*mv->value, mv->unit);
  std::string marks;
  if (const Result* r = idx.ok_at(m.name, s, d, mv->bytes)) {
    if (const Result* settled = settled_result(*in.doc, *r, mv->attempt))
      marks = report_parts::figure_marks(*settled);
  }
  // Wrong data at any size marks the figure, not only at the size judged (an audit).
  const auto& sizes = idx.of(m.name, s, d);
  const bool wrong =
      std::any_of(sizes.begin(), sizes.end(), [](const Result* r) { return r->wrong > 0; });
  if (wrong && marks.find('!') == std::string::npos) marks = "!" + marks;
  if (mv->state == vs::kNoisy) marks += "~";
  text += marks;
  // A ratio no bar judged stands in parentheses: "36.6 (0.11)" (it read as a judged 0.11).
  if (mv->expected_ratio) {
    const std::string ratio = format_fixed(*mv->expected_ratio, 2);
    text += mv->state == vs::kNotJudged ? " (" + ratio + ")" : " " + ratio;
  }
  return Cell(text, *mv->value, mv->state == vs::kFlagged);
}

// The size most of a method's verdicts judged it at, and its unit there.
std::pair<std::uint64_t, std::string> judged_size(const Verdicts& vs_, const MethodInfo& m) {
  std::map<std::uint64_t, int> count;
  for (const auto& [pair, v] : vs_) {
    for (const auto& mv : v->methods)
      if (mv.method == m.name && mv.value) ++count[mv.bytes];
  }
  if (count.empty()) return {0, method_unit(m)};
  const auto best = std::max_element(count.begin(), count.end(),
                                     [](auto& a, auto& b) { return a.second < b.second; });
  return {best->first, headline_unit(m, best->first)};
}

std::string size_words(std::uint64_t bytes) {
  return bytes ? " at " + format_size(bytes) : "";
}

Section pair_matrix(const ReportInput& in, const ResultIndex& idx, const Verdicts& vs_,
                    const MethodInfo& m, const std::vector<int>& ranks) {
  Section s;
  const auto [bytes, unit] = judged_size(vs_, m);
  s.title = m.name + ", " + unit + (m.bidirectional ? " both ways" : "") + size_words(bytes);
  s.depth = 1;
  s.tile = true;
  s.table.columns.push_back("src\\dst");
  for (int d : ranks) s.table.columns.push_back(Column::number(std::to_string(d)));
  for (int src : ranks) {
    std::vector<Cell> row{std::to_string(src)};
    for (int dst : ranks) {
      if (src == dst) {
        row.emplace_back("-");
        continue;
      }
      // A bidirectional figure is both ways' total, measured once per pair: in one cell.
      const bool measured = !idx.of(m.name, src, dst).empty();
      row.push_back(measured
                        ? figure_cell(in, idx, m, method_verdict(vs_, m.name, src, dst), src, dst)
                        : Cell(""));
    }
    s.table.add_row(std::move(row));
  }
  return s;
}

std::vector<int> pair_ranks(const ResultIndex& idx) {
  std::set<int> ranks;
  for (const auto& [s, d] : idx.pairs()) {
    ranks.insert(s);
    ranks.insert(d);
  }
  return {ranks.begin(), ranks.end()};
}

std::string marks_legend(const RunDocument& d) {
  return "after a figure: " + report_parts::figure_marks_legend(d, "", " ") +
         " (not the link's), ~ noisy, * flagged";
}

// A matrix of words per ordered pair (the link, NCCL's transport); nullopt where all are empty.
template <class F>
std::optional<Section> word_matrix(const std::string& title, const std::vector<int>& ranks,
                                   F word) {
  Section s;
  s.title = title;
  s.depth = 1;
  s.tile = true;
  s.table.columns.push_back("src\\dst");
  for (int d : ranks) s.table.columns.push_back(std::to_string(d));
  bool any = false;
  for (int src : ranks) {
    std::vector<Cell> row{std::to_string(src)};
    for (int dst : ranks) {
      const std::string w = src == dst ? "-" : word(src, dst);
      any = any || (src != dst && !w.empty());
      row.emplace_back(w);
    }
    s.table.add_row(std::move(row));
  }
  if (!any) return std::nullopt;
  return s;
}

// NCCL's transport in a matrix cell: "P2P/CUMEM", "SHM", "NET/Socket"; how SHM reached each side
// and the channels are in the verdicts' evidence.
std::string transport_word(const ResultIndex& idx, int s, int d) {
  const std::string t = report_parts::transport_of(idx, s, d);
  return t.rfind("SHM", 0) == 0 ? "SHM" : t;
}

void add_pair_matrices(std::vector<Section>& out, const ReportInput& in, const ResultIndex& idx,
                       const Verdicts& vs_) {
  const auto methods = report_parts::methods_in(*in.doc, MethodScope::kPair);
  if (methods.empty()) return;
  Section head;
  head.title = "Pairs at the judged size (rows: from GPU, columns: to GPU, by rank)";
  head.lines.push_back(
      "each cell: the median, then its ratio to known-good (under 1 is worse, latency too); "
      "(0.11): "
      "no bar judged it");
  head.lines.push_back(marks_legend(*in.doc));
  if (std::any_of(methods.begin(), methods.end(),
                  [](const MethodInfo* m) { return m->bidirectional; }))
    head.lines.push_back(
        "-bidir methods: one cell per pair, the total of both directions; a blank cell: not "
        "measured");
  out.push_back(std::move(head));
  const auto ranks = pair_ranks(idx);
  const auto links = report_parts::links_of(in.verdicts);
  if (auto s = word_matrix("link", ranks,
                           [&](int a, int b) { return report_parts::link_label(links, a, b); }))
    out.push_back(std::move(*s));
  if (auto s = word_matrix("NCCL transport", ranks,
                           [&](int a, int b) { return transport_word(idx, a, b); }))
    out.push_back(std::move(*s));
  for (const auto* m : methods) out.push_back(pair_matrix(in, idx, vs_, *m, ranks));
}

void add_host_links(std::vector<Section>& out, const ReportInput& in, const ResultIndex& idx,
                    const Verdicts& vs_) {
  const auto table = report_parts::host_table(*in.doc, idx, report_parts::links_of(in.verdicts));
  if (table.methods.empty()) return;
  Section s;
  s.title = "Host <-> GPU at the judged size (copy engine, pinned host memory)";
  s.lines.push_back(
      "each cell: the median, then its ratio to the known-good figure where there is one");
  s.table.columns = {"rank", "GPU", "link"};
  s.table.key_columns = 2;
  for (const auto* m : table.methods) {
    const auto [bytes, unit] = judged_size(vs_, *m);
    s.table.columns.push_back(Column::number(m->name, unit + size_words(bytes), Better::kHigher));
  }
  const auto gpus = std::vector<int>(idx.gpus().begin(), idx.gpus().end());
  for (std::size_t i = 0; i < table.rows.size() && i < gpus.size(); ++i) {
    const int g = gpus[i];
    std::vector<Cell> row{table.rows[i].rank, table.rows[i].gpu, table.rows[i].link};
    for (const auto* m : table.methods)
      row.push_back(figure_cell(in, idx, *m, method_verdict(vs_, m->name, g, g), g, g));
    s.table.add_row(std::move(row));
  }
  s.notes = table.totals;
  out.push_back(std::move(s));
}

void add_all_ranks(std::vector<Section>& out, const Verdicts& vs_) {
  const auto it = vs_.find({-1, -1});
  if (it == vs_.end() || it->second->methods.empty()) return;
  Section s;
  s.title = "Over all ranks at the judged size";
  s.table.columns = {"method",
                     Column::number("size"),
                     Column::number("figure"),
                     "unit",
                     Column::number("ratio to known-good", "", Better::kHigher),
                     "verdict"};
  for (const auto& mv : it->second->methods) {
    const bool flagged = mv.state == vs::kFlagged;
    Cell figure = mv.value ? Cell(figure_text(*mv.value, mv.unit), *mv.value, flagged) : Cell("");
    Cell ratio = mv.expected_ratio
                     ? Cell(format_fixed(*mv.expected_ratio, 2), *mv.expected_ratio, flagged)
                     : Cell("");
    s.table.add_row({mv.method, mv.bytes ? format_size_label(mv.bytes) : "", std::move(figure),
                     mv.unit, std::move(ratio), report_parts::state_cell(mv.state)},
                    flagged);
  }
  out.push_back(std::move(s));
}

}  // namespace

std::string figure_text(double v, const std::string& unit) {
  return format_fixed(v, unit == "us" ? 2 : 1);
}

std::vector<Section> figure_sections(const ReportInput& in, const ResultIndex& idx) {
  std::vector<Section> out;
  const Verdicts vs_ = verdicts_by_pair(in.verdicts);
  add_pair_matrices(out, in, idx, vs_);
  add_host_links(out, in, idx, vs_);
  add_all_ranks(out, vs_);
  return out;
}

}  // namespace peerbench::report_doc
