#include "core/present/text_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "core/base/text.h"

namespace peerbench {
namespace {

bool plain_ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u >= 0x20 && u < 0x7f;
  });
}

Align align_of(const std::vector<Align>& align, std::size_t c) {
  return c < align.size() ? align[c] : Align::kLeft;
}

}  // namespace

std::size_t display_width(std::string_view s) {
  if (plain_ascii(s)) return s.size();  // the common case, without formatting anything
  // {fmt} pads by its own measure of the text; ask it: padding to `w` adds w - width(s).
  const std::size_t w = 2 * s.size();
  const std::size_t padded = fmt::formatted_size("{:<{}}", s, w);
  return s.size() + w - padded;
}

const std::vector<std::string>& shown_cells(const std::vector<std::string>& row,
                                            std::vector<std::string>& scratch) {
  if (std::all_of(row.begin(), row.end(), [](const std::string& c) { return plain_ascii(c); }))
    return row;
  scratch.clear();
  for (const auto& c : row) scratch.push_back(plain_ascii(c) ? c : sanitize_for_terminal(c));
  return scratch;
}

std::string format_columns(const std::vector<std::string>& cells,
                           const std::vector<std::size_t>& widths,
                           const std::vector<Align>& align) {
  std::string out;
  auto it = std::back_inserter(out);
  const std::size_t n = std::max(cells.size(), widths.size());
  std::size_t owed = 0;  // how far a wide cell pushed this line past its columns
  for (std::size_t c = 0; c < n; ++c) {
    const std::string_view cell = c < cells.size() ? std::string_view(cells[c]) : "";
    const std::size_t width = c < widths.size() ? widths[c] : 0;
    const std::size_t shown = display_width(cell);
    const bool last = c + 1 == n;
    if (c > 0) out.append(kColumnGap, ' ');
    // A cell wider than its column takes the room it needs; the next ones give it back where
    // they have spare room, so one long value shifts the line as little as possible.
    std::size_t room = width > owed ? width - owed : 0;
    room = std::max(room, shown);
    owed = owed + shown > width ? owed + shown - width : 0;
    if (align_of(align, c) == Align::kRight) {
      fmt::format_to(it, "{:>{}}", cell, room);
    } else if (last) {
      out.append(cell);
    } else {
      fmt::format_to(it, "{:<{}}", cell, room);
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

TextTable::TextTable(std::vector<Align> align) : align_(std::move(align)) {}

void TextTable::add_row(std::vector<std::string> cells, bool marked) {
  for (auto& c : cells) {
    if (!plain_ascii(c)) c = sanitize_for_terminal(c);  // measured as the terminal shows it
  }
  rows_.push_back(std::move(cells));
  marked_.push_back(marked);
}

std::vector<std::size_t> TextTable::widths(const std::vector<std::size_t>& minimum) const {
  std::vector<std::size_t> w = minimum;
  for (const auto& row : rows_) {
    if (row.size() > w.size()) w.resize(row.size(), 0);
    for (std::size_t c = 0; c < row.size(); ++c) w[c] = std::max(w[c], display_width(row[c]));
  }
  return w;
}

std::string TextTable::render(const std::string& indent, const std::string& mark,
                              const std::vector<std::size_t>& minimum) const {
  const auto w = widths(minimum);
  std::string out;
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    out += marked_[r] ? mark : indent;
    out += format_columns(rows_[r], w, align_);
    out += '\n';
  }
  return out;
}

}  // namespace peerbench
