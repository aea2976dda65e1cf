// The Markdown report: for tickets and acceptance reports, with its plots linked.
#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

#include "core/datatypes.h"
#include "core/report.h"
#include "core/report_parts.h"
#include "core/result_index.h"
#include "core/run_progress.h"
#include "core/sizes.h"
#include "core/text.h"
#include "core/text_table.h"
#include "core/verdict.h"

namespace peerbench {
namespace {
using namespace report_parts;

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

}  // namespace

std::unique_ptr<DocumentReporter> make_markdown_reporter() {
  return std::make_unique<MarkdownReporter>();
}

}  // namespace peerbench
