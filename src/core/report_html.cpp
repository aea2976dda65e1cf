// The HTML report: one self-contained page (no script, nothing from outside it), its charts drawn
// as SVG inside it (core/report_charts.h), every string from the JSON escaped.
#include <sstream>

#include "core/report.h"
#include "core/report_charts.h"
#include "core/report_parts.h"
#include "core/model/result_index.h"
#include "core/model/sizes.h"
#include "core/svg_chart.h"
#include "core/base/text.h"
#include "core/judge/verdict.h"

namespace peerbench {
namespace {

using namespace report_parts;

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
      << svg::kChartCss << "</style></head><body>\n";
    for (const auto& in : runs) {
      const auto& d = *in.doc;
      const ResultIndex idx(d);
      header(o, in);
      matrix(o, in, idx);
      size_section(o, d, MethodScope::kPair, "Pairs: bandwidth against size");
      host_section(o, host_table(d, idx, links_of(in.verdicts)));
      size_section(o, d, MethodScope::kPerGpu, "Host <-> GPU: bandwidth against size");
      if (const auto c = collectives_chart(d)) {
        o << "<h2>NCCL collectives: bus bandwidth against size</h2>\n" << svg::render(*c);
      }
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

  // The pair matrix as a heat map, its figures, ratios and NCCL transports in the table beside.
  static void matrix(std::ostringstream& o, const ReportInput& in, const ResultIndex& idx) {
    const auto h = pair_heat_map(in, idx);
    if (!h) return;
    o << "<h2>Pairs at the largest size</h2>\n" << svg::render(*h);
  }

  static void size_section(std::ostringstream& o, const RunDocument& d, MethodScope scope,
                           const std::string& title) {
    const auto charts = size_charts(d, scope);
    if (charts.empty()) return;
    o << "<h2>" << html_escape(title) << "</h2>\n";
    for (const auto& c : charts) o << svg::render(c);
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

}  // namespace

std::unique_ptr<DocumentReporter> make_html_reporter() {
  return std::make_unique<HtmlReporter>();
}

}  // namespace peerbench
