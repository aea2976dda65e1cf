// A section document as one self-contained HTML page: no script and nothing from outside it, its
// charts drawn as SVG inside it, every string escaped; a print stylesheet for an acceptance report
// printed to PDF.
#include <algorithm>

#include "core/base/escaped.h"
#include "core/present/sections.h"

namespace peerbench {
namespace {

using HtmlW = out::Writer<out::Html>;
using HtmlS = out::Safe<out::Html>;

HtmlS h(std::string_view s) {
  return out::esc<out::Html>(s);
}

HtmlS tone_class(Tone t) {
  switch (t) {
    case Tone::kGood:
      return " class=\"pass\"";
    case Tone::kBad:
      return " class=\"flagged\"";
    case Tone::kWarn:
      return " class=\"incomplete\"";
    case Tone::kNeutral:
      return " class=\"neutral\"";
    case Tone::kNone:
      break;
  }
  return HtmlS();
}

HtmlS cell_class(const Table& t, std::size_t c, const Cell& cell) {
  if (cell.tone != Tone::kNone) return tone_class(cell.tone);
  const bool numeric = c < t.columns.size() && t.columns[c].numeric;
  if (cell.flagged) return numeric ? HtmlS(" class=\"n flag\"") : " class=\"flag\"";
  if (numeric) return " class=\"n\"";
  // Short cells ("0->1", a PCI pair) stay on one line; long ones (findings) wrap.
  return cell.text.size() <= 48 ? HtmlS(" class=\"s\"") : HtmlS();
}

void html_table(HtmlW& o, const Table& t) {
  // Wide tables scroll inside their box rather than run off the page's right edge.
  o << "<div class=\"wide\"><table><thead><tr>";
  for (const auto& c : t.columns) {
    o << "<th>" << h(c.name);
    if (!c.unit.empty()) o << "<br><small>" << h(c.unit) << "</small>";
    o << "</th>";
  }
  // The head in <thead>: a table printed over pages repeats it on each.
  o << "</tr></thead><tbody>\n";
  const auto marked = t.marked_mask();
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    o << (marked[r] ? HtmlS("<tr class=\"marked\">") : "<tr>");
    for (std::size_t c = 0; c < t.rows[r].size(); ++c)
      // A flagged figure is starred as in text: its colour alone is lost in a grey print.
      o << "<td" << cell_class(t, c, t.rows[r][c]) << ">" << h(t.rows[r][c].text)
        << (t.rows[r][c].flagged ? HtmlS("*") : HtmlS()) << "</td>";
    o << "</tr>\n";
  }
  o << "</tbody></table></div>\n";
}

constexpr char kHtmlHead[] =
    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; "
    "style-src 'unsafe-inline'\"><title>";
constexpr char kHtmlStyle[] =
    "</title><style>body{font-family:sans-serif;margin:1.5em 2em;color:#222;max-width:1400px}"
    "h1{font-size:1.4em;margin:0 0 .3em}h2{font-size:1.15em;margin:1.4em 0 .3em}"
    "h3{font-size:1em;margin:1em 0 .2em}ul{margin:.3em 0;padding-left:1.4em}"
    "table{border-collapse:collapse;margin:.4em 0 .8em}td,th{border:1px solid #bbb;"
    "padding:3px 7px;vertical-align:top}th{background:#eee;font-weight:600}"
    "th small{font-weight:normal;color:#555}"
    "td.n{text-align:right;font-family:monospace;white-space:nowrap}td.s{white-space:nowrap}"
    "td.flag{background:#f6c6c6;color:#800;font-weight:bold}tr.marked{background:#fdd}"
    ".wide{overflow-x:auto}.tiles{display:flex;flex-wrap:wrap;gap:0 2.2em}"
    ".tile h3{margin:.7em 0 "
    ".1em;font-size:.95em}p.flagged,p.pass{font-size:1.25em;font-weight:bold;margin:.3em 0}"
    "p.incomplete{font-size:1.25em;margin:.3em "
    "0}.flagged{color:#b00}.pass{color:#070}.incomplete{color:#b60;font-weight:bold}.neutral{color:"
    "#"
    "555}ul.digest{font-size:1.05em}img{max-width:100%}"
    "@media print{body{margin:0;font-size:9.5pt;max-width:none}.wide{overflow:visible}"
    "h2,h3{break-after:avoid}tr,figure,svg,li{break-inside:avoid}td,th{padding:1px 4px}"
    ".chart-table{overflow:visible}.chart-table table{font-size:75%}"
    "td.flag,tr.marked,th{-webkit-print-color-adjust:exact;print-color-adjust:exact}}";

void section(HtmlW& o, const Section& s) {
  if (!s.title.empty())
    o << (s.depth > 0 ? HtmlS("<h3>") : "<h2>") << h(s.title)
      << (s.depth > 0 ? HtmlS("</h3>\n") : "</h2>\n");
  if (!s.lines.empty()) {
    o << "<ul>";
    for (const auto& l : s.lines) o << "<li>" << h(l) << "</li>";
    o << "</ul>\n";
  }
  // svg::render escapes every label it draws (core/svg_parts).
  for (const auto& c : s.charts) o << HtmlS::from_code(svg::render(c));
  if (!s.table.empty()) html_table(o, s.table);
  for (const auto& l : s.notes) o << "<p>" << h(l) << "</p>\n";
}

}  // namespace

std::string render_sections_html(const SectionDocument& d) {
  HtmlW o;
  o << kHtmlHead << h(d.title) << kHtmlStyle << HtmlS::from_code(svg::kChartCss)
    << "</style></head><body>\n";
  o << "<h1>" << h(d.title) << "</h1>\n";
  if (!d.verdict.empty()) {
    const HtmlS cls = !d.failed                         ? HtmlS("pass")
                      : d.failed_tone == Tone::kWarn    ? HtmlS("incomplete")
                      : d.failed_tone == Tone::kNeutral ? HtmlS("neutral")
                                                        : HtmlS("flagged");
    o << "<p class=\"" << cls << "\">" << h(d.verdict) << "</p>\n";
  }
  if (!d.digest.empty()) {
    o << "<ul class=\"digest\">";
    for (const auto& l : d.digest) o << "<li>" << h(l) << "</li>";
    o << "</ul>\n";
  }
  for (std::size_t i = 0; i < d.sections.size(); ++i) {
    if (d.sections[i].shown == Shown::kData) continue;
    if (!d.sections[i].tile) {
      section(o, d.sections[i]);
      continue;
    }
    // Consecutive tiles (small matrices) in a row that wraps, as the text lays them side by side.
    o << "<div class=\"tiles\">";
    for (; i < d.sections.size() && d.sections[i].tile; ++i) {
      o << "<div class=\"tile\">";
      section(o, d.sections[i]);
      o << "</div>";
    }
    --i;
    o << "</div>\n";
  }
  // The charts above are the page's own; PNG plots given with --plots are added after them.
  if (!d.plots.empty()) o << "<h2>Plots</h2>\n";
  for (const auto& p : d.plots) {
    if (p.data_uri.empty()) continue;
    o << "<figure><img src=\"" << h(p.data_uri) << "\" alt=\"" << h(p.caption) << "\"><figcaption>"
      << h(p.caption) << "</figcaption></figure>\n";
  }
  o << "</body></html>\n";
  return o.str();
}

}  // namespace peerbench
