// The HTML report: one self-contained page (no script, nothing from outside it), its charts drawn
// as SVG inside it (core/report_charts.h), every string from the JSON escaped.
#include <algorithm>
#include <sstream>

#include "core/base/escaped.h"
#include "core/base/text.h"
#include "core/judge/verdict.h"
#include "core/model/json_text.h"
#include "core/model/result_index.h"
#include "core/model/sizes.h"
#include "core/present/report.h"
#include "core/present/report_charts.h"
#include "core/present/report_parts.h"
#include "core/present/svg_chart.h"

namespace peerbench {
namespace {

using namespace report_parts;
using W = out::Writer<out::Html>;
using S = out::Safe<out::Html>;
S e(std::string_view s) {
  return out::esc<out::Html>(s);
}
S fixed(double v, int decimals) {
  return out::fixed<out::Html>(v, decimals);
}
// svg::render escapes every label it draws (core/svg_parts): the chart is already HTML.
S chart(const svg::Chart& c) {
  return S::from_code(svg::render(c));
}

class HtmlReporter : public DocumentReporter {
 public:
  std::string render(const std::vector<ReportInput>& runs,
                     const std::vector<PlotFile>& plots) const override {
    W o;
    o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src "
         "data:; style-src 'unsafe-inline'\">"
         "<title>peerbench report</title><style>"
         "body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:"
         "1em 0}"
         "td,th{border:1px solid #bbb;padding:4px "
         "8px}th{background:#eee}td.n{text-align:right;font-family:monospace}"
         // A pair ("0->1") broke as "0-" over ">1" in narrow columns (an audit).
         "td:first-child{white-space:nowrap}"
         ".flagged{color:#b00;font-weight:bold}.incomplete{color:#b60;font-weight:bold}"
         ".pass{color:#070}.neutral{color:#555}code{font-size:90%;overflow-wrap:anywhere}"
      << S::from_code(svg::kChartCss) << "</style></head><body>\n";
    if (const auto all = runs_headline(runs); !all.empty()) {
      const bool fails = std::any_of(runs.begin(), runs.end(),
                                     [](const ReportInput& in) { return in.failing > 0; });
      o << "<p class=\"" << (fails ? S("flagged") : S("pass")) << "\">Over " << e(all) << "</p>\n";
    }
    for (const auto& in : runs) {
      const auto& d = *in.doc;
      const ResultIndex idx(d);
      header(o, in);
      matrix(o, in, idx);
      size_section(o, in, MethodScope::kPair, "Pairs: bandwidth against size");
      host_section(o, host_table(d, idx, links_of(in.verdicts)));
      size_section(o, in, MethodScope::kPerGpu, "Host <-> GPU: bandwidth against size");
      if (const auto c = collectives_chart(d, in.known_good)) {
        o << "<h2>NCCL collectives: bus bandwidth against size</h2>\n" << chart(*c);
      }
      all_ranks_tables(o, d);
      cards(o, in.verdicts);
      if (const auto um = unmeasured(d); !um.empty()) {
        o << "<h2>Not "
             "measured</h2><table><tr><th>method</th><th>pairs</th><th>cases</th><th>status</"
             "th><th>reason</th></tr>\n";
        for (const auto& u : um) {
          o << "<tr><td>" << e(u.method) << "</td><td>" << e(join(u.pairs))
            << "</td><td class=\"n\">" << u.cases << "</td><td class=\"incomplete\">" << e(u.status)
            << "</td><td>" << e(u.reason) << "</td></tr>\n";
        }
        o << "</table>\n";
      }
      known_good(o, in.verdicts);
      burn_in(o, d);
      if (const auto lines = interference_lines(d); !lines.empty()) {
        o << "<h2>Beside another job or under held clocks</h2>\n<p>Those figures are not the "
             "links'.</p>\n<ul>\n";
        for (const auto& l : lines) o << "<li>" << e(l) << "</li>\n";
        o << "</ul>\n";
      }
      verdicts(o, in.verdicts);
      o << "<h2>Terms</h2>\n<dl>";
      for (const auto& [t, m] : terms_of(d)) o << "<dt>" << e(t) << "</dt><dd>" << e(m) << "</dd>";
      o << "</dl>\n";
    }
    if (!plots.empty()) {
      o << "<h2>Plots</h2>\n";
      for (const auto& p : plots) {
        // Only images we embed ourselves (data: URIs) — nothing taken from input is linked.
        if (p.data_uri.empty()) continue;
        o << "<figure><img alt=\"" << e(p.caption) << "\" src=\"" << S::from_code(p.data_uri)
          << "\" style=\"max-width:100%\"><figcaption>" << e(p.caption)
          << "</figcaption></figure>\n";
      }
    }
    o << "</body></html>\n";
    return o.str();
  }

 private:
  static void header(W& o, const ReportInput& in) {
    const auto& d = *in.doc;
    const auto c = count_verdicts(in.verdicts);
    o << "<h1>peerbench report</h1>\n<table>";
    auto row = [&](const std::string& k, const std::string& v) {
      o << "<tr><th>" << e(k) << "</th><td>" << e(v) << "</td></tr>";
    };
    row("results", in.path);
    row("system", system_line(d));
    if (!d.tool.command_line.empty()) row("command", command_line_text(d));
    row("environment", steering_environment_text(d));
    std::string hosts;
    for (const auto& h : d.system.hosts) hosts += (hosts.empty() ? "" : ", ") + h;
    row("hosts", hosts);
    row("status", d.status);
    // The run's own errors: in the text report only, a failed run's cause was missing (audit).
    for (const auto& err : d.errors) row("error", err);
    row("started", d.started_at);
    row("peerbench", d.tool.version + " (" + d.tool.git_revision + ")");
    row("NCCL capture", d.nccl.mode + (d.nccl.note.empty() ? "" : ": " + d.nccl.note));
    row("thresholds", in.expectations_source);
    if (!in.bars_used.empty()) row("bars", in.bars_used);
    if (!in.recorded.empty()) row("recomputed", in.recorded);
    const std::string cls =
        c.flagged ? "flagged"
        : in.failing > 0 || c.incomplete || d.status == "failed" || !run_cut_short(d).empty()
            ? "incomplete"  // exit 1 (an opt-in state too), or a run that did not end: not green
        : c.pass == c.verdicts && c.verdicts ? "pass"
                                             : "neutral";
    o << "</table>\n<p class=\"" << S::from_code(cls)
      << "\">Verdict: " << e(run_headline(d, in.verdicts)) << "</p>\n";
    if (!in.failing_why.empty()) o << "<p class=\"exit\">Exit 1: " << e(in.failing_why) << "</p>\n";
    if (!in.waived_why.empty()) o << "<p class=\"exit\">Waived: " << e(in.waived_why) << "</p>\n";
    // Why, on the first screen: the flags were 6,000 px down the page (an audit).
    if (const auto why = flag_digest(in.verdicts); !why.empty()) {
      o << "<ul class=\"why\">";
      for (const auto& w : why) o << "<li>" << e(w) << "</li>";
      o << "</ul>\n";
    }
    o << "<p class=\"summary\">Summary: " << e(verdict_summary(c)) << "</p>\n";
  }

  // The pair matrix as a heat map, its figures, ratios and NCCL transports in the table beside.
  static void matrix(W& o, const ReportInput& in, const ResultIndex& idx) {
    const auto h = pair_heat_map(in, idx);
    if (!h) return;
    o << "<h2>Pairs at the largest size</h2>\n" << chart(*h);
  }

  static void size_section(W& o, const ReportInput& in, MethodScope scope,
                           const std::string& title) {
    const auto charts = size_charts(*in.doc, scope, in.known_good);
    if (charts.empty()) return;
    o << "<h2>" << e(title) << "</h2>\n";
    for (const auto& c : charts) o << chart(c);
  }

  static void host_section(W& o, const HostTable& t) {
    if (t.methods.empty()) return;
    o << "<h2>Host &lt;-&gt; GPU at the largest size</h2><p>Copy engine, pinned host memory "
         "placed as listed under the table; median; <code>-all</code> methods ran on every GPU "
         "at once.</p>"
         "<table><tr><th>rank</th><th>GPU</th><th>link</th>";
    for (std::size_t i = 0; i < t.methods.size(); ++i) {
      o << "<th>" << e(t.methods[i]->name) << "<br>" << e(t.units[i]) << "</th>";
    }
    o << "</tr>\n";
    for (const auto& r : t.rows) {
      o << "<tr><td>" << e(r.rank) << "</td><td>" << e(r.gpu) << "</td><td>" << e(r.link)
        << "</td>";
      for (const auto& c : r.cells) o << "<td class=\"n\">" << e(c) << "</td>";
      o << "</tr>\n";
    }
    o << "</table>\n";
    for (const auto& s : t.totals) o << "<p>" << e(s) << "</p>\n";
    for (const auto& s : t.memory) o << "<p>" << e(s) << "</p>\n";
  }

  static void all_ranks_tables(W& o, const RunDocument& d) {
    for (const auto* m : methods_in(d, MethodScope::kAllRanks)) {
      for (const auto& v : variants_of(d, m->name)) {
        o << "<h2>" << e(m->name + variant_suffix(v))
          << " over all ranks</h2><table><tr><th>size</th><th>busbw GB/s</th>"
             "<th>min</th><th>max</th><th>time us</th><th>status</th></tr>\n";
        for (const auto& r : d.results) {
          if (r.method != m->name || r.src >= 0 || variant_label(r) != v) continue;
          o << "<tr><td class=\"n\">" << e(format_size_compact(r.bytes)) << "</td>";
          if (r.status == ResultStatus::kOk && r.busbw_gbps && r.time_us) {
            o << "<td class=\"n\">" << fixed(r.busbw_gbps->median, 1) << "</td><td class=\"n\">"
              << fixed(r.busbw_gbps->min, 1) << "</td><td class=\"n\">"
              << fixed(r.busbw_gbps->max, 1) << "</td><td class=\"n\">"
              << fixed(r.time_us->median, r.time_us->median < 100 ? 2 : 1) << "</td><td>"
              << e(measured_status(r)) << "</td>";
          } else {
            o << "<td></td><td></td><td></td><td></td><td class=\"incomplete\">"
              << e(to_string(r.status) + " " + r.reason) << "</td>";
          }
          o << "</tr>\n";
        }
        o << "</table>\n";
      }
    }
  }

  static void cards(W& o, const std::vector<PairVerdict>& vs) {
    const auto cs = cards_in(vs);
    if (cs.empty()) return;
    o << "<h2>GPUs</h2><table><tr><th>rank</th><th>host</th><th>GPU</th><th>PCI bus "
         "id</th><th>UUID</th><th>serial</th></tr>\n";
    for (const auto& c : cs) {
      o << "<tr><td class=\"n\">" << c.rank << "</td><td>" << e(c.host) << "</td><td class=\"n\">"
        << e(gpu_index_text(c, cs)) << "</td><td>" << e(c.pci_bus_id) << "</td><td>" << e(c.uuid)
        << "</td><td>" << e(serial_text(c)) << "</td></tr>\n";
    }
    o << "</table>\n";
  }

  static void known_good(W& o, const std::vector<PairVerdict>& vs) {
    const auto rows = known_good_rows(vs);
    if (rows.empty()) return;
    o << "<h2>Against known-good figures</h2><p>Measured / known-good (under 1 is worse, latency "
         "too).</p><table><tr><th>pair</th><th>method</th><th>measured</th><th>known-good</th>"
         "<th>ratio</th><th>source</th></tr>\n";
    for (const auto& r : rows) {
      o << "<tr><td>" << e(r.pair) << "</td><td>" << e(r.method) << "</td><td class=\"n\">"
        << e(r.measured) << "</td><td class=\"n\">" << e(r.expected) << "</td><td class=\"n\">"
        << e(r.ratio) << "</td><td>" << e(r.basis) << "</td></tr>\n";
    }
    o << "</table>\n";
    for (const auto& s : known_good_sources(rows)) o << "<p>source " << e(s) << "</p>\n";
  }

  static void burn_in(W& o, const RunDocument& d) {
    const auto b = burn_in_summary(d);
    if (!b) return;
    o << "<h2>Burn-in</h2><p>" << e(b->headline) << "</p>\n";
    for (const auto& c : b->counters)
      o << "<p class=\"flagged\">error counter grew: " << e(c) << "</p>\n";
    o << "<table><tr><th>method</th><th>pair</th><th>size</th><th>cycles</th><th>median</th>"
         "<th>min-max</th><th>cv</th><th>drift</th><th>data errors in</th><th>failed in</th>"
         "<th>contended in</th></tr>\n";
    for (const auto& r : b->rows) {
      o << "<tr><td>" << e(r.method) << "</td><td>" << e(r.pair) << "</td><td class=\"n\">"
        << e(r.size) << "</td><td class=\"n\">" << r.cycles << "</td><td class=\"n\">"
        << e(r.median + " " + r.unit) << "</td><td class=\"n\">" << e(r.range)
        << "</td><td class=\"n\">" << e(r.cv) << "</td><td class=\"n\">" << e(r.drift)
        << "</td><td>" << e(r.errors) << "</td><td>" << e(r.failed) << "</td><td>" << e(r.contended)
        << "</td></tr>\n";
    }
    o << "</table>\n";
  }

  static void verdicts(W& o, const std::vector<PairVerdict>& vs) {
    o << "<h2>Verdicts</h2><table><tr><th>pair</th><th>link</th><th>GPUs</th><th>verdict</th>"
         "<th>observed</th><th>flags and missing measurements</th></tr>\n";
    for (const auto& v : vs) {
      std::string gpus;
      if (v.src >= 0) {
        for (const auto& c : v.cards) gpus += (gpus.empty() ? "" : " -> ") + card_label(c);
      }
      o << "<tr><td>" << e(pair_name(v.src, v.dst)) << "</td><td>" << e(v.link_description)
        << "</td><td>" << e(gpus) << "</td><td class=\"" << S::from_code(state_class(v.verdict))
        << "\">" << e(v.verdict) << "</td><td>" << e(v.observed) << "</td><td>";
      for (const auto& f : v.flags) {
        o << "<b>" << e(f.code) << "</b>: " << e(f.message) << "<br><code>"
          << e(json_text(f.evidence)) << "</code><br>";
      }
      for (const auto& n : method_notes(v)) {
        o << "<span class=\"" << S::from_code(state_class(n.state)) << "\">" << e(n.state)
          << "</span>: " << e(n.method) << (n.reason.empty() ? S() : ": " + e(n.reason)) << "<br>";
      }
      o << "</td></tr>\n";
    }
    o << "</table>\n";
  }
};

}  // namespace

std::unique_ptr<DocumentReporter> make_html_reporter() {
  return std::make_unique<HtmlReporter>();
}

}  // namespace peerbench
