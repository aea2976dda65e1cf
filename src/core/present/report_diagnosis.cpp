// The report's diagnosis (report_document.h): each cause of the run's flags once, strongest
// evidence first, with what it explains, the evidence read, and its Next line.
#include <algorithm>
#include <set>

#include "core/base/text.h"
#include "core/judge/diagnosis.h"
#include "core/present/report_document.h"

namespace peerbench::report_doc {

namespace {

constexpr std::size_t kEvidenceShown = 6;  // per cause; the JSON keeps every item

// "explains nccl-shm on 0->1, 1->0; below-expected on all ranks": each flag or state with the
// pairs of the cause whose verdicts carry it.
std::string explains(const DiagnosedCause& c, const std::vector<PairVerdict>& verdicts) {
  std::vector<std::string> parts;
  const auto carried = [&](const PairVerdict& v, const std::string& what) {
    return std::any_of(v.flags.begin(), v.flags.end(),
                       [&](const Flag& f) { return f.code == what; }) ||
           std::any_of(v.methods.begin(), v.methods.end(),
                       [&](const MethodVerdict& m) { return m.state == what; });
  };
  // Looked up per verdict: a node of 58 GPUs has 3306 pairs in one cause.
  const std::set<std::string> pairs(c.pairs.begin(), c.pairs.end());
  std::vector<std::string> what = c.flags;
  what.insert(what.end(), c.states.begin(), c.states.end());
  for (const auto& w : what) {
    std::vector<std::string> on;
    std::set<std::string> said;
    for (const auto& v : verdicts) {
      const std::string p = diagnosis_pair_label(v.src, v.dst);
      if (pairs.count(p) && carried(v, w) && said.insert(p).second) on.push_back(p);
    }
    parts.push_back(w + (on.empty() ? "" : " on " + join(on, ", ")));
  }
  return parts.empty() ? "" : "explains " + join(parts, "; ");
}

std::string evidence_line(const DiagnosedCause& c) {
  std::vector<std::string> items;
  for (std::size_t i = 0; i < c.evidence.size() && i < kEvidenceShown; ++i)
    items.push_back(c.evidence[i].source + ": " + c.evidence[i].fact);
  if (c.evidence.size() > kEvidenceShown)
    items.push_back("and " + std::to_string(c.evidence.size() - kEvidenceShown) + " more (JSON)");
  return "evidence: " + join(items, "; ");
}

}  // namespace

std::vector<std::string> diagnosis_lines(const std::vector<DiagnosedCause>& causes,
                                         const std::vector<PairVerdict>& verdicts) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < causes.size(); ++i) {
    const DiagnosedCause& c = causes[i];
    const std::string what = explains(c, verdicts);
    out.push_back(std::to_string(i + 1) + ". " + (c.host.empty() ? "" : c.host + ": ") + c.summary +
                  " [" + c.strength + (what.empty() ? "" : "; " + what) + "]");
    if (!c.evidence.empty()) out.push_back(evidence_line(c));
    if (!c.next.empty()) out.push_back(c.next);
  }
  return out;
}

Section diagnosis_section(const ReportInput& in) {
  Section s;
  const auto causes = diagnose(*in.doc, in.verdicts);
  if (causes.empty()) return s;
  s.title = "Diagnosis: why, and what to do next";
  s.lines = diagnosis_lines(causes, in.verdicts);
  s.shown = Shown::kPeople;  // CSV keeps its data table alone
  return s;
}

}  // namespace peerbench::report_doc
