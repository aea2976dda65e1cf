#include "core/present/sections.h"

#include <algorithm>
#include <sstream>

#include "core/base/escaped.h"
#include "core/present/text_table.h"

namespace peerbench {
namespace {

using TermW = out::Writer<out::Term>;
using MdW = out::Writer<out::Markdown>;
using HtmlW = out::Writer<out::Html>;
using MdS = out::Safe<out::Markdown>;
using HtmlS = out::Safe<out::Html>;
template <class F>
out::Safe<F> e(std::string_view s) {
  return out::esc<F>(s);
}

// Per row: emphasized or not. Looked up once per table, not scanned per row: a fleet of a million
// missing nodes marks a million rows.
std::vector<bool> marked_rows(const Table& t) {
  std::vector<bool> marked(t.rows.size(), false);
  for (int r : t.marked) {
    if (r >= 0 && static_cast<std::size_t>(r) < marked.size())
      marked[static_cast<std::size_t>(r)] = true;
  }
  return marked;
}

bool numeric_column(const Table& t, std::size_t c) {
  return c < t.numeric.size() && t.numeric[c];
}

// Through core/text_table's columns, without copying the rows (a fleet of a million missing
// nodes has a million of them).
void text_table(TermW& o, const Table& t) {
  std::vector<Align> align;
  for (std::size_t c = 0; c < t.head.size(); ++c)
    align.push_back(numeric_column(t, c) ? Align::kRight : Align::kLeft);
  std::vector<std::size_t> widths(t.head.size(), 0);
  std::vector<std::string> scratch;
  auto measure = [&](const std::vector<std::string>& row) {
    const auto& cells = shown_cells(row, scratch);
    if (cells.size() > widths.size()) widths.resize(cells.size(), 0);
    for (std::size_t c = 0; c < cells.size(); ++c)
      widths[c] = std::max(widths[c], display_width(cells[c]));
  };
  measure(t.head);
  for (const auto& row : t.rows) measure(row);
  const auto marked = marked_rows(t);
  // shown_cells escapes every cell for the terminal: the columns are text of this renderer.
  auto line = [&](const std::vector<std::string>& row) {
    return out::Safe<out::Term>::from_code(
        format_columns(shown_cells(row, scratch), widths, align));
  };
  o << "  " << line(t.head) << "\n";
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    o << (marked[r] ? "* " : "  ") << line(t.rows[r]) << "\n";
  }
}

void markdown_table(MdW& o, const Table& t) {
  o << "|";
  for (const auto& h : t.head) o << " " << e<out::Markdown>(h) << " |";
  o << "\n|";
  for (std::size_t c = 0; c < t.head.size(); ++c)
    o << (numeric_column(t, c) ? MdS("---:|") : "---|");
  o << "\n";
  const auto marked = marked_rows(t);
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    o << "|";
    const bool mark = marked[r];
    for (const auto& cell : t.rows[r]) {
      const MdS s = e<out::Markdown>(cell);
      o << " " << (mark && !s.empty() ? "**" + s + "**" : s) << " |";
    }
    o << "\n";
  }
}

void html_table(HtmlW& o, const Table& t) {
  o << "<table><tr>";
  for (const auto& h : t.head) o << "<th>" << e<out::Html>(h) << "</th>";
  o << "</tr>\n";
  const auto marked = marked_rows(t);
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    o << (marked[r] ? HtmlS("<tr class=\"marked\">") : "<tr>");
    for (std::size_t c = 0; c < t.rows[r].size(); ++c) {
      // Short cells ("0->1", a PCI pair) stay on one line; long ones (findings) wrap.
      const bool short_cell = t.rows[r][c].size() <= 48;
      o << (numeric_column(t, c) ? HtmlS("<td class=\"n\">")
            : short_cell         ? HtmlS("<td class=\"s\">")
                                 : HtmlS("<td>"))
        << e<out::Html>(t.rows[r][c]) << "</td>";
    }
    o << "</tr>\n";
  }
  o << "</table>\n";
}

constexpr char kHtmlHead[] =
    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; "
    "style-src 'unsafe-inline'\"><title>";
constexpr char kHtmlStyle[] =
    "</title><style>body{font-family:sans-serif;margin:2em;color:#222}"
    "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:3px 7px}"
    "th{background:#eee}td.n{text-align:right;font-family:monospace;white-space:nowrap}"
    "td.s{white-space:nowrap}tr.marked{background:#fdd}"
    ".flagged{color:#b00;font-weight:bold}.pass{color:#070;font-weight:bold}img{max-width:100%}";

}  // namespace

std::string markdown_cell(const std::string& s) {
  return out::Markdown::escape(s);
}

std::string render_sections_text(const SectionDocument& d) {
  TermW o;
  const auto t = [](std::string_view s) { return e<out::Term>(s); };
  o << t(d.title) << "\n";
  if (!d.verdict.empty()) o << t(d.verdict) << "\n";
  for (const auto& l : d.digest) o << "  " << t(l) << "\n";
  for (const auto& s : d.sections) {
    o << "\n" << t(s.title) << ":\n";
    for (const auto& l : s.lines) o << "  " << t(l) << "\n";
    if (!s.table.head.empty()) text_table(o, s.table);
  }
  return o.str();
}

std::string render_sections_markdown(const SectionDocument& d) {
  MdW o;
  const auto m = [](std::string_view s) { return e<out::Markdown>(s); };
  o << "# " << m(d.title) << "\n\n";
  if (!d.verdict.empty()) o << "**" << m(d.verdict) << "**\n";
  if (!d.digest.empty()) o << "\n";
  for (const auto& l : d.digest) o << "- " << m(l) << "\n";
  for (const auto& s : d.sections) {
    o << "\n## " << m(s.title) << "\n\n";
    for (const auto& l : s.lines) o << "- " << m(l) << "\n";
    if (!s.lines.empty() && !s.table.head.empty()) o << "\n";
    if (!s.table.head.empty()) markdown_table(o, s.table);
  }
  if (!d.plots.empty() || !d.no_plots_note.empty()) o << "\n## Plots\n\n";
  for (const auto& p : d.plots)
    o << "![" << m(p.caption) << "](" << out::markdown_link(p.link) << ")\n\n";
  if (d.plots.empty() && !d.no_plots_note.empty()) o << m(d.no_plots_note) << "\n";
  return o.str();
}

std::string render_sections_html(const SectionDocument& d) {
  HtmlW o;
  const auto h = [](std::string_view s) { return e<out::Html>(s); };
  o << kHtmlHead << h(d.title) << kHtmlStyle << HtmlS::from_code(svg::kChartCss)
    << "</style></head><body>\n";
  o << "<h1>" << h(d.title) << "</h1>\n";
  if (!d.verdict.empty()) {
    o << "<p class=\"" << (d.failed ? HtmlS("flagged") : "pass") << "\">" << h(d.verdict)
      << "</p>\n";
  }
  if (!d.digest.empty()) {
    o << "<ul>";
    for (const auto& l : d.digest) o << "<li>" << h(l) << "</li>";
    o << "</ul>\n";
  }
  for (const auto& s : d.sections) {
    o << "<h2>" << h(s.title) << "</h2>\n";
    if (!s.lines.empty()) {
      o << "<ul>";
      for (const auto& l : s.lines) o << "<li>" << h(l) << "</li>";
      o << "</ul>\n";
    }
    // svg::render escapes every label it draws (core/svg_parts).
    for (const auto& c : s.charts) o << HtmlS::from_code(svg::render(c));
    if (!s.table.head.empty()) html_table(o, s.table);
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
