// The first screen of a report: the verdict and what does not pass
// (core/present/report_document.h).
#include <algorithm>
#include <map>
#include <set>

#include "core/base/text.h"
#include "core/judge/verdict.h"
#include "core/model/flag_table.h"
#include "core/present/report_document.h"
#include "core/present/report_parts.h"

namespace peerbench::report_doc {
namespace {

namespace vs = verdict_state;

bool neutral(const std::string& state) {
  return state == vs::kPass || state == vs::kNotJudged || state == vs::kNotApplicable ||
         state == vs::kNotALink;
}

bool several_hosts(const std::vector<PairVerdict>& verdicts) {
  std::set<std::string> hosts;
  for (const auto& v : verdicts)
    for (const auto& c : v.cards) hosts.insert(c.host);
  return hosts.size() > 1;
}

// "GPU 0 0000:00:06.0 s/n 1654024032698", with its host where the run spans several.
std::string card_text(const CardId& c, bool with_host) {
  std::string s = (with_host ? c.host + " " : "") + "GPU " + std::to_string(c.gpu_index);
  if (!c.pci_bus_id.empty()) s += " " + c.pci_bus_id;
  return s + " s/n " + report_parts::serial_text(c);
}

const CardId* card_of_rank(const PairVerdict& v, int rank) {
  for (const auto& c : v.cards)
    if (c.rank == rank) return &c;
  return nullptr;
}

// Who the verdict is about: "0->1 (NV18) GPU 0 ... -> GPU 1 ...", "GPU 0 ... host link (PCIe
// Gen5 x16)", "all ranks".
std::string subject(const PairVerdict& v, bool with_host) {
  if (v.src < 0)
    return v.link.empty() || v.link == "all" ? "all ranks" : "all ranks (" + v.link + ")";
  const CardId* a = card_of_rank(v, v.src);
  const CardId* b = card_of_rank(v, v.dst);
  const std::string ca = a ? card_text(*a, with_host) : "rank " + std::to_string(v.src);
  if (v.src == v.dst) return ca + " host link (" + v.link + ")";
  const std::string cb = b ? card_text(*b, with_host) : "rank " + std::to_string(v.dst);
  return pair_name(v.src, v.dst) + " (" + v.link + ") " + ca + " -> " + cb;
}

const MethodVerdict* method_verdict(const PairVerdict& v, const std::string& method) {
  for (const auto& m : v.methods)
    if (m.method == method) return &m;
  return nullptr;
}

// A method a flag names, with the figure the flag is about where it is a bar's: "nccl-allreduce
// 0.10" (of known-good) for below-expected, "ce-write 396.9 GB/s, bar 500.0" for other bars. Other
// flags (asymmetric, data errors, off-NVLink) name the method alone: a ratio to known-good beside
// them measured something else (an audit read "ce-write 1.00" as healthy).
std::string flagged_method(const PairVerdict& v, const Flag& f) {
  const MethodVerdict* m = method_verdict(v, f.method);
  const bool bar_flag = f.code == "below-expected" || f.code == "below-link" ||
                        f.code == "off-baseline" || f.code == "high-latency";
  if (!m || !bar_flag || !m->value) return f.method;
  // below-expected's words say the ratio is to known-good: "nccl-allreduce 0.10".
  if (f.code == "below-expected" && m->expected_ratio)
    return f.method + " " + format_fixed(*m->expected_ratio, 2);
  const std::string figure = f.method + " " + figure_text(*m->value, m->unit) + " " + m->unit;
  if (m->bar) return figure + ", bar " + figure_text(*m->bar, m->unit);
  return figure;
}

// What is wrong: each flag code once with the methods it names; then methods in a state that is
// not the link's (contended, throttled, noisy, incomplete) with the first reason.
bool gpu_flag(const Flag& f) {
  const FlagInfo* info = find_flag(f.code);
  return info && info->scope == FlagScope::kGpu;
}

std::string flag_words(const std::string& code) {
  // The flag table's few words say what the code means (a bare "nccl-shm" says nothing to a
  // reader who signs the report).
  const FlagInfo* info = find_flag(code);
  return code + (info ? std::string(": ") + info->summary : "");
}

std::string what_is_wrong(const PairVerdict& v, bool with_figures) {
  std::vector<std::string> codes;
  std::map<std::string, std::vector<std::string>> methods;
  for (const auto& f : v.flags) {
    if (gpu_flag(f)) continue;  // said once on its GPU's own line
    if (!methods.count(f.code)) codes.push_back(f.code);
    auto& ms = methods[f.code];
    const std::string m = f.method.empty() ? "" : with_figures ? flagged_method(v, f) : f.method;
    if (!m.empty() && std::find(ms.begin(), ms.end(), m) == ms.end()) ms.push_back(m);
  }
  std::vector<std::string> parts;
  for (const auto& c : codes)
    parts.push_back(flag_words(c) +
                    (methods[c].empty() ? "" : " (" + join(methods[c], ", ") + ")"));
  std::map<std::string, std::vector<std::string>> by_state;
  std::map<std::string, std::string> reason;
  std::vector<std::string> states;
  for (const auto& m : v.methods) {
    if (neutral(m.state) || m.state == vs::kFlagged) continue;
    if (!by_state.count(m.state)) states.push_back(m.state);
    by_state[m.state].push_back(m.method);
    if (reason[m.state].empty()) reason[m.state] = m.reason;
  }
  for (const auto& s : states) {
    // The verdict's own state is said before this ("INCOMPLETE (ce-read, ...): not measured").
    parts.push_back((s == v.verdict ? "" : s + " ") + "(" + join(by_state[s], ", ") + ")" +
                    (with_figures && !reason[s].empty() ? ": " + reason[s] : ""));
  }
  return join(parts, "; ");
}

// A GPU's own flags (its links' health) stand on every pair of that GPU: one line per GPU, by the
// card the flag names (its evidence's pci_bus_id), not once per pair.
std::vector<std::string> gpu_lines(const std::vector<PairVerdict>& verdicts, bool hosts) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::string>> codes;
  std::map<std::string, std::string> who;
  for (const auto& v : verdicts) {
    for (const auto& f : v.flags) {
      if (!gpu_flag(f)) continue;
      const std::string bus = f.evidence.is_object() && f.evidence.contains("pci_bus_id") &&
                                      f.evidence["pci_bus_id"].is_string()
                                  ? f.evidence["pci_bus_id"].get<std::string>()
                                  : "";
      const CardId* card = nullptr;
      for (const auto& c : v.cards)
        if (!bus.empty() && c.pci_bus_id == bus) card = &c;
      const std::string key = card ? card->host + "/" + bus : "?" + bus;
      if (!codes.count(key)) {
        order.push_back(key);
        who[key] = card ? card_text(*card, hosts) : "a GPU (" + (bus.empty() ? "?" : bus) + ")";
      }
      auto& cs = codes[key];
      if (std::find(cs.begin(), cs.end(), f.code) == cs.end()) cs.push_back(f.code);
    }
  }
  std::vector<std::string> out;
  for (const auto& key : order) {
    std::vector<std::string> words;
    for (const auto& c : codes[key]) words.push_back(flag_words(c));
    out.push_back(who[key] + ": FLAGGED " + join(words, "; "));
  }
  return out;
}

}  // namespace

std::string verdict_line(const ReportInput& in) {
  const std::string headline = run_headline(*in.doc, in.verdicts);
  // What the default --fail-on counts decides too where --fail-on waived nothing: a caller that
  // left `failing` unset must not read PASS over a run cut short.
  const int fails = in.waived_why.empty()
                        ? std::max(in.failing, run_failing(*in.doc, in.verdicts, "all"))
                        : in.failing;
  if (fails > 0) return "FAIL: " + headline;
  if (!in.waived_why.empty()) return "WAIVED: " + headline;
  // Exit 0 with no verdict passing (every figure under the size judged, or one GPU shared): no
  // bar judged anything, which is not a pass (an audit read "PASS: 3 not judged").
  if (count_verdicts(in.verdicts).pass == 0) return "NOT JUDGED: " + headline;
  return "PASS: " + headline;
}

std::vector<std::string> problem_lines(const ReportInput& in) {
  const bool hosts = several_hosts(in.verdicts);
  std::vector<std::string> out = gpu_lines(in.verdicts, hosts);
  std::vector<const PairVerdict*> bad;
  for (const auto& v : in.verdicts) {
    // A pair flagged for its GPUs' own flags alone is said on those GPUs' lines.
    if (!neutral(v.verdict) && !what_is_wrong(v, false).empty()) bad.push_back(&v);
  }
  if (bad.size() <= kProblemLines) {
    for (const auto* v : bad)
      out.push_back(subject(*v, hosts) + ": " + report_parts::upper(v->verdict) + " " +
                    what_is_wrong(*v, true));
  } else {
    // Many pairs with one problem (every pair of 8 GPUs on SHM) read as one line each: 56 lines
    // before the figures. Pairs with the same problem share one; the matrices name the cards.
    std::vector<std::string> order;
    std::map<std::string, std::vector<std::string>> pairs;
    for (const auto* v : bad) {
      const std::string key = report_parts::upper(v->verdict) + " " + what_is_wrong(*v, false);
      if (!pairs.count(key)) order.push_back(key);
      pairs[key].push_back(v->src < 0 ? "all ranks" : pair_name(v->src, v->dst));
    }
    for (const auto& key : order) {
      const auto& ps = pairs[key];
      // The first pairs by name, the rest counted: the matrices below show each.
      constexpr std::size_t kNamed = 8;
      std::vector<std::string> named(ps.begin(), ps.begin() + std::min(ps.size(), kNamed));
      if (ps.size() > kNamed)
        named.push_back("and " + std::to_string(ps.size() - kNamed) + " more");
      out.push_back(std::to_string(ps.size()) + (ps.size() == 1 ? " verdict (" : " verdicts (") +
                    join(named, ", ") + "): " + key);
    }
  }
  if (!in.waived_why.empty()) out.push_back("waived: " + in.waived_why);
  // Exit 1 with every verdict passing (a run cut short, an opt-in state): say why up here.
  if (out.empty() && !in.failing_why.empty()) out.push_back("exit 1: " + in.failing_why);
  return out;
}

}  // namespace peerbench::report_doc
