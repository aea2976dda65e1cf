#include "core/report.h"
#include "core/base/text.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

#include "core/model/datatypes.h"
#include "core/report_parts.h"
#include "core/model/result_index.h"
#include "core/run_progress.h"
#include "core/model/sizes.h"
#include "core/text_table.h"
#include "core/judge/verdict.h"

namespace peerbench {
namespace report_parts {

// The type/op variants of an all-ranks method, in the order the run measured them.
std::vector<std::string> variants_of(const RunDocument& d, const std::string& method) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& r : d.results) {
    if (r.method == method && r.src < 0 && seen.insert(variant_label(r)).second)
      out.push_back(variant_label(r));
  }
  return out;
}

std::string variant_suffix(const std::string& v) {
  return v.empty() ? "" : " (" + v + ")";
}

// Methods of one scope that appear in the run's results, in the run's method order.
std::vector<const MethodInfo*> methods_in(const RunDocument& d, MethodScope scope) {
  std::vector<const MethodInfo*> out;
  for (const auto& m : d.methods) {
    if (m.scope != scope) continue;
    for (const auto& r : d.results) {
      if (r.method == m.name) {
        out.push_back(&m);
        break;
      }
    }
  }
  return out;
}

// Cell for (method, pair) at the largest size: the headline number, or the status.
std::string cell(const ResultIndex& idx, const MethodInfo* m, int src, int dst) {
  if (m->bidirectional && src > dst) std::swap(src, dst);  // one result per unordered pair
  if (const auto* r = idx.largest_ok(m->name, src, dst)) {
    std::string s = format_fixed(headline_value(m, *r), m->metric == Metric::kLatency ? 2 : 1);
    if (r->wrong > 0) s += "!";
    return s;
  }
  for (const auto* r : idx.of(m->name, src, dst)) {
    if (r->status == ResultStatus::kNotApplicable) return "n/a";
    if (r->status == ResultStatus::kSkipped) return "skip";
    return to_string(r->status);
  }
  return "-";
}

// Link label per pair, from the verdicts.
std::map<std::pair<int, int>, std::string> links_of(const std::vector<PairVerdict>& vs) {
  std::map<std::pair<int, int>, std::string> out;
  for (const auto& v : vs) out[{v.src, v.dst}] = v.link;
  return out;
}

std::string link_label(const std::map<std::pair<int, int>, std::string>& links, int s, int t) {
  const auto it = links.find({s, t});
  return it == links.end() ? "?" : it->second;
}

std::string largest_size_label(const RunDocument& d, const MethodInfo* m) {
  std::uint64_t b = 0;
  for (const auto& r : d.results) {
    if (r.method == m->name && r.status == ResultStatus::kOk) b = std::max(b, r.bytes);
  }
  return b ? format_size_compact(b) : "";
}

std::string unit(const MethodInfo* m) {
  if (m->metric == Metric::kLatency) return "us";
  return m->uses_nccl ? "busbw GB/s" : "GB/s";
}

// "GB/s @ 1G", or the unit alone when nothing was measured.
std::string unit_at(const RunDocument& d, const MethodInfo* m) {
  const std::string size = largest_size_label(d, m);
  return size.empty() ? unit(m) : unit(m) + " @ " + size;
}

// Host<->GPU methods per GPU at the largest size, and for the every-GPU-at-once methods the
// host's total (the sum of the GPUs' medians: they ran in the same timed window).

// The host's total of an every-GPU-at-once method, per host: the sum of the ranks' medians at the
// largest size (they ran in one timed window); a GPU two ranks share carried both and is one GPU.
std::vector<std::string> host_totals(const RunDocument& d, const ResultIndex& idx,
                                     const MethodInfo* m) {
  std::uint64_t bytes = 0;
  for (const auto& r : d.results) {
    if (r.method == m->name && r.status == ResultStatus::kOk) bytes = std::max(bytes, r.bytes);
  }
  std::map<std::string, std::pair<double, std::set<std::string>>> per_host;
  for (int g : idx.gpus()) {
    const auto* r = idx.ok_at(m->name, g, g, bytes);
    const RankInfo* ri = idx.rank(g);
    if (!r || !r->algbw_gbps || !ri) continue;
    auto& [sum, cards] = per_host[ri->host];
    const std::string card =
        ri->gpu.pci_bus_id.empty() ? std::to_string(ri->gpu.index) : ri->gpu.pci_bus_id;
    cards.insert(card);
    sum += r->algbw_gbps->median;
  }
  std::vector<std::string> out;
  for (const auto& [host, total] : per_host) {
    const auto n = total.second.size();
    out.push_back(m->name + " on " + host + ": " + format_fixed(total.first, 1) + " GB/s from " +
                  std::to_string(n) + " GPU" + (n == 1 ? "" : "s") + " at once @ " +
                  format_size_compact(bytes) + " (sum of the GPUs' medians)");
  }
  return out;
}

HostTable host_table(const RunDocument& d, const ResultIndex& idx,
                     const std::map<std::pair<int, int>, std::string>& links) {
  HostTable t;
  t.methods = methods_in(d, MethodScope::kPerGpu);
  if (t.methods.empty()) return t;
  for (const auto* m : t.methods) t.units.push_back(unit_at(d, m));
  // "node1 GPU 0"; by PCI bus id where indexes do not tell GPUs apart (per-task binding: every
  // rank sees its GPU as index 0).
  std::map<std::string, std::set<std::string>> buses_of_label;
  auto short_label = [](const RankInfo& r) {
    return r.host + " GPU " + std::to_string(r.gpu.index);
  };
  for (int g : idx.gpus()) {
    if (const RankInfo* ri = idx.rank(g))
      buses_of_label[short_label(*ri)].insert(ri->gpu.pci_bus_id);
  }
  for (int g : idx.gpus()) {
    const RankInfo* ri = idx.rank(g);
    std::string gpu = ri ? short_label(*ri) : "?";
    if (ri && buses_of_label[gpu].size() > 1) gpu = ri->host + " " + ri->gpu.pci_bus_id;
    HostTable::Row row{pair_name(g, g), gpu, link_label(links, g, g), {}};
    for (const auto* m : t.methods) row.cells.push_back(cell(idx, m, g, g));
    t.rows.push_back(std::move(row));
  }
  for (const auto* m : t.methods) {
    if (!m->all_gpus_at_once) continue;
    for (auto& s : host_totals(d, idx, m)) t.totals.push_back(std::move(s));
  }
  return t;
}

std::string transport_of(const ResultIndex& idx, int src, int dst) {
  const auto* p = idx.facts(src, dst);
  if (!p || !p->nccl) return "";
  if (!p->nccl->net_paths.empty()) {
    std::string s;
    for (const auto& n : p->nccl->net_paths) s += (s.empty() ? "" : ",") + n;
    return s + (p->nccl->gdrdma.value_or(false) ? "/GDRDMA" : "");
  }
  return p->nccl->details.empty() ? p->nccl->kind : p->nccl->details.front();
}

std::string system_line(const RunDocument& d) {
  std::ostringstream o;
  // Distinct GPUs, not ranks: two ranks sharing one GPU are one GPU.
  std::map<std::string, std::set<std::string>> gpus;
  for (const auto& r : d.system.ranks) {
    gpus[r.gpu.name].insert(
        r.host + "/" + (r.gpu.pci_bus_id.empty() ? std::to_string(r.gpu.index) : r.gpu.pci_bus_id));
  }
  o << d.system.ranks.size() << " ranks on " << d.system.hosts.size() << " host"
    << (d.system.hosts.size() == 1 ? "" : "s");
  for (const auto& [name, ids] : gpus) o << ", " << ids.size() << "x " << name;
  if (!d.system.driver_version.empty()) o << ", driver " << d.system.driver_version;
  if (d.system.cuda_runtime_version) {
    o << ", CUDA " << d.system.cuda_runtime_version / 1000 << "."
      << (d.system.cuda_runtime_version % 1000) / 10;
  }
  if (!d.system.nccl_version.empty()) o << ", NCCL " << d.system.nccl_version;
  return o.str();
}

// Results that were not measured, grouped by method, status and reason: nothing asked for is
// dropped without saying why.
std::vector<Unmeasured> unmeasured(const RunDocument& d) {
  std::vector<Unmeasured> out;
  std::map<std::tuple<std::string, std::string, std::string>, std::size_t> group;
  std::set<std::pair<std::size_t, std::string>> listed;
  for (const auto& r : d.results) {
    if (r.status == ResultStatus::kOk) continue;
    const std::string st = to_string(r.status);
    const auto [it, fresh] = group.emplace(std::make_tuple(r.method, st, r.reason), out.size());
    if (fresh) out.push_back({r.method, st, r.reason, {}, 0});
    Unmeasured& u = out[it->second];
    const std::string p = pair_name(r.src, r.dst);
    if (listed.insert({it->second, p}).second) u.pairs.push_back(p);
    ++u.cases;
  }
  return out;
}

// Requested methods that are not measured, per verdict: the incomplete, not-judged,
// not-applicable and not-a-link ones, each with its reason.
std::vector<MethodNote> method_notes(const PairVerdict& v) {
  std::vector<MethodNote> out;
  for (const auto& m : v.methods) {
    if (m.state == verdict_state::kPass || m.state == verdict_state::kFlagged) continue;
    out.push_back({pair_name(v.src, v.dst), m.method, m.state, m.reason});
  }
  return out;
}

// The GPUs of the judged pairs: host, index, PCI bus id, UUID, serial.
std::vector<CardId> cards_in(const std::vector<PairVerdict>& vs) {
  std::vector<CardId> out;
  std::set<int> seen;
  for (const auto& v : vs) {
    for (const auto& c : v.cards) {
      if (seen.insert(c.rank).second) out.push_back(c);
    }
  }
  std::sort(out.begin(), out.end(),
            [](const CardId& a, const CardId& b) { return a.rank < b.rank; });
  return out;
}

std::string serial_text(const CardId& c) {
  return c.serial.empty() ? "not recorded" : c.serial;
}

// Per pair and method: the figure beside its known-good one (data/known_good), and its source;
// or, once per pair, why there is none.

std::vector<KnownGoodRow> known_good_rows(const std::vector<PairVerdict>& vs) {
  std::vector<KnownGoodRow> out;
  for (const auto& v : vs) {
    std::set<std::string> unknown_said;
    for (const auto& m : v.methods) {
      const std::string pair = pair_name(v.src, v.dst);
      if (!m.expected) {
        if (!m.expected_basis.empty() && unknown_said.insert(m.expected_basis).second)
          out.push_back({pair, v.link, m.method, "", "", "", m.expected_basis});
        continue;
      }
      const bool us = m.unit == "us";
      out.push_back({pair, v.link, m.method,
                     m.value ? format_fixed(*m.value, us ? 2 : 1) + " " + m.unit : "",
                     format_fixed(*m.expected, us ? 2 : 1),
                     m.expected_ratio ? format_fixed(*m.expected_ratio, 2) : "", m.expected_basis});
    }
  }
  return out;
}

std::string upper(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}

// A verdict as the text report shows it: upper case where it is not a pass and not neutral.
std::string verdict_word(const std::string& state) {
  if (state == verdict_state::kPass || state == verdict_state::kNotJudged ||
      state == verdict_state::kNotApplicable || state == verdict_state::kNotALink)
    return state;
  return upper(state);
}

// CSS class of a verdict state: only pass is green; nothing unmeasured looks like it.
std::string state_class(const std::string& state) {
  if (state == verdict_state::kPass) return "pass";
  if (state == verdict_state::kFlagged) return "flagged";
  // Not a pass, and not the link's fault: amber, as incomplete.
  if (state == verdict_state::kIncomplete || state == verdict_state::kContended ||
      state == verdict_state::kThrottled || state == verdict_state::kNoisy)
    return "incomplete";
  return "neutral";
}

}  // namespace report_parts

namespace {
using namespace report_parts;

// ---------------------------------------------------------------------------------------------
class TextReporter : public DocumentReporter {
 public:
  std::string render(const std::vector<ReportInput>& runs,
                     const std::vector<PlotFile>&) const override {
    std::ostringstream o;
    for (const auto& in : runs) {
      const auto& d = *in.doc;
      const ResultIndex idx(d);
      o << "peerbench report: " << in.path << "\n";
      o << "  run: " << system_line(d) << "\n";
      o << "  status " << d.status << ", started " << d.started_at << ", peerbench "
        << d.tool.version << " (" << d.tool.git_revision << ")\n";
      if (d.status != "complete" && d.in_progress.is_object()) {
        o << "  cut short while running: " << describe_in_progress(d.in_progress) << "\n";
      }
      o << "  NCCL transport capture: " << d.nccl.mode
        << (d.nccl.note.empty() ? "" : " (" + d.nccl.note + ")") << "\n\n";
      matrix(o, in, idx);
      host_lines(o, host_table(d, idx, links_of(in.verdicts)));
      all_ranks_lines(o, d);
      cards(o, in.verdicts);
      not_measured(o, d);
      known_good(o, in.verdicts);
      verdicts(o, in);
      if (!d.errors.empty()) {
        o << "Errors recorded by the run:\n";
        for (const auto& e : d.errors) o << "  " << e << "\n";
      }
      if (runs.size() > 1) o << "\n";
    }
    return sanitize_lines_for_terminal(o.str());  // strings from the file reach a terminal
  }

 private:
  static void matrix(std::ostringstream& o, const ReportInput& in, const ResultIndex& idx) {
    const auto& d = *in.doc;
    const auto pm = methods_in(d, MethodScope::kPair);
    if (pm.empty()) return;
    const auto links = links_of(in.verdicts);
    o << "Pairs at the largest size (median; '!' = data errors):\n";
    std::vector<Align> align{Align::kLeft, Align::kLeft};
    align.insert(align.end(), pm.size(), Align::kRight);
    TextTable t(align);
    std::vector<std::string> names{"pair", "link"};
    std::vector<std::string> units{"", ""};
    for (const auto* m : pm) {
      names.push_back(m->name);
      units.push_back(unit_at(d, m));  // once per method: each scans the results
    }
    names.push_back("NCCL transport");
    t.add_row(std::move(names));
    t.add_row(std::move(units));
    for (const auto& [s, t_] : idx.pairs()) {
      std::vector<std::string> row{pair_name(s, t_), link_label(links, s, t_)};
      for (const auto* m : pm) row.push_back(cell(idx, m, s, t_));
      row.push_back(transport_of(idx, s, t_));
      t.add_row(std::move(row));
    }
    o << t.render() << "\n";
  }

  static void host_lines(std::ostringstream& o, const HostTable& t) {
    if (t.methods.empty()) return;
    o << "Host <-> GPU at the largest size (copy engine, pinned host memory on the GPU's NUMA "
         "node; median):\n";
    std::vector<Align> align{Align::kLeft, Align::kLeft, Align::kLeft};
    align.insert(align.end(), t.methods.size(), Align::kRight);
    TextTable table(align);
    std::vector<std::string> names{"rank", "gpu", "link"};
    std::vector<std::string> units{"", "", ""};
    for (std::size_t i = 0; i < t.methods.size(); ++i) {
      names.push_back(t.methods[i]->name);
      units.push_back(t.units[i]);
    }
    table.add_row(std::move(names));
    table.add_row(std::move(units));
    for (const auto& r : t.rows) {
      std::vector<std::string> row{r.rank, r.gpu, r.link};
      row.insert(row.end(), r.cells.begin(), r.cells.end());
      table.add_row(std::move(row));
    }
    o << table.render();
    for (const auto& s : t.totals) o << "  " << s << "\n";
    o << "\n";
  }

  static void all_ranks_lines(std::ostringstream& o, const RunDocument& d) {
    for (const auto* m : methods_in(d, MethodScope::kAllRanks)) {
      for (const auto& v : variants_of(d, m->name)) {
        o << m->name << variant_suffix(v) << " over all ranks (" << unit(m) << ", median):";
        for (const auto& r : d.results) {
          if (r.method != m->name || r.src >= 0 || variant_label(r) != v) continue;
          o << "  " << format_size_compact(r.bytes) << " "
            << (r.status == ResultStatus::kOk ? format_fixed(headline_value(m, r), 1)
                                              : to_string(r.status));
        }
        o << "\n";
      }
    }
  }

  static void cards(std::ostringstream& o, const std::vector<PairVerdict>& vs) {
    const auto cs = cards_in(vs);
    if (cs.empty()) return;
    o << "\nGPUs (the cards behind the verdicts):\n";
    TextTable t;
    for (const auto& c : cs) {
      t.add_row({"rank " + std::to_string(c.rank),
                 "host " + c.host + ", GPU " + std::to_string(c.gpu_index) + ", PCI " +
                     c.pci_bus_id + ", UUID " + c.uuid + ", serial " + serial_text(c)});
    }
    o << t.render();
  }

  static void not_measured(std::ostringstream& o, const RunDocument& d) {
    const auto um = unmeasured(d);
    if (um.empty()) return;
    o << "\nNot measured:\n";
    for (const auto& u : um) {
      o << "  " << u.method << " " << join(u.pairs) << " (" << u.cases << " case"
        << (u.cases == 1 ? "" : "s") << "): " << u.status
        << (u.reason.empty() ? "" : ": " + u.reason) << "\n";
    }
  }

  static void known_good(std::ostringstream& o, const std::vector<PairVerdict>& vs) {
    const auto rows = known_good_rows(vs);
    if (rows.empty()) return;
    o << "\nAgainst known-good figures (measured / known-good; under 1 is worse, latency too):\n";
    TextTable t({Align::kLeft, Align::kLeft, Align::kRight, Align::kLeft});
    for (const auto& r : rows) {
      if (r.expected.empty()) {
        t.add_row({r.pair, r.method, "", r.basis});
      } else {
        t.add_row({r.pair, r.method, r.measured, "= " + r.ratio + " of " + r.basis});
      }
    }
    o << t.render();
  }

  static void verdicts(std::ostringstream& o, const ReportInput& in) {
    o << "\nVerdicts (thresholds: " << in.expectations_source << "):\n";
    // The pair, link and verdict line up over all verdicts; each verdict's details follow it.
    TextTable heads;
    for (const auto& v : in.verdicts)
      heads.add_row({pair_name(v.src, v.dst), v.link, verdict_word(v.verdict)});
    const auto widths = heads.widths();
    for (const auto& v : in.verdicts) {
      TextTable line;
      line.add_row({pair_name(v.src, v.dst), v.link, verdict_word(v.verdict),
                    v.observed.empty() ? "" : "[" + v.observed + "]"});
      o << line.render("  ", "  ", widths);
      for (const auto& f : v.flags) {
        o << "      " << f.code << ": " << f.message << "\n";
        o << "        evidence: " << f.evidence.dump() << "\n";
      }
      for (const auto& n : method_notes(v)) {
        o << "      " << n.state << ": " << n.method << (n.reason.empty() ? "" : ": " + n.reason)
          << "\n";
      }
    }
    const auto c = count_verdicts(in.verdicts);
    o << "\nVerdict: " << verdict_headline(c) << "\n";
    o << "Summary: " << c.verdicts << " verdicts, " << c.pass << " pass, " << c.flagged
      << " flagged, " << c.contended << " contended, " << c.throttled << " throttled, " << c.noisy
      << " noisy, " << c.incomplete << " incomplete, " << c.not_judged << " not judged, "
      << c.not_applicable << " not applicable, " << c.not_a_link << " not a link; " << c.flags
      << " flags, " << c.incomplete_methods << " requested measurements missing\n";
  }
};
// ---------------------------------------------------------------------------------------------
std::string md_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|' || c == '`' || c == '*' || c == '_' || c == '<' || c == '>' || c == '[' ||
        c == ']') {
      out += '\\';
    }
    if (c == '\n') {
      out += ' ';
      continue;
    }
    out += c;
  }
  return out;
}

class MarkdownReporter : public DocumentReporter {
 public:
  std::string render(const std::vector<ReportInput>& runs,
                     const std::vector<PlotFile>& plots) const override {
    std::ostringstream o;
    for (const auto& in : runs) {
      const auto& d = *in.doc;
      const ResultIndex idx(d);
      header(o, in);
      o << "**Verdict: " << md_escape(verdict_headline(count_verdicts(in.verdicts))) << "**\n\n";
      matrix(o, in, idx);
      host_section(o, host_table(d, idx, links_of(in.verdicts)));
      all_ranks_tables(o, d);
      cards(o, in.verdicts);
      if (const auto um = unmeasured(d); !um.empty()) {
        o << "## Not measured\n\n| method | pairs | cases | status | reason "
             "|\n|---|---|---:|---|---|\n";
        for (const auto& u : um) {
          o << "| " << md_escape(u.method) << " | " << md_escape(join(u.pairs)) << " | " << u.cases
            << " | " << md_escape(u.status) << " | " << md_escape(u.reason) << " |\n";
        }
        o << "\n";
      }
      known_good(o, in.verdicts);
      verdicts(o, in.verdicts);
      o << "\n";
    }
    if (!plots.empty()) {
      o << "## Plots\n\n";
      for (const auto& p : plots) o << "![" << md_escape(p.caption) << "](" << p.link << ")\n\n";
    }
    return sanitize_lines_for_terminal(o.str());  // often printed to a terminal too
  }

 private:
  static void header(std::ostringstream& o, const ReportInput& in) {
    const auto& d = *in.doc;
    std::string hosts;
    for (const auto& x : d.system.hosts) hosts += (hosts.empty() ? "" : ", ") + x;
    o << "# peerbench report\n\n";
    o << "| | |\n|---|---|\n";
    o << "| results | `" << md_escape(in.path) << "` |\n";
    o << "| system | " << md_escape(system_line(d)) << " |\n";
    o << "| hosts | " << md_escape(hosts) << " |\n";
    o << "| status | " << md_escape(d.status) << " |\n";
    o << "| started | " << md_escape(d.started_at) << " |\n";
    o << "| peerbench | " << md_escape(d.tool.version + " (" + d.tool.git_revision + ")") << " |\n";
    o << "| NCCL capture | "
      << md_escape(d.nccl.mode + (d.nccl.note.empty() ? "" : ": " + d.nccl.note)) << " |\n";
    o << "| thresholds | " << md_escape(in.expectations_source) << " |\n\n";
  }

  static void matrix(std::ostringstream& o, const ReportInput& in, const ResultIndex& idx) {
    const auto& d = *in.doc;
    const auto pm = methods_in(d, MethodScope::kPair);
    if (pm.empty()) return;
    const auto links = links_of(in.verdicts);
    o << "## Pairs at the largest size\n\nMedian of the samples; GB/s = 1e9 bytes/s; latency "
         "in us; `!` marks data errors.\n\n";
    o << "| pair | link |";
    for (const auto* m : pm) o << " " << md_escape(m->name) << " (" << unit_at(d, m) << ") |";
    o << " NCCL transport |\n|---|---|";
    for (std::size_t i = 0; i < pm.size(); ++i) o << "---:|";
    o << "---|\n";
    for (const auto& [s, t] : idx.pairs()) {
      o << "| " << pair_name(s, t) << " | " << md_escape(link_label(links, s, t)) << " |";
      for (const auto* m : pm) o << " " << md_escape(cell(idx, m, s, t)) << " |";
      o << " " << md_escape(transport_of(idx, s, t)) << " |\n";
    }
    o << "\n";
  }

  static void host_section(std::ostringstream& o, const HostTable& t) {
    if (t.methods.empty()) return;
    o << "## Host <-> GPU at the largest size\n\nCopy engine, pinned host memory on the GPU's "
         "NUMA node; median; `-all` methods ran on every GPU at once.\n\n| rank | GPU | link |";
    for (std::size_t i = 0; i < t.methods.size(); ++i)
      o << " " << md_escape(t.methods[i]->name) << " (" << md_escape(t.units[i]) << ") |";
    o << "\n|---|---|---|";
    for (std::size_t i = 0; i < t.methods.size(); ++i) o << "---:|";
    o << "\n";
    for (const auto& r : t.rows) {
      o << "| " << md_escape(r.rank) << " | " << md_escape(r.gpu) << " | " << md_escape(r.link)
        << " |";
      for (const auto& c : r.cells) o << " " << md_escape(c) << " |";
      o << "\n";
    }
    o << "\n";
    for (const auto& s : t.totals) o << "- " << md_escape(s) << "\n";
    if (!t.totals.empty()) o << "\n";
  }

  static void all_ranks_tables(std::ostringstream& o, const RunDocument& d) {
    for (const auto* m : methods_in(d, MethodScope::kAllRanks)) {
      for (const auto& v : variants_of(d, m->name)) {
        o << "## " << md_escape(m->name + variant_suffix(v))
          << " over all ranks\n\n| size | busbw GB/s (median) | min | max | time us | status "
             "|\n|---:|---:|---:|---:|---:|---|\n";
        for (const auto& r : d.results) {
          if (r.method != m->name || r.src >= 0 || variant_label(r) != v) continue;
          if (r.status == ResultStatus::kOk && r.busbw_gbps && r.time_us) {
            o << "| " << format_size_compact(r.bytes) << " | "
              << format_fixed(r.busbw_gbps->median, 1) << " | "
              << format_fixed(r.busbw_gbps->min, 1) << " | " << format_fixed(r.busbw_gbps->max, 1)
              << " | " << format_fixed(r.time_us->median, 1) << " | ok |\n";
          } else {
            o << "| " << format_size_compact(r.bytes) << " | | | | | "
              << md_escape(to_string(r.status) + " " + r.reason) << " |\n";
          }
        }
        o << "\n";
      }
    }
  }

  static void cards(std::ostringstream& o, const std::vector<PairVerdict>& vs) {
    const auto cs = cards_in(vs);
    if (cs.empty()) return;
    o << "## GPUs\n\n| rank | host | GPU | PCI bus id | UUID | serial |\n"
         "|---:|---|---:|---|---|---|\n";
    for (const auto& c : cs) {
      o << "| " << c.rank << " | " << md_escape(c.host) << " | " << c.gpu_index << " | "
        << md_escape(c.pci_bus_id) << " | " << md_escape(c.uuid) << " | "
        << md_escape(serial_text(c)) << " |\n";
    }
    o << "\n";
  }

  static void known_good(std::ostringstream& o, const std::vector<PairVerdict>& vs) {
    const auto rows = known_good_rows(vs);
    if (rows.empty()) return;
    o << "## Against known-good figures\n\nMeasured / known-good (under 1 is worse, latency "
         "too).\n\n| pair | method | measured | known-good | ratio | source |\n"
         "|---|---|---:|---:|---:|---|\n";
    for (const auto& r : rows) {
      o << "| " << md_escape(r.pair) << " | " << md_escape(r.method) << " | "
        << md_escape(r.measured) << " | " << md_escape(r.expected) << " | " << md_escape(r.ratio)
        << " | " << md_escape(r.basis) << " |\n";
    }
    o << "\n";
  }

  static void verdicts(std::ostringstream& o, const std::vector<PairVerdict>& vs) {
    o << "## Verdicts\n\n| pair | link | GPUs | verdict | observed |\n|---|---|---|---|---|\n";
    for (const auto& v : vs) {
      std::string gpus;
      if (v.src >= 0) {
        for (const auto& c : v.cards) gpus += (gpus.empty() ? "" : " -> ") + card_label(c);
      }
      o << "| " << pair_name(v.src, v.dst) << " | " << md_escape(v.link_description) << " | "
        << md_escape(gpus) << " | "
        << (v.verdict == verdict_state::kPass ? v.verdict : "**" + md_escape(v.verdict) + "**")
        << " | " << md_escape(v.observed) << " |\n";
    }
    bool any = false;
    for (const auto& v : vs) {
      for (const auto& f : v.flags) {
        if (!any) o << "\n### Flags\n\n";
        any = true;
        o << "- **" << md_escape(f.code) << "** " << pair_name(v.src, v.dst) << ": "
          << md_escape(f.message) << "  \n  evidence: `" << md_escape(f.evidence.dump()) << "`\n";
      }
    }
    any = false;
    for (const auto& v : vs) {
      for (const auto& n : method_notes(v)) {
        if (!any) o << "\n### Not passed, not flagged\n\n";
        any = true;
        o << "- **" << md_escape(n.state) << "** " << n.pair << " " << md_escape(n.method)
          << (n.reason.empty() ? "" : ": " + md_escape(n.reason)) << "\n";
      }
    }
  }
};
// ---------------------------------------------------------------------------------------------
class CsvReporter : public DocumentReporter {
 public:
  std::string render(const std::vector<ReportInput>& runs,
                     const std::vector<PlotFile>&) const override {
    std::ostringstream o;
    o << "run,method,src,dst,src_host,dst_host,bytes,status,time_us_min,time_us_median,time_us_max,"
         "algbw_gbps_min,algbw_gbps_median,algbw_gbps_max,busbw_gbps_median,wrong,round,concurrent_"
         "pairs,reason,src_gpu,src_pci_bus_id,src_uuid,src_serial,dst_gpu,dst_pci_bus_id,dst_uuid,"
         "dst_serial,verdict,known_good,known_good_ratio,known_good_source\n";
    for (const auto& in : runs) {
      const auto& d = *in.doc;
      const auto states = method_states(in.verdicts);
      const auto cards = all_cards(d, in.verdicts);
      for (const auto& r : d.results) {
        o << csv_field(in.path) << "," << csv_field(r.method) << "," << rank_text(r.src) << ","
          << rank_text(r.dst) << "," << csv_field(card(cards, r.src).host) << ","
          << csv_field(card(cards, r.dst).host) << "," << r.bytes << ","
          << csv_field(to_string(r.status)) << "," << num(r.time_us, 0) << "," << num(r.time_us, 1)
          << "," << num(r.time_us, 2) << "," << num(r.algbw_gbps, 0) << "," << num(r.algbw_gbps, 1)
          << "," << num(r.algbw_gbps, 2) << "," << num(r.busbw_gbps, 1) << "," << r.wrong << ","
          << r.round << "," << r.concurrent_pairs << "," << csv_field(r.reason) << ","
          << card_fields(card(cards, r.src)) << "," << card_fields(card(cards, r.dst)) << ","
          << csv_field(state_of(states, r)) << "," << known_good_fields(states, r) << "\n";
      }
    }
    return o.str();
  }

 private:
  using States = std::map<std::tuple<std::string, int, int>, const MethodVerdict*>;
  static States method_states(const std::vector<PairVerdict>& vs) {
    States out;
    for (const auto& v : vs) {
      for (const auto& m : v.methods) out[{m.method, v.src, v.dst}] = &m;
    }
    return out;
  }
  static std::string state_of(const States& s, const Result& r) {
    const auto it = s.find({r.method, r.src, r.dst});
    return it == s.end() ? "" : it->second->state;
  }
  // The known-good figure, its ratio and source, on the row of the size the verdict judged.
  static std::string known_good_fields(const States& s, const Result& r) {
    const auto it = s.find({r.method, r.src, r.dst});
    if (it == s.end() || !it->second->expected || it->second->bytes != r.bytes) return ",,";
    const MethodVerdict& m = *it->second;
    return format_fixed(*m.expected, 3) + "," +
           (m.expected_ratio ? format_fixed(*m.expected_ratio, 4) : "") + "," +
           csv_field(m.expected_basis);
  }
  static std::string rank_text(int r) { return r >= 0 ? std::to_string(r) : ""; }
  static std::string num(const std::optional<Stats>& s, int which) {
    if (!s) return "";
    return format_fixed(which == 0 ? s->min : which == 1 ? s->median : s->max, 3);
  }
  // Cards of every rank, looked up per row (copying them per row made CSV slow at 100k rows).
  static std::map<int, CardId> all_cards(const RunDocument& d, const std::vector<PairVerdict>& vs) {
    std::map<int, CardId> cards;
    for (const auto& c : cards_in(vs)) cards[c.rank] = c;
    for (const auto& r : d.system.ranks) {
      if (!cards.count(r.rank)) cards[r.rank] = card_of(d, r.rank);
    }
    return cards;
  }
  static const CardId& card(const std::map<int, CardId>& cards, int rank) {
    static const CardId kNone;
    const auto it = cards.find(rank);
    return it != cards.end() ? it->second : kNone;
  }
  static std::string card_fields(const CardId& c) {
    return (c.gpu_index >= 0 ? std::to_string(c.gpu_index) : "") + "," + csv_field(c.pci_bus_id) +
           "," + csv_field(c.uuid) + "," + csv_field(c.serial);
  }
};

}  // namespace

std::string html_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string csv_field(const std::string& s_in) {
  std::string s = s_in;
  // A cell starting with = + - @, a tab or a carriage return is a formula to spreadsheets (the
  // last two: after the spreadsheet strips them); make it text.
  if (!s.empty() && std::string_view("=+-@\t\r").find(s[0]) != std::string_view::npos) s = "'" + s;
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

int verdict_link_width(const std::vector<PairVerdict>& vs) {
  std::size_t w = 7;
  for (const auto& v : vs) w = std::max(w, v.link.size() + 2);
  return static_cast<int>(w);
}

std::string pair_name(int src, int dst) {
  if (src < 0 && dst < 0) return "all";
  if (src == dst) return "rank " + std::to_string(src);  // host<->GPU methods: its GPU
  return std::to_string(src) + "->" + std::to_string(dst);
}

std::unique_ptr<DocumentReporter> make_html_reporter();  // report_html.cpp

std::unique_ptr<DocumentReporter> make_reporter(ReportFormat f) {
  switch (f) {
    case ReportFormat::kText:
      return std::make_unique<TextReporter>();
    case ReportFormat::kMarkdown:
      return std::make_unique<MarkdownReporter>();
    case ReportFormat::kHtml:
      return make_html_reporter();
    case ReportFormat::kCsv:
      return std::make_unique<CsvReporter>();
  }
  return std::make_unique<TextReporter>();
}

namespace {

// The live table's columns: nccl-tests' (size, count, type, redop, root, time, algbw, busbw,
// #wrong) with peerbench's method, pair, round and spread. Fixed widths, since lines appear as
// cases complete; a longer value pushes its line right, never into the next column.
const std::vector<std::size_t> kLiveWidths = {20, 7, 12, 12, 8, 6, 4, 5, 10, 9, 9, 8, 6, 0};
const std::vector<Align> kLiveAlign = {Align::kLeft,  Align::kLeft,  Align::kRight, Align::kRight,
                                       Align::kRight, Align::kRight, Align::kRight, Align::kRight,
                                       Align::kRight, Align::kRight, Align::kRight, Align::kRight,
                                       Align::kRight, Align::kLeft};

// count, type, redop, root as nccl-tests prints them (redop "none", root -1 where they do not
// apply to a collective); "-" for methods that have no element type.
std::vector<std::string> nccl_columns(const Result& r) {
  if (r.datatype.empty()) return {"-", "-", "-", "-"};
  std::string count = "-";
  try {
    count = std::to_string(r.bytes / type_size(data_type_from_name(r.datatype)));
  } catch (const std::invalid_argument&) {
    // A type this build does not know (a newer file): its count is not computed.
  }
  return {count, r.datatype, r.op.empty() ? "none" : r.op, std::to_string(r.root)};
}

std::string round_text(const Result& r) {
  return std::to_string(r.round) +
         (r.concurrent_pairs > 1 ? "x" + std::to_string(r.concurrent_pairs) : "");
}

// What follows "ok" on a result's line: data errors, interference, per-iteration detail.
std::string live_notes(const Result& r, int verbosity) {
  std::ostringstream out;
  if (r.wrong > 0) out << " DATA ERRORS";
  if (r.gate_timeouts > 0) out << " (start gate timed out " << r.gate_timeouts << "x)";
  if (contended(r) || throttled(r)) {
    out << (contended(r) ? " CONTENDED:" : " THROTTLED:");
    for (const auto& g : *r.interference) {
      for (const auto& p : g.processes)
        out << " pid " << p.pid << (p.name.empty() ? "" : " " + sanitize_for_terminal(p.name));
      if (g.busy_while_idle) out << " GPU busy " << g.util_gpu_pct.value_or(0) << " %";
      for (const auto& t : g.throttle_reasons) out << " " << t;
      out << " on rank " << g.rank;
    }
  }
  if (r.enqueue && r.enqueue->launch_bound) out << " launch-bound (not judged)";
  if (verbosity >= 2 && r.per_iteration) {
    out << " per-iteration(us): p50 " << format_fixed(r.per_iteration->p50_us, 2) << " p99 "
        << format_fixed(r.per_iteration->p99_us, 2) << " cv "
        << format_fixed(r.per_iteration->cv, 3);
  }
  if (verbosity >= 2 && !r.sample_time_us.empty()) {
    out << " samples(us):";
    for (double t : r.sample_time_us) out << " " << format_fixed(t, 2);
  }
  if (!r.directions.empty() && verbosity >= 1) {
    out << " [";
    for (std::size_t i = 0; i < r.directions.size(); ++i) {
      out << (i ? ", " : "") << r.directions[i].src << "->" << r.directions[i].dst << " "
          << format_fixed(r.directions[i].algbw_gbps.median, 1);
    }
    out << "]";
  }
  return out.str();
}

}  // namespace

std::string LiveReporter::rank_time_words(int average) {
  switch (average) {
    case 0: return "rank 0's, median of the samples (nccl-tests' -a 0)";
    case 1: return "the average of the ranks', median of the samples (nccl-tests' -a 1)";
    case 2: return "the fastest rank's, median of the samples (nccl-tests' -a 2)";
    default: return kSlowestRankTime;
  }
}

void LiveReporter::header(const std::string& rank_time) {
  if (verbosity_ <= 0) return;
  out_ << "#\n# time: " << rank_time
       << "; nccl-tests defaults to the average of the ranks' times (its -a 1)\n";
  out_ << "# "
       << format_columns({"method", "pair", "size", "count", "type", "redop", "root", "round",
                          "time(us)", "algbw", "busbw", "min-max%", "#wrong", "status"},
                         kLiveWidths, kLiveAlign)
       << "\n";
  out_ << "# "
       << format_columns({"", "", "(B)", "(elements)", "", "", "", "", "median", "(GB/s)", "(GB/s)",
                          "", "", ""},
                         kLiveWidths, kLiveAlign)
       << "\n";
  out_.flush();
}

void LiveReporter::result(const RunDocument& d, const MethodInfo* m, const Result& r) {
  (void)d;
  if (verbosity_ <= 0) return;
  std::vector<std::string> cells{r.method, pair_name(r.src, r.dst), std::to_string(r.bytes)};
  for (auto& c : nccl_columns(r)) cells.push_back(std::move(c));
  cells.push_back(round_text(r));
  if (r.status == ResultStatus::kOk && r.time_us && r.algbw_gbps) {
    const bool latency = m && m->metric == Metric::kLatency;
    const auto& spread = latency ? *r.time_us : *r.algbw_gbps;
    cells.push_back(format_fixed(r.time_us->median, 2));
    cells.push_back(latency ? "-" : format_fixed(r.algbw_gbps->median, 2));
    cells.push_back(
        latency ? "-"
                : format_fixed(r.busbw_gbps ? r.busbw_gbps->median : r.algbw_gbps->median, 2));
    cells.push_back(format_fixed(100.0 * relative_spread(spread), 1));
    cells.push_back(r.checked ? std::to_string(r.wrong) : "N/A");
    cells.push_back("ok" + live_notes(r, verbosity_));
  } else {
    for (int i = 0; i < 5; ++i) cells.push_back("-");
    cells.push_back(to_string(r.status) + (r.reason.empty() ? "" : ": " + r.reason));
  }
  out_ << "  " << format_columns(cells, kLiveWidths, kLiveAlign) << "\n";
  out_.flush();
  ++lines_;
}

void LiveReporter::footer(const RunDocument& d) {
  if (verbosity_ <= 0) return;
  // nccl-tests' footer: the values out of bounds (here: wrong elements of every checked case),
  // then the average bus bandwidth over the sizes, here per method and variant, since one run
  // holds many.
  std::uint64_t wrong = 0;
  std::vector<std::pair<std::string, std::pair<double, int>>> sums;  // in run order
  for (const auto& r : d.results) {
    wrong += r.wrong;
    const auto* m = find_method(d.methods, r.method);
    if (r.status != ResultStatus::kOk || !r.algbw_gbps || (m && m->metric == Metric::kLatency))
      continue;
    const std::string label = r.method + variant_suffix(variant_label(r));
    auto it =
        std::find_if(sums.begin(), sums.end(), [&](const auto& s) { return s.first == label; });
    if (it == sums.end()) it = sums.insert(sums.end(), {label, {0.0, 0}});
    it->second.first += r.busbw_gbps ? r.busbw_gbps->median : r.algbw_gbps->median;
    ++it->second.second;
  }
  out_ << "# Out of bounds values : " << wrong << (wrong ? " FAILED" : " OK") << "\n";
  for (const auto& [label, sum] : sums) {
    out_ << "# Avg bus bandwidth    : " << format_fixed(sum.first / sum.second, 4) << "  (" << label
         << ", GB/s, " << sum.second << " size" << (sum.second == 1 ? "" : "s") << ")\n";
  }
  out_ << "#\n";
  out_.flush();
}

void LiveReporter::progress(int done, int total, double elapsed_s, double remaining_s,
                            const std::string& what, bool terminal) {
  if (verbosity_ <= 0) return;
  std::ostringstream line;
  line << "# [" << done << "/" << total << "] " << format_fixed(elapsed_s, 0) << " s elapsed, "
       << (remaining_s < 0 ? "until stopped" : "~" + format_fixed(remaining_s, 0) + " s left")
       << ": " << what;
  if (terminal) {
    // Redrawn in place under the result lines.
    out_ << "\r" << line.str() << "\033[K\r";
  } else if (verbosity_ >= 1) {
    out_ << line.str() << "\n";  // logs get one line per update
  }
  out_.flush();
}

}  // namespace peerbench
