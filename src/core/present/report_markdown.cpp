// The Markdown report: for tickets and acceptance reports, with its plots linked.
#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

#include "core/base/escaped.h"
#include "core/base/text.h"
#include "core/judge/verdict.h"
#include "core/model/datatypes.h"
#include "core/model/json_text.h"
#include "core/model/result_index.h"
#include "core/model/sizes.h"
#include "core/present/report.h"
#include "core/present/report_parts.h"
#include "core/present/run_progress.h"
#include "core/present/text_table.h"

namespace peerbench {
namespace {
using namespace report_parts;

using W = out::Writer<out::Markdown>;
using S = out::Safe<out::Markdown>;
S e(std::string_view s) {
  return out::esc<out::Markdown>(s);
}
S fixed(double v, int decimals) {
  return out::fixed<out::Markdown>(v, decimals);
}
S pair(int src, int dst) {
  return S::from_code(pair_name(src, dst));
}  // numbers and "->"

class MarkdownReporter : public DocumentReporter {
 public:
  std::string render(const std::vector<ReportInput>& runs,
                     const std::vector<PlotFile>& plots) const override {
    W o;
    if (const auto all = runs_headline(runs); !all.empty()) o << "**Over " << e(all) << "**\n\n";
    for (const auto& in : runs) {
      const auto& d = *in.doc;
      const ResultIndex idx(d);
      header(o, in);
      o << "**Verdict: " << e(run_headline(d, in.verdicts)) << "**\n\n";
      if (!in.failing_why.empty()) o << "Exit 1: " << e(in.failing_why) << "\n\n";
      if (!in.waived_why.empty()) o << "Waived: " << e(in.waived_why) << "\n\n";
      if (const auto why = flag_digest(in.verdicts); !why.empty()) {
        for (const auto& w : why) o << "- " << e(w) << "\n";
        o << "\n";
      }
      // The counts a signing admin reads, as the text report ends (an audit).
      o << "Summary: " << e(verdict_summary(count_verdicts(in.verdicts))) << "\n\n";
      matrix(o, in, idx);
      host_section(o, host_table(d, idx, links_of(in.verdicts)));
      all_ranks_tables(o, d);
      cards(o, in.verdicts);
      if (const auto um = unmeasured(d); !um.empty()) {
        o << "## Not measured\n\n| method | pairs | cases | status | reason "
             "|\n|---|---|---:|---|---|\n";
        for (const auto& u : um) {
          o << "| " << e(u.method) << " | " << e(join(u.pairs)) << " | " << u.cases << " | "
            << e(u.status) << " | " << e(u.reason) << " |\n";
        }
        o << "\n";
      }
      known_good(o, in.verdicts);
      burn_in(o, d);
      if (const auto lines = interference_lines(d); !lines.empty()) {
        o << "## Beside another job or under held clocks\n\nThose figures are not the links'.\n\n";
        for (const auto& l : lines) o << "- " << e(l) << "\n";
        o << "\n";
      }
      verdicts(o, in.verdicts);
      o << "\n## Terms\n\n";
      for (const auto& [t, m] : terms_of(d)) o << "- **" << e(t) << "**: " << e(m) << "\n";
      o << "\n";
    }
    if (!plots.empty()) {
      o << "## Plots\n\n";
      for (const auto& p : plots)
        o << "![" << e(p.caption) << "](" << out::markdown_link(p.link) << ")\n\n";
    }
    return o.str();
  }

 private:
  static void header(W& o, const ReportInput& in) {
    const auto& d = *in.doc;
    std::string hosts;
    for (const auto& x : d.system.hosts) hosts += (hosts.empty() ? "" : ", ") + x;
    o << "# peerbench report\n\n";
    o << "| | |\n|---|---|\n";
    o << "| results | " << out::markdown_code(in.path, true) << " |\n";
    o << "| system | " << e(system_line(d)) << " |\n";
    if (!d.tool.command_line.empty()) o << "| command | " << e(command_line_text(d)) << " |\n";
    o << "| environment | " << e(steering_environment_text(d)) << " |\n";
    o << "| hosts | " << e(hosts) << " |\n";
    o << "| status | " << e(d.status) << " |\n";
    for (const auto& err : d.errors) o << "| error | " << e(err) << " |\n";
    o << "| started | " << e(d.started_at) << " |\n";
    o << "| peerbench | " << e(d.tool.version + " (" + d.tool.git_revision + ")") << " |\n";
    o << "| NCCL capture | " << e(d.nccl.mode + (d.nccl.note.empty() ? "" : ": " + d.nccl.note))
      << " |\n";
    o << "| thresholds | " << e(in.expectations_source) << " |\n";
    if (!in.bars_used.empty()) o << "| bars | " << e(in.bars_used) << " |\n";
    if (!in.recorded.empty()) o << "| recomputed | " << e(in.recorded) << " |\n";
    o << "\n";
  }

  static void matrix(W& o, const ReportInput& in, const ResultIndex& idx) {
    const auto& d = *in.doc;
    const PairTable pt = pair_table(d, idx, links_of(in.verdicts));
    if (pt.columns.empty()) return;
    o << "## Pairs at the largest size\n\nMedian of the samples; GB/s = 1e9 bytes/s; latency "
         "in us; marks after a figure say it is not the link's:";
    const auto marks = figure_marks_in(d);
    for (std::size_t i = 0; i < marks.size(); ++i)
      (i ? o << ", " : o << " ") << out::markdown_code(marks[i]->mark) << " " << e(marks[i]->words);
    o << ".\n\n";
    o << "| pair | link |";
    for (const auto& c : pt.columns) o << " " << e(c.m->name) << " (" << e(c.unit) << ") |";
    o << " NCCL transport |\n|---|---|";
    for (std::size_t i = 0; i < pt.columns.size(); ++i) o << "---:|";
    o << "---|\n";
    for (const auto& r : pt.rows) {
      o << "| " << pair(r.src, r.dst) << " | " << e(r.link) << " |";
      for (const auto& c : r.cells) o << " " << e(c) << " |";
      o << " " << e(r.transport) << " |\n";
    }
    o << "\n";
  }

  static void host_section(W& o, const HostTable& t) {
    if (t.methods.empty()) return;
    o << "## Host <-> GPU at the largest size\n\nCopy engine, pinned host memory placed as "
         "listed under the table; median; `-all` methods ran on every GPU at once.\n\n| rank | "
         "GPU | link |";
    for (std::size_t i = 0; i < t.methods.size(); ++i)
      o << " " << e(t.methods[i]->name) << " (" << e(t.units[i]) << ") |";
    o << "\n|---|---|---|";
    for (std::size_t i = 0; i < t.methods.size(); ++i) o << "---:|";
    o << "\n";
    for (const auto& r : t.rows) {
      o << "| " << e(r.rank) << " | " << e(r.gpu) << " | " << e(r.link) << " |";
      for (const auto& c : r.cells) o << " " << e(c) << " |";
      o << "\n";
    }
    o << "\n";
    for (const auto& s : t.totals) o << "- " << e(s) << "\n";
    for (const auto& s : t.memory) o << "- " << e(s) << "\n";
    o << "\n";
  }

  static void all_ranks_tables(W& o, const RunDocument& d) {
    for (const auto* m : methods_in(d, MethodScope::kAllRanks)) {
      for (const auto& v : variants_of(d, m->name)) {
        o << "## " << e(m->name + variant_suffix(v))
          << " over all ranks\n\n| size | busbw GB/s (median) | min | max | time us | status "
             "|\n|---:|---:|---:|---:|---:|---|\n";
        for (const auto& r : d.results) {
          if (r.method != m->name || r.src >= 0 || variant_label(r) != v) continue;
          if (r.status == ResultStatus::kOk && r.busbw_gbps && r.time_us) {
            o << "| " << e(format_size_compact(r.bytes)) << " | " << fixed(r.busbw_gbps->median, 1)
              << " | " << fixed(r.busbw_gbps->min, 1) << " | " << fixed(r.busbw_gbps->max, 1)
              << " | " << fixed(r.time_us->median, r.time_us->median < 100 ? 2 : 1) << " | "
              << e(measured_status(r)) << " |\n";
          } else {
            o << "| " << e(format_size_compact(r.bytes)) << " | | | | | "
              << e(to_string(r.status) + " " + r.reason) << " |\n";
          }
        }
        o << "\n";
      }
    }
  }

  static void cards(W& o, const std::vector<PairVerdict>& vs) {
    const auto cs = cards_in(vs);
    if (cs.empty()) return;
    o << "## GPUs\n\n| rank | host | GPU | PCI bus id | UUID | serial |\n"
         "|---:|---|---:|---|---|---|\n";
    for (const auto& c : cs) {
      o << "| " << c.rank << " | " << e(c.host) << " | " << e(gpu_index_text(c, cs)) << " | "
        << e(c.pci_bus_id) << " | " << e(c.uuid) << " | " << e(serial_text(c)) << " |\n";
    }
    o << "\n";
  }

  static void known_good(W& o, const std::vector<PairVerdict>& vs) {
    const auto rows = known_good_rows(vs);
    if (rows.empty()) return;
    o << "## Against known-good figures\n\nMeasured / known-good (under 1 is worse, latency "
         "too).\n\n| pair | method | measured | known-good | ratio | source |\n"
         "|---|---|---:|---:|---:|---|\n";
    for (const auto& r : rows) {
      o << "| " << e(r.pair) << " | " << e(r.method) << " | " << e(r.measured) << " | "
        << e(r.expected) << " | " << e(r.ratio) << " | " << e(r.basis) << " |\n";
    }
    o << "\n";
    for (const auto& s : known_good_sources(rows)) o << "- source " << e(s) << "\n";
    o << "\n";
  }

  static void burn_in(W& o, const RunDocument& d) {
    const auto b = burn_in_summary(d);
    if (!b) return;
    o << "## Burn-in\n\n" << e(b->headline) << ".\n\n";
    for (const auto& c : b->counters) o << "- error counter grew: " << e(c) << "\n";
    if (!b->counters.empty()) o << "\n";
    o << "| method | pair | size | cycles | median | min-max | cv | drift | data errors in | "
         "failed in | contended in |\n|---|---|---:|---:|---:|---:|---:|---:|---|---|---|\n";
    for (const auto& r : b->rows) {
      o << "| " << e(r.method) << " | " << S::from_code(r.pair) << " | " << e(r.size) << " | "
        << r.cycles << " | " << e(r.median + " " + r.unit) << " | " << e(r.range) << " | "
        << e(r.cv) << " | " << e(r.drift) << " | " << e(r.errors) << " | " << e(r.failed) << " | "
        << e(r.contended) << " |\n";
    }
    o << "\n";
  }

  static void verdicts(W& o, const std::vector<PairVerdict>& vs) {
    o << "## Verdicts\n\n| pair | link | GPUs | verdict | observed |\n|---|---|---|---|---|\n";
    for (const auto& v : vs) {
      std::string gpus;
      if (v.src >= 0) {
        for (const auto& c : v.cards) gpus += (gpus.empty() ? "" : " -> ") + card_label(c);
      }
      o << "| " << pair(v.src, v.dst) << " | " << e(v.link_description) << " | " << e(gpus) << " | "
        << (v.verdict == verdict_state::kPass ? e(v.verdict) : "**" + e(v.verdict) + "**") << " | "
        << e(v.observed) << " |\n";
    }
    bool any = false;
    for (const auto& v : vs) {
      for (const auto& f : v.flags) {
        if (!any) o << "\n### Flags\n\n";
        any = true;
        o << "- **" << e(f.code) << "** " << pair(v.src, v.dst) << ": " << e(f.message)
          << "  \n  evidence: " << out::markdown_code(json_text(f.evidence)) << "\n";
      }
    }
    any = false;
    for (const auto& v : vs) {
      for (const auto& n : method_notes(v)) {
        if (!any) o << "\n### Not passed, not flagged\n\n";
        any = true;
        o << "- **" << e(n.state) << "** " << S::from_code(n.pair) << " " << e(n.method)
          << (n.reason.empty() ? S() : ": " + e(n.reason)) << "\n";
      }
    }
  }
};

}  // namespace

std::unique_ptr<DocumentReporter> make_markdown_reporter() {
  return std::make_unique<MarkdownReporter>();
}

}  // namespace peerbench
