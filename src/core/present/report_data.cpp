// A report's data: one row per method, pair and size, with the cards, the verdict of the row's
// method and pair, and the known-good figure on the row the verdict judged (the CSV format).
#include <algorithm>
#include <map>

#include "core/base/text.h"
#include "core/judge/verdict.h"
#include "core/model/datatypes.h"
#include "core/model/result_index.h"
#include "core/present/report_document.h"
#include "core/present/report_parts.h"

namespace peerbench::report_doc {
namespace {

using namespace report_parts;
using States = std::map<std::tuple<std::string, int, int>, const MethodVerdict*>;
using Pairs = std::map<std::pair<int, int>, const PairVerdict*>;

Cell number(double v, int decimals) {
  return Cell(format_fixed(v, decimals), v);
}
Cell integer(long long v) {
  return Cell(std::to_string(v), static_cast<double>(v));
}
Cell rank_cell(int r) {
  return r >= 0 ? integer(r) : Cell("");
}
Cell stat(const std::optional<Stats>& s, double Stats::*which) {
  return s ? number((*s).*which, 3) : Cell("");
}

struct Context {
  const RunDocument& d;
  const ResultIndex& idx;
  States states;
  Pairs pairs;
  std::map<int, CardId> cards;  // every rank's, looked up per row (100k rows)
};

const CardId& card(const Context& c, int rank) {
  static const CardId kNone;
  const auto it = c.cards.find(rank);
  return it != c.cards.end() ? it->second : kNone;
}

const MethodVerdict* state_of(const Context& c, const Result& r) {
  const auto it = c.states.find({r.method, r.src, r.dst});
  return it == c.states.end() ? nullptr : it->second;
}

// The row the verdict judged: its size, of the variant verdicts judge (the first -d/-o).
bool judged_row(const Context& c, const Result& r) {
  const MethodVerdict* m = state_of(c, r);
  if (!m || m->bytes != r.bytes) return false;
  const auto& judged = c.idx.of(r.method, r.src, r.dst);
  return std::find(judged.begin(), judged.end(), &r) != judged.end();
}

// Why the method's state is what it is: its reason, or for a flagged method its flags' messages.
std::string reason_of(const MethodVerdict* m, const PairVerdict* v) {
  if (!m) return "";
  if (!m->reason.empty() || !v || m->state != verdict_state::kFlagged) return m->reason;
  std::vector<std::string> why;
  for (const auto& f : v->flags)
    if (f.method == m->method) why.push_back(f.code + ": " + f.message);
  return join(why, "; ");
}

void card_cells(std::vector<Cell>& row, const CardId& c) {
  row.push_back(c.gpu_index >= 0 ? integer(c.gpu_index) : Cell(""));
  row.insert(row.end(), {c.pci_bus_id, c.uuid, c.serial});
}

// The verdict's columns: state, known-good figure, ratio and source on the judged row, whether
// this row is the judged one, why, and the pair's verdict and flag codes.
void verdict_cells(std::vector<Cell>& row, const Context& c, const Result& r) {
  const MethodVerdict* m = state_of(c, r);
  const bool judged = judged_row(c, r);
  row.push_back(m ? m->state : "");
  if (judged && m->expected) {
    row.push_back(number(*m->expected, 3));
    row.push_back(m->expected_ratio ? number(*m->expected_ratio, 4) : Cell(""));
    row.push_back(m->expected_basis);
  } else {
    row.insert(row.end(), {"", "", ""});
  }
  row.push_back(judged ? integer(1) : integer(0));
  const auto pv = c.pairs.find({r.src, r.dst});
  const PairVerdict* v = pv == c.pairs.end() ? nullptr : pv->second;
  row.push_back(reason_of(m, v));
  std::vector<std::string> codes;
  if (v) {
    for (const auto& f : v->flags)
      if (std::find(codes.begin(), codes.end(), f.code) == codes.end()) codes.push_back(f.code);
  }
  row.push_back(v ? v->verdict : "");
  row.push_back(join(codes, " "));
}

std::vector<Cell> result_row(const ReportInput& in, const Context& c, const Result& r) {
  std::vector<Cell> row{in.path,
                        r.method,
                        rank_cell(r.src),
                        rank_cell(r.dst),
                        card(c, r.src).host,
                        card(c, r.dst).host,
                        integer(static_cast<long long>(r.bytes)),
                        to_string(r.status)};
  row.insert(row.end(), {stat(r.time_us, &Stats::min), stat(r.time_us, &Stats::median),
                         stat(r.time_us, &Stats::max), stat(r.algbw_gbps, &Stats::min),
                         stat(r.algbw_gbps, &Stats::median), stat(r.algbw_gbps, &Stats::max),
                         stat(r.busbw_gbps, &Stats::median)});
  row.insert(row.end(), {integer(static_cast<long long>(r.wrong)), integer(r.round),
                         integer(r.concurrent_pairs), r.reason});
  card_cells(row, card(c, r.src));
  card_cells(row, card(c, r.dst));
  verdict_cells(row, c, r);
  row.insert(row.end(), {r.datatype, r.op});
  return row;
}

Context context_of(const ReportInput& in, const ResultIndex& idx) {
  Context c{*in.doc, idx, {}, {}, {}};
  for (const auto& v : in.verdicts) {
    c.pairs[{v.src, v.dst}] = &v;
    for (const auto& m : v.methods) c.states[{m.method, v.src, v.dst}] = &m;
  }
  for (const auto& card : cards_in(in.verdicts)) c.cards[card.rank] = card;
  for (const auto& r : in.doc->system.ranks)
    if (!c.cards.count(r.rank)) c.cards[r.rank] = card_of(*in.doc, r.rank);
  return c;
}

}  // namespace

Section data_section(const ReportInput& in, const ResultIndex& idx) {
  Section s;
  s.title = "Every result";
  s.shown = Shown::kData;
  for (const char* name : {"run",
                           "method",
                           "src",
                           "dst",
                           "src_host",
                           "dst_host",
                           "bytes",
                           "status",
                           "time_us_min",
                           "time_us_median",
                           "time_us_max",
                           "algbw_gbps_min",
                           "algbw_gbps_median",
                           "algbw_gbps_max",
                           "busbw_gbps_median",
                           "wrong",
                           "round",
                           "concurrent_pairs",
                           "reason",
                           "src_gpu",
                           "src_pci_bus_id",
                           "src_uuid",
                           "src_serial",
                           "dst_gpu",
                           "dst_pci_bus_id",
                           "dst_uuid",
                           "dst_serial",
                           "verdict",
                           "known_good",
                           "known_good_ratio",
                           "known_good_source",
                           "judged",
                           "verdict_reason",
                           "pair_verdict",
                           "pair_flags",
                           "datatype",
                           "op"})
    s.table.columns.emplace_back(name);
  const Context c = context_of(in, idx);
  for (const auto& r : in.doc->results) s.table.rows.push_back(result_row(in, c, r));
  return s;
}

}  // namespace peerbench::report_doc
