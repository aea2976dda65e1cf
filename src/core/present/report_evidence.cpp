// Each verdict's evidence, in words and rounded numbers (core/present/report_document.h): a part
// per verdict that does not pass, the notes every verdict shares said once, and the summary.
#include <algorithm>
#include <cmath>
#include <map>

#include "core/base/text.h"
#include "core/judge/verdict.h"
#include "core/present/report_document.h"
#include "core/present/report_parts.h"

namespace peerbench::report_doc {
namespace {

using namespace report_parts;
namespace vs = verdict_state;

// A number as a reader wants it: 229.5272 -> 229.5, 0.10634 -> 0.106, 18 -> 18.
std::string number_text(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::abs(v) < 1e15)
    return std::to_string(static_cast<long long>(v));
  const double a = std::abs(v);
  std::string s = format_fixed(v, a >= 100 ? 1 : a >= 1 ? 2 : 3);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

// Evidence as words: "threshold_gbps 229.5, measured_gbps 27.1, channels [0, 1]": no JSON
// braces or quotes, numbers rounded.
std::string evidence_text(const nlohmann::json& j) {
  if (j.is_number()) return number_text(j.get<double>());
  if (j.is_string()) return j.get<std::string>();
  if (j.is_boolean()) return j.get<bool>() ? "yes" : "no";
  if (j.is_null()) return "none";
  std::vector<std::string> parts;
  if (j.is_array()) {
    for (const auto& x : j)
      parts.push_back(x.is_object() ? "(" + evidence_text(x) + ")" : evidence_text(x));
    return "[" + join(parts, ", ") + "]";
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    const auto& v = it.value();
    parts.push_back(it.key() + " " +
                    (v.is_object() ? "(" + evidence_text(v) + ")" : evidence_text(v)));
  }
  return join(parts, ", ");
}

Section verdict_part(const PairVerdict& v) {
  Section s;
  s.depth = 1;
  s.title = pair_name(v.src, v.dst) + " (" + v.link_description + "): " + verdict_word(v.verdict);
  for (const auto& f : v.flags) {
    s.lines.push_back(f.code + (f.method.empty() ? "" : " (" + f.method + ")") + ": " + f.message);
    if (!f.evidence.is_null() && !f.evidence.empty())
      s.lines.push_back("evidence: " + evidence_text(f.evidence));
  }
  for (const auto& m : v.methods) {
    if (m.state == vs::kPass || m.state == vs::kFlagged) continue;
    s.lines.push_back(m.state + ": " + m.method + (m.reason.empty() ? "" : ": " + m.reason));
  }
  if (!v.concurrent_pairs.empty())
    s.lines.push_back("ran at the same time as: " + join(v.concurrent_pairs, ", "));
  return s;
}

bool passes_plainly(const PairVerdict& v) {
  return v.verdict == vs::kPass && v.flags.empty();
}

// Figures measured and judged by no bar, said once per method and reason with the pairs.
std::vector<std::string> not_judged_lines(const std::vector<PairVerdict>& verdicts) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::string>> pairs;
  for (const auto& v : verdicts) {
    if (!passes_plainly(v) && v.verdict != vs::kNotJudged) continue;
    for (const auto& m : v.methods) {
      if (m.state != vs::kNotJudged) continue;
      const std::string key = m.method + (m.reason.empty() ? "" : ": " + m.reason);
      if (!pairs.count(key)) order.push_back(key);
      pairs[key].push_back(pair_name(v.src, v.dst));
    }
  }
  std::vector<std::string> out;
  for (const auto& key : order) {
    const auto colon = key.find(':');
    out.push_back(key.substr(0, colon) + " on " + join(pairs[key], ", ") +
                  (colon == std::string::npos ? "" : key.substr(colon)));
  }
  return out;
}

Section summary_section(const ReportInput& in) {
  Section s;
  s.title = "Summary";
  const auto c = count_verdicts(in.verdicts);
  std::vector<std::string> plain;
  for (const auto& v : in.verdicts)
    if (passes_plainly(v)) plain.push_back(pair_name(v.src, v.dst));
  if (!plain.empty())
    s.lines.push_back("pass, every judged figure within its bar: " + join(plain, ", "));
  for (const auto& l : not_judged_lines(in.verdicts)) s.lines.push_back("not judged: " + l);
  s.lines.push_back("verdict: " + run_headline(*in.doc, in.verdicts));
  if (!in.failing_why.empty()) s.lines.push_back("exit 1: " + in.failing_why);
  if (!in.waived_why.empty()) s.lines.push_back("waived: " + in.waived_why);
  s.lines.push_back("counts: " + verdict_summary(c));
  return s;
}

}  // namespace

// Every verdict in one table: the pair or GPU, its link, its state, its flags.
Section verdicts_table(const ReportInput& in) {
  Section s;
  s.title = "Verdicts (thresholds: " + in.expectations_source + ")";
  s.table.columns = {"pair", "link", "GPUs", "verdict", "flags"};
  for (const auto& v : in.verdicts) {
    std::vector<std::string> gpus, codes;
    if (v.src >= 0)
      for (const auto& c : v.cards)
        gpus.push_back(c.pci_bus_id.empty() ? std::to_string(c.gpu_index) : c.pci_bus_id);
    for (const auto& f : v.flags)
      if (std::find(codes.begin(), codes.end(), f.code) == codes.end()) codes.push_back(f.code);
    s.table.add_row({pair_name(v.src, v.dst), v.link, join(gpus, " -> "), state_cell(v.verdict),
                     join(codes, ", ")},
                    v.verdict == vs::kFlagged);
  }
  return s;
}

std::vector<Section> evidence_sections(const ReportInput& in) {
  std::vector<Section> out;
  out.push_back(verdicts_table(in));
  Section head;
  head.title = "Verdicts in detail";
  head.lines.push_back("each verdict that does not simply pass, with its flags' evidence");
  std::vector<Section> parts;
  for (const auto& v : in.verdicts)
    if (!passes_plainly(v) && v.verdict != vs::kNotJudged) parts.push_back(verdict_part(v));
  if (!parts.empty()) out.push_back(std::move(head));
  for (auto& p : parts) out.push_back(std::move(p));
  out.push_back(summary_section(in));
  return out;
}

}  // namespace peerbench::report_doc
