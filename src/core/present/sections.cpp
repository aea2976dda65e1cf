// A section document as Markdown and as CSV (its data tables); the text and HTML renderings are
// sections_text.cpp and sections_html.cpp.
#include "core/present/sections.h"

#include <algorithm>

#include "core/base/escaped.h"
#include "core/present/text_table.h"

namespace peerbench {
namespace {

using MdW = out::Writer<out::Markdown>;
using MdS = out::Safe<out::Markdown>;

MdS m(std::string_view s) {
  return out::esc<out::Markdown>(s);
}

std::string head_text(const Column& c) {
  return c.unit.empty() ? c.name : c.name + " (" + c.unit + ")";
}

void markdown_table(MdW& o, const Table& t) {
  o << "|";
  for (const auto& c : t.columns) o << " " << m(head_text(c)) << " |";
  o << "\n|";
  for (const auto& c : t.columns) o << (c.numeric ? MdS("---:|") : "---|");
  o << "\n";
  const auto marked = t.marked_mask();
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    o << "|";
    for (const auto& cell : t.rows[r]) {
      const MdS s = m(cell.text) + (cell.flagged ? MdS("\\*") : MdS());
      // A marked row or a flagged figure is bold: the reader's eye finds it in a long table.
      const bool bold = (marked[r] || cell.flagged) && !s.empty();
      o << " " << (bold ? "**" + s + "**" : s) << " |";
    }
    o << "\n";
  }
}

// A number the code formatted goes out as it is ("-1.5" is not a formula); any other text through
// the CSV escaping, which defuses a leading = + - @.
out::Safe<out::Csv> csv_cell(const Cell& c) {
  const bool number = c.value && !c.text.empty() &&
                      c.text.find_first_not_of("0123456789.-+eE") == std::string::npos;
  return number ? out::Safe<out::Csv>::from_code(c.text) : out::esc<out::Csv>(c.text);
}

}  // namespace

std::string markdown_cell(const std::string& s) {
  return out::Markdown::escape(s);
}

std::vector<std::string> wrap_text(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t space = text.find(' ', pos);
    const std::size_t end = space == std::string::npos ? text.size() : space;
    std::string word = text.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty() && display_width(line) + 1 + display_width(word) > width) {
      lines.push_back(line);
      line.clear();
    }
    // A word longer than a line (a URL) is cut to lines of the width: nothing runs past it.
    while (line.empty() && width > 0 && word.size() > width && display_width(word) > width) {
      lines.push_back(word.substr(0, width));
      word.erase(0, width);
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

std::string render_sections_markdown(const SectionDocument& d) {
  MdW o;
  o << "# " << m(d.title) << "\n\n";
  if (!d.verdict.empty()) o << "**" << m(d.verdict) << "**\n";
  if (!d.digest.empty()) o << "\n";
  for (const auto& l : d.digest) o << "- " << m(l) << "\n";
  for (const auto& s : d.sections) {
    // Charts are drawn in HTML alone: a section of nothing else is not shown here.
    if (s.shown == Shown::kData || (s.lines.empty() && s.table.empty() && s.notes.empty()))
      continue;
    o << "\n" << (s.depth > 0 ? MdS("### ") : "## ") << m(s.title) << "\n\n";
    for (const auto& l : s.lines) o << "- " << m(l) << "\n";
    if (!s.lines.empty() && !s.table.empty()) o << "\n";
    if (!s.table.empty()) markdown_table(o, s.table);
    if (!s.notes.empty()) o << "\n";
    for (const auto& l : s.notes) o << "- " << m(l) << "\n";
  }
  if (!d.plots.empty() || !d.no_plots_note.empty()) o << "\n## Plots\n\n";
  for (const auto& p : d.plots)
    o << "![" << m(p.caption) << "](" << out::markdown_link(p.link) << ")\n\n";
  if (d.plots.empty() && !d.no_plots_note.empty()) o << m(d.no_plots_note) << "\n";
  return o.str();
}

std::string render_sections_csv(const SectionDocument& d) {
  out::Writer<out::Csv> o;
  bool header = false;
  for (const auto& s : d.sections) {
    if (s.shown != Shown::kData || s.table.empty()) continue;
    if (!header) {
      for (std::size_t c = 0; c < s.table.columns.size(); ++c) {
        if (c) o << ",";
        o << out::esc<out::Csv>(s.table.columns[c].name);
      }
      o << "\n";
      header = true;
    }
    for (const auto& row : s.table.rows) {
      for (std::size_t c = 0; c < row.size(); ++c) {
        if (c) o << ",";
        o << csv_cell(row[c]);
      }
      o << "\n";
    }
  }
  return o.str();
}

}  // namespace peerbench
