// A section document as aligned text for a terminal, kept within kTextWidth columns: lines wrap
// under their indent, a table's long last column wraps inside it, and a table still too wide is
// split into parts that each repeat the row's key columns.
#include <algorithm>
#include <numeric>

#include "core/base/escaped.h"
#include "core/base/text.h"
#include "core/present/sections.h"
#include "core/present/text_table.h"

namespace peerbench {
namespace {

using TermW = out::Writer<out::Term>;
using TermS = out::Safe<out::Term>;

// A cell as the terminal shows it: escaped, with '*' after a flagged figure.
std::string shown_text(const Cell& c) {
  return sanitize_for_terminal(c.text) + (c.flagged ? "*" : "");
}

bool has_units(const Table& tb) {
  return std::any_of(tb.columns.begin(), tb.columns.end(),
                     [](const Column& c) { return !c.unit.empty(); });
}

// The table's rows as the terminal shows them: the names, the units where any, then the cells.
struct ShownTable {
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> marked;
  std::vector<Align> align;
  std::size_t heads = 1;  // header rows
};

ShownTable shown_table(const Table& tb) {
  ShownTable s;
  std::vector<std::string> names, units;
  for (const auto& c : tb.columns) {
    names.push_back(sanitize_for_terminal(c.name));
    units.push_back(sanitize_for_terminal(c.unit));
    s.align.push_back(c.numeric ? Align::kRight : Align::kLeft);
  }
  s.rows.push_back(std::move(names));
  if (has_units(tb)) {
    s.rows.push_back(std::move(units));
    s.heads = 2;
  }
  s.marked.assign(s.heads, false);
  const std::vector<bool> mark = tb.marked_mask();
  for (std::size_t r = 0; r < tb.rows.size(); ++r) {
    std::vector<std::string> cells;
    for (const auto& c : tb.rows[r]) cells.push_back(shown_text(c));
    s.rows.push_back(std::move(cells));
    s.marked.push_back(mark[r]);
  }
  return s;
}

std::vector<std::size_t> column_widths(const ShownTable& s) {
  std::vector<std::size_t> w(s.align.size(), 0);
  for (const auto& row : s.rows) {
    if (row.size() > w.size()) w.resize(row.size(), 0);
    for (std::size_t c = 0; c < row.size(); ++c) w[c] = std::max(w[c], display_width(row[c]));
  }
  return w;
}

// Width of a line of these columns after the two-space indent.
std::size_t line_width(const std::vector<std::size_t>& w, const std::vector<std::size_t>& cols) {
  std::size_t n = 2;
  for (std::size_t i = 0; i < cols.size(); ++i) n += w[cols[i]] + (i ? kColumnGap : 0);
  return n;
}

using Lines = std::vector<std::string>;  // already made safe for the terminal

void write_rows(Lines& o, const ShownTable& s, const std::vector<std::size_t>& cols,
                const std::vector<std::size_t>& w, std::size_t wrap_last) {
  std::vector<std::size_t> widths;
  std::vector<Align> align;
  for (auto c : cols) {
    widths.push_back(w[c]);
    align.push_back(c < s.align.size() ? s.align[c] : Align::kLeft);
  }
  for (std::size_t r = 0; r < s.rows.size(); ++r) {
    std::vector<std::string> cells;
    for (auto c : cols) cells.push_back(c < s.rows[r].size() ? s.rows[r][c] : "");
    // The last column wraps inside its own width; its further lines keep the others blank.
    std::vector<std::string> tail{cells.back()};
    if (wrap_last > 0) tail = wrap_text(cells.back(), wrap_last);
    if (tail.empty()) tail.push_back("");
    for (std::size_t k = 0; k < tail.size(); ++k) {
      std::vector<std::string> line(cells.size(), "");
      if (k == 0) line = cells;
      line.back() = tail[k];
      const char* lead = (k == 0 && s.marked[r]) ? "* " : "  ";
      o.push_back(lead + format_columns(line, widths, align));
    }
  }
}

// Parts of columns that fit: the key columns, then as many others as fit, in order.
std::vector<std::vector<std::size_t>> column_parts(const std::vector<std::size_t>& w,
                                                   std::size_t keys) {
  keys = std::min(keys, w.size());
  std::vector<std::vector<std::size_t>> parts;
  std::vector<std::size_t> key(keys);
  std::iota(key.begin(), key.end(), 0);
  std::vector<std::size_t> part = key;
  for (std::size_t c = keys; c < w.size(); ++c) {
    part.push_back(c);
    if (part.size() > keys + 1 && line_width(w, part) > kTextWidth) {
      part.pop_back();
      parts.push_back(part);
      part = key;
      part.push_back(c);
    }
  }
  if (part.size() > keys || parts.empty()) parts.push_back(part);
  return parts;
}

void text_table(Lines& o, const Table& tb) {
  const ShownTable s = shown_table(tb);
  const auto w = column_widths(s);
  std::vector<std::size_t> all(w.size());
  std::iota(all.begin(), all.end(), 0);
  if (line_width(w, all) <= kTextWidth || w.empty()) {
    write_rows(o, s, all, w, 0);
    return;
  }
  // A long text column last (findings, reasons) wraps inside the room the others leave.
  all.pop_back();
  const std::size_t rest = all.empty() ? 2 : line_width(w, all) + kColumnGap;
  all.push_back(w.size() - 1);
  std::size_t longest_word = 0;  // a last column wraps only where its words fit its room
  for (const auto& row : s.rows) {
    if (row.size() < w.size()) continue;
    std::size_t from = 0;
    const std::string& cell = row.back();
    while (from <= cell.size()) {
      const std::size_t space = std::min(cell.find(' ', from), cell.size());
      longest_word = std::max(longest_word, display_width(cell.substr(from, space - from)));
      from = space + 1;
    }
  }
  if (s.align.back() == Align::kLeft && rest + 30 <= kTextWidth &&
      rest + longest_word <= kTextWidth) {
    write_rows(o, s, all, w, kTextWidth - rest);
    return;
  }
  const auto parts = column_parts(w, tb.key_columns);
  for (std::size_t p = 0; p < parts.size(); ++p) {
    if (p > 0) o.push_back("");
    write_rows(o, s, parts[p], w, 0);
  }
}

void wrapped(Lines& o, const std::string& text, const std::string& indent,
             const std::string& more) {
  const auto lines = wrap_text(sanitize_for_terminal(text), kTextWidth - more.size());
  for (std::size_t i = 0; i < lines.size(); ++i) o.push_back((i == 0 ? indent : more) + lines[i]);
}

Lines section_lines(const Section& s) {
  Lines o;
  if (!s.title.empty()) {
    if (s.tile) {
      o.push_back(sanitize_for_terminal(s.title) + ":");  // a tile is as wide as its title
    } else {
      wrapped(o, s.title + ":", "", "  ");
    }
  }
  for (const auto& l : s.lines) wrapped(o, l, "  ", "      ");
  if (!s.table.empty()) text_table(o, s.table);
  for (const auto& l : s.notes) wrapped(o, l, "  ", "      ");
  return o;
}

// Consecutive tiles side by side, as many to a row as fit the width, kTileGap apart.
constexpr std::size_t kTileGap = 4;

void tile_rows(Lines& o, const std::vector<Lines>& tiles) {
  std::vector<std::size_t> width;
  for (const auto& t : tiles) {
    std::size_t w = 0;
    for (const auto& l : t) w = std::max(w, display_width(l));
    width.push_back(w);
  }
  std::size_t first = 0;
  while (first < tiles.size()) {
    std::size_t end = first + 1, used = width[first];
    while (end < tiles.size() && used + kTileGap + width[end] <= kTextWidth)
      used += kTileGap + width[end++];
    std::size_t height = 0;
    for (std::size_t t = first; t < end; ++t) height = std::max(height, tiles[t].size());
    if (first > 0) o.push_back("");
    for (std::size_t k = 0; k < height; ++k) {
      std::string line;
      for (std::size_t t = first; t < end; ++t) {
        const std::string cell = k < tiles[t].size() ? tiles[t][k] : "";
        line += cell;
        if (t + 1 < end) line.append(width[t] - display_width(cell) + kTileGap, ' ');
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      o.push_back(line);
    }
    first = end;
  }
}

}  // namespace

std::string render_sections_text(const SectionDocument& d) {
  Lines lines;
  wrapped(lines, d.title, "", "  ");
  if (!d.verdict.empty()) wrapped(lines, d.verdict, "", "  ");
  for (const auto& l : d.digest) wrapped(lines, l, "  ", "      ");
  for (std::size_t i = 0; i < d.sections.size(); ++i) {
    const Section& s = d.sections[i];
    // Charts are drawn in HTML alone: a section of nothing else is not shown here.
    if (s.shown == Shown::kData || (s.lines.empty() && s.table.empty() && s.notes.empty()))
      continue;
    lines.push_back("");
    if (!s.tile) {
      for (auto& l : section_lines(s)) lines.push_back(std::move(l));
      continue;
    }
    std::vector<Lines> tiles;
    for (; i < d.sections.size() && d.sections[i].tile; ++i)
      tiles.push_back(section_lines(d.sections[i]));
    --i;
    tile_rows(lines, tiles);
  }
  TermW o;
  // Every line was made safe for the terminal as it was laid out (sanitize_for_terminal).
  for (const auto& l : lines) o << TermS::from_code(l) << "\n";
  return o.str();
}

}  // namespace peerbench
