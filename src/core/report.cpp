#include "core/report.h"
#include "core/text.h"

#include <algorithm>
#include <cctype>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include "core/result_index.h"
#include "core/run_progress.h"
#include "core/sizes.h"
#include "core/verdict.h"

namespace peerbench {
namespace {

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
struct HostTable {
  std::vector<const MethodInfo*> methods;
  std::vector<std::string> units;
  struct Row {
    std::string rank, gpu, link;  // "rank 2", "node1 GPU 0", "PCIe Gen5 x16"
    std::vector<std::string> cells;
  };
  std::vector<Row> rows;
  std::vector<std::string> totals;  // "h2d-all on vm: 110.6 GB/s from 2 GPUs at once @ 1G ..."
};

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
struct Unmeasured {
  std::string method, status, reason;
  std::vector<std::string> pairs;
  int cases = 0;
};
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
struct MethodNote {
  std::string pair, method, state, reason;
};
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
struct KnownGoodRow {
  std::string pair, link, method, measured, expected, ratio, basis;
};

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
    o << "  " << std::left << std::setw(8) << "pair" << std::setw(7) << "link";
    std::vector<std::string> units;  // once per method: each scans the results
    std::vector<int> widths;
    for (const auto* m : pm) {
      units.push_back(unit_at(d, m));
      widths.push_back(static_cast<int>(
          std::max({std::size_t{10}, m->name.size() + 2, units.back().size() + 2})));
    }
    for (std::size_t i = 0; i < pm.size(); ++i)
      o << std::right << std::setw(widths[i]) << pm[i]->name;
    o << "  NCCL transport\n";
    o << "  " << std::left << std::setw(15) << "";
    for (std::size_t i = 0; i < pm.size(); ++i) o << std::right << std::setw(widths[i]) << units[i];
    o << "\n";
    for (const auto& [s, t] : idx.pairs()) {
      o << "  " << std::left << std::setw(8) << pair_name(s, t) << std::setw(7)
        << link_label(links, s, t);
      for (std::size_t i = 0; i < pm.size(); ++i) {
        o << std::right << std::setw(widths[i]) << cell(idx, pm[i], s, t);
      }
      o << "  " << transport_of(idx, s, t) << "\n";
    }
    o << "\n";
  }

  static void host_lines(std::ostringstream& o, const HostTable& t) {
    if (t.methods.empty()) return;
    o << "Host <-> GPU at the largest size (copy engine, pinned host memory on the GPU's NUMA "
         "node; median):\n";
    std::size_t gpu_w = 5;
    for (const auto& r : t.rows) gpu_w = std::max(gpu_w, r.gpu.size() + 2);
    const int lead = 9 + static_cast<int>(gpu_w) + 15;
    o << "  " << std::left << std::setw(9) << "rank" << std::setw(static_cast<int>(gpu_w)) << "gpu"
      << std::setw(15) << "link";
    std::vector<int> widths;
    for (std::size_t i = 0; i < t.methods.size(); ++i) {
      widths.push_back(static_cast<int>(
          std::max({std::size_t{10}, t.methods[i]->name.size() + 2, t.units[i].size() + 2})));
      o << std::right << std::setw(widths[i]) << t.methods[i]->name;
    }
    o << "\n  " << std::left << std::setw(lead) << "";
    for (std::size_t i = 0; i < t.methods.size(); ++i)
      o << std::right << std::setw(widths[i]) << t.units[i];
    o << "\n";
    for (const auto& r : t.rows) {
      o << "  " << std::left << std::setw(9) << r.rank << std::setw(static_cast<int>(gpu_w))
        << r.gpu << std::setw(15) << r.link;
      for (std::size_t i = 0; i < r.cells.size(); ++i)
        o << std::right << std::setw(widths[i]) << r.cells[i];
      o << "\n";
    }
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
    for (const auto& c : cs) {
      o << "  rank " << std::left << std::setw(4) << c.rank << " host " << c.host << ", GPU "
        << c.gpu_index << ", PCI " << c.pci_bus_id << ", UUID " << c.uuid << ", serial "
        << serial_text(c) << "\n";
    }
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
    for (const auto& r : rows) {
      o << "  " << std::left << std::setw(8) << r.pair << std::setw(20) << r.method;
      if (r.expected.empty()) {
        o << r.basis << "\n";
        continue;
      }
      o << r.measured << " = " << r.ratio << " of " << r.basis << "\n";
    }
  }

  static void verdicts(std::ostringstream& o, const ReportInput& in) {
    o << "\nVerdicts (thresholds: " << in.expectations_source << "):\n";
    const int link_w = verdict_link_width(in.verdicts);
    for (const auto& v : in.verdicts) {
      o << "  " << std::left << std::setw(8) << pair_name(v.src, v.dst) << std::setw(link_w)
        << v.link
        << (v.verdict == verdict_state::kPass || v.verdict == verdict_state::kNotJudged ||
                    v.verdict == verdict_state::kNotApplicable ||
                    v.verdict == verdict_state::kNotALink
                ? v.verdict
                : upper(v.verdict))
        << (v.observed.empty() ? "" : "  [" + v.observed + "]") << "\n";
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
      for (const auto& p : plots) o << "![" << md_escape(p.caption) << "](" << p.path << ")\n\n";
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
class HtmlReporter : public DocumentReporter {
 public:
  std::string render(const std::vector<ReportInput>& runs,
                     const std::vector<PlotFile>& plots) const override {
    std::ostringstream o;
    o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src "
         "data:; style-src 'unsafe-inline'\">"
         "<title>peerbench report</title><style>"
         "body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:"
         "1em 0}"
         "td,th{border:1px solid #bbb;padding:4px "
         "8px}th{background:#eee}td.n{text-align:right;font-family:monospace}"
         ".flagged{color:#b00;font-weight:bold}.incomplete{color:#b60;font-weight:bold}"
         ".pass{color:#070}.neutral{color:#555}code{font-size:90%}"
         "</style></head><body>\n";
    for (const auto& in : runs) {
      const auto& d = *in.doc;
      const ResultIndex idx(d);
      header(o, in);
      matrix(o, in, idx);
      host_section(o, host_table(d, idx, links_of(in.verdicts)));
      all_ranks_tables(o, d);
      cards(o, in.verdicts);
      if (const auto um = unmeasured(d); !um.empty()) {
        o << "<h2>Not "
             "measured</h2><table><tr><th>method</th><th>pairs</th><th>cases</th><th>status</"
             "th><th>reason</th></tr>\n";
        for (const auto& u : um) {
          o << "<tr><td>" << html_escape(u.method) << "</td><td>" << html_escape(join(u.pairs))
            << "</td><td class=\"n\">" << u.cases << "</td><td class=\"incomplete\">"
            << html_escape(u.status) << "</td><td>" << html_escape(u.reason) << "</td></tr>\n";
        }
        o << "</table>\n";
      }
      known_good(o, in.verdicts);
      verdicts(o, in.verdicts);
    }
    if (!plots.empty()) {
      o << "<h2>Plots</h2>\n";
      for (const auto& p : plots) {
        // Only images we embed ourselves (data: URIs) — nothing taken from input is linked.
        if (p.data_uri.empty()) continue;
        o << "<figure><img alt=\"" << html_escape(p.caption) << "\" src=\"" << p.data_uri
          << "\" style=\"max-width:100%\"><figcaption>" << html_escape(p.caption)
          << "</figcaption></figure>\n";
      }
    }
    o << "</body></html>\n";
    return o.str();
  }

 private:
  static void header(std::ostringstream& o, const ReportInput& in) {
    const auto& d = *in.doc;
    const auto c = count_verdicts(in.verdicts);
    o << "<h1>peerbench report</h1>\n<table>";
    auto row = [&](const std::string& k, const std::string& v) {
      o << "<tr><th>" << html_escape(k) << "</th><td>" << html_escape(v) << "</td></tr>";
    };
    row("results", in.path);
    row("system", system_line(d));
    std::string hosts;
    for (const auto& h : d.system.hosts) hosts += (hosts.empty() ? "" : ", ") + h;
    row("hosts", hosts);
    row("status", d.status);
    row("started", d.started_at);
    row("peerbench", d.tool.version + " (" + d.tool.git_revision + ")");
    row("NCCL capture", d.nccl.mode + (d.nccl.note.empty() ? "" : ": " + d.nccl.note));
    row("thresholds", in.expectations_source);
    const std::string cls = c.flagged                            ? "flagged"
                            : c.incomplete                       ? "incomplete"
                            : c.pass == c.verdicts && c.verdicts ? "pass"
                                                                 : "neutral";
    o << "</table>\n<p class=\"" << cls << "\">Verdict: " << html_escape(verdict_headline(c))
      << "</p>\n";
  }

  static void matrix(std::ostringstream& o, const ReportInput& in, const ResultIndex& idx) {
    const auto& d = *in.doc;
    const auto pm = methods_in(d, MethodScope::kPair);
    if (pm.empty()) return;
    const auto links = links_of(in.verdicts);
    o << "<h2>Pairs at the largest size</h2><table><tr><th>pair</th><th>link</th>";
    for (const auto* m : pm) {
      o << "<th>" << html_escape(m->name) << "<br>" << html_escape(unit_at(d, m)) << "</th>";
    }
    o << "<th>NCCL transport</th></tr>\n";
    for (const auto& [s, t] : idx.pairs()) {
      o << "<tr><td>" << html_escape(pair_name(s, t)) << "</td><td>"
        << html_escape(link_label(links, s, t)) << "</td>";
      for (const auto* m : pm)
        o << "<td class=\"n\">" << html_escape(cell(idx, m, s, t)) << "</td>";
      o << "<td>" << html_escape(transport_of(idx, s, t)) << "</td></tr>\n";
    }
    o << "</table>\n";
  }

  static void host_section(std::ostringstream& o, const HostTable& t) {
    if (t.methods.empty()) return;
    o << "<h2>Host &lt;-&gt; GPU at the largest size</h2><p>Copy engine, pinned host memory on "
         "the GPU's NUMA node; median; <code>-all</code> methods ran on every GPU at once.</p>"
         "<table><tr><th>rank</th><th>GPU</th><th>link</th>";
    for (std::size_t i = 0; i < t.methods.size(); ++i) {
      o << "<th>" << html_escape(t.methods[i]->name) << "<br>" << html_escape(t.units[i])
        << "</th>";
    }
    o << "</tr>\n";
    for (const auto& r : t.rows) {
      o << "<tr><td>" << html_escape(r.rank) << "</td><td>" << html_escape(r.gpu) << "</td><td>"
        << html_escape(r.link) << "</td>";
      for (const auto& c : r.cells) o << "<td class=\"n\">" << html_escape(c) << "</td>";
      o << "</tr>\n";
    }
    o << "</table>\n";
    for (const auto& s : t.totals) o << "<p>" << html_escape(s) << "</p>\n";
  }

  static void all_ranks_tables(std::ostringstream& o, const RunDocument& d) {
    for (const auto* m : methods_in(d, MethodScope::kAllRanks)) {
      for (const auto& v : variants_of(d, m->name)) {
        o << "<h2>" << html_escape(m->name + variant_suffix(v))
          << " over all ranks</h2><table><tr><th>size</th><th>busbw GB/s</th>"
             "<th>min</th><th>max</th><th>time us</th><th>status</th></tr>\n";
        for (const auto& r : d.results) {
          if (r.method != m->name || r.src >= 0 || variant_label(r) != v) continue;
          o << "<tr><td class=\"n\">" << html_escape(format_size_compact(r.bytes)) << "</td>";
          if (r.status == ResultStatus::kOk && r.busbw_gbps && r.time_us) {
            o << "<td class=\"n\">" << format_fixed(r.busbw_gbps->median, 1)
              << "</td><td class=\"n\">" << format_fixed(r.busbw_gbps->min, 1)
              << "</td><td class=\"n\">" << format_fixed(r.busbw_gbps->max, 1)
              << "</td><td class=\"n\">" << format_fixed(r.time_us->median, 1)
              << "</td><td>ok</td>";
          } else {
            o << "<td></td><td></td><td></td><td></td><td class=\"incomplete\">"
              << html_escape(to_string(r.status) + " " + r.reason) << "</td>";
          }
          o << "</tr>\n";
        }
        o << "</table>\n";
      }
    }
  }

  static void cards(std::ostringstream& o, const std::vector<PairVerdict>& vs) {
    const auto cs = cards_in(vs);
    if (cs.empty()) return;
    o << "<h2>GPUs</h2><table><tr><th>rank</th><th>host</th><th>GPU</th><th>PCI bus "
         "id</th><th>UUID</th><th>serial</th></tr>\n";
    for (const auto& c : cs) {
      o << "<tr><td class=\"n\">" << c.rank << "</td><td>" << html_escape(c.host)
        << "</td><td class=\"n\">" << c.gpu_index << "</td><td>" << html_escape(c.pci_bus_id)
        << "</td><td>" << html_escape(c.uuid) << "</td><td>" << html_escape(serial_text(c))
        << "</td></tr>\n";
    }
    o << "</table>\n";
  }

  static void known_good(std::ostringstream& o, const std::vector<PairVerdict>& vs) {
    const auto rows = known_good_rows(vs);
    if (rows.empty()) return;
    o << "<h2>Against known-good figures</h2><p>Measured / known-good (under 1 is worse, latency "
         "too).</p><table><tr><th>pair</th><th>method</th><th>measured</th><th>known-good</th>"
         "<th>ratio</th><th>source</th></tr>\n";
    for (const auto& r : rows) {
      o << "<tr><td>" << html_escape(r.pair) << "</td><td>" << html_escape(r.method)
        << "</td><td class=\"n\">" << html_escape(r.measured) << "</td><td class=\"n\">"
        << html_escape(r.expected) << "</td><td class=\"n\">" << html_escape(r.ratio) << "</td><td>"
        << html_escape(r.basis) << "</td></tr>\n";
    }
    o << "</table>\n";
  }

  static void verdicts(std::ostringstream& o, const std::vector<PairVerdict>& vs) {
    o << "<h2>Verdicts</h2><table><tr><th>pair</th><th>link</th><th>GPUs</th><th>verdict</th>"
         "<th>observed</th><th>flags and missing measurements</th></tr>\n";
    for (const auto& v : vs) {
      std::string gpus;
      if (v.src >= 0) {
        for (const auto& c : v.cards) gpus += (gpus.empty() ? "" : " -> ") + card_label(c);
      }
      o << "<tr><td>" << html_escape(pair_name(v.src, v.dst)) << "</td><td>"
        << html_escape(v.link_description) << "</td><td>" << html_escape(gpus)
        << "</td><td class=\"" << state_class(v.verdict) << "\">" << html_escape(v.verdict)
        << "</td><td>" << html_escape(v.observed) << "</td><td>";
      for (const auto& f : v.flags) {
        o << "<b>" << html_escape(f.code) << "</b>: " << html_escape(f.message) << "<br><code>"
          << html_escape(f.evidence.dump()) << "</code><br>";
      }
      for (const auto& n : method_notes(v)) {
        o << "<span class=\"" << state_class(n.state) << "\">" << html_escape(n.state)
          << "</span>: " << html_escape(n.method)
          << (n.reason.empty() ? "" : ": " + html_escape(n.reason)) << "<br>";
      }
      o << "</td></tr>\n";
    }
    o << "</table>\n";
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
  // A cell starting with = + - @ is a formula to spreadsheets; make it text.
  if (!s.empty() && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@')) s = "'" + s;
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

std::unique_ptr<DocumentReporter> make_reporter(ReportFormat f) {
  switch (f) {
    case ReportFormat::kText:
      return std::make_unique<TextReporter>();
    case ReportFormat::kMarkdown:
      return std::make_unique<MarkdownReporter>();
    case ReportFormat::kHtml:
      return std::make_unique<HtmlReporter>();
    case ReportFormat::kCsv:
      return std::make_unique<CsvReporter>();
  }
  return std::make_unique<TextReporter>();
}

void LiveReporter::header() {
  if (verbosity_ <= 0) return;
  out_ << "#\n# " << std::left << std::setw(20) << "method" << std::setw(8) << "pair" << std::right
       << std::setw(10) << "size" << std::setw(10) << "round" << std::setw(12) << "time(us)"
       << std::setw(12) << "algbw" << std::setw(12) << "busbw" << std::setw(12) << "min-max%"
       << std::setw(10) << "#wrong"
       << "  status\n";
  out_ << "# " << std::left << std::setw(20) << "" << std::setw(8) << "" << std::right
       << std::setw(10) << "(B)" << std::setw(10) << "" << std::setw(12) << "median"
       << std::setw(12) << "(GB/s)" << std::setw(12) << "(GB/s)" << std::setw(12) << ""
       << std::setw(10) << ""
       << "\n";
  out_.flush();
}

void LiveReporter::result(const RunDocument& d, const MethodInfo* m, const Result& r) {
  (void)d;
  if (verbosity_ <= 0) return;
  out_ << "  " << std::left << std::setw(20) << r.method << std::setw(8) << pair_name(r.src, r.dst)
       << std::right << std::setw(10) << r.bytes << std::setw(10)
       << (std::to_string(r.round) +
           (r.concurrent_pairs > 1 ? "x" + std::to_string(r.concurrent_pairs) : ""));
  if (r.status == ResultStatus::kOk && r.time_us && r.algbw_gbps) {
    const bool latency = m && m->metric == Metric::kLatency;
    out_ << std::setw(12) << format_fixed(r.time_us->median, 2) << std::setw(12)
         << (latency ? "-" : format_fixed(r.algbw_gbps->median, 2)) << std::setw(12)
         << (latency ? "-"
                     : format_fixed(r.busbw_gbps ? r.busbw_gbps->median : r.algbw_gbps->median, 2));
    const auto& s = latency ? *r.time_us : *r.algbw_gbps;
    out_ << std::setw(12) << format_fixed(100.0 * relative_spread(s), 1) << std::setw(10)
         << (r.checked ? std::to_string(r.wrong) : "N/A") << "  ok";
    if (r.wrong > 0) out_ << " DATA ERRORS";
    if (r.gate_timeouts > 0) out_ << " (start gate timed out " << r.gate_timeouts << "x)";
    if (contended(r) || throttled(r)) {
      out_ << (contended(r) ? " CONTENDED:" : " THROTTLED:");
      for (const auto& g : *r.interference) {
        for (const auto& p : g.processes)
          out_ << " pid " << p.pid << (p.name.empty() ? "" : " " + sanitize_for_terminal(p.name));
        if (g.busy_while_idle) out_ << " GPU busy " << g.util_gpu_pct.value_or(0) << " %";
        for (const auto& t : g.throttle_reasons) out_ << " " << t;
        out_ << " on rank " << g.rank;
      }
    }
    if (r.enqueue && r.enqueue->launch_bound) out_ << " launch-bound (not judged)";
    if (verbosity_ >= 2 && r.per_iteration) {
      out_ << " per-iteration(us): p50 " << format_fixed(r.per_iteration->p50_us, 2) << " p99 "
           << format_fixed(r.per_iteration->p99_us, 2) << " cv "
           << format_fixed(r.per_iteration->cv, 3);
    }
    if (verbosity_ >= 2 && !r.sample_time_us.empty()) {
      out_ << " samples(us):";
      for (double t : r.sample_time_us) out_ << " " << format_fixed(t, 2);
    }
    if (!r.directions.empty() && verbosity_ >= 1) {
      out_ << " [";
      for (std::size_t i = 0; i < r.directions.size(); ++i) {
        out_ << (i ? ", " : "") << r.directions[i].src << "->" << r.directions[i].dst << " "
             << format_fixed(r.directions[i].algbw_gbps.median, 1);
      }
      out_ << "]";
    }
  } else {
    out_ << std::setw(12) << "-" << std::setw(12) << "-" << std::setw(12) << "-" << std::setw(12)
         << "-" << std::setw(10) << "-"
         << "  " << to_string(r.status);
    if (!r.reason.empty()) out_ << ": " << r.reason;
  }
  out_ << "\n";
  out_.flush();
  ++lines_;
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
