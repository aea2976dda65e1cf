#pragma once
// Aligned text tables for the terminal, laid out with {fmt}: every column as wide as its widest
// cell (as a terminal shows it), and always at least two spaces between two columns, so a value
// of any length never runs into its neighbour. Cells are made safe for a terminal
// (sanitize_for_terminal) before they are measured, so an escaped control character cannot
// break the alignment either.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace peerbench {

enum class Align { kLeft, kRight };

// Columns are at least this many spaces apart.
inline constexpr std::size_t kColumnGap = 2;

// Width of `s` as {fmt} pads it: UTF-8 code points, East Asian wide characters as 2.
std::size_t display_width(std::string_view s);

// The cells as a terminal shows them: each one that is not plain printable ASCII made safe
// (sanitize_for_terminal); `row` itself when all are (the common case, without a copy).
const std::vector<std::string>& shown_cells(const std::vector<std::string>& row,
                                            std::vector<std::string>& scratch);

// One line of cells in columns of the given widths (a cell wider than its column pushes the rest
// right, still kColumnGap apart). The last column is not padded when left-aligned. No newline.
std::string format_columns(const std::vector<std::string>& cells,
                           const std::vector<std::size_t>& widths, const std::vector<Align>& align);

class TextTable {
 public:
  // One alignment per column; a column without one is left-aligned.
  explicit TextTable(std::vector<Align> align = {});
  // A row (header rows are rows too); a short row is blank to the right. `marked` rows start
  // with the render's mark instead of its indent.
  void add_row(std::vector<std::string> cells, bool marked = false);
  // The widths the columns take: at least `minimum[c]` where given.
  std::vector<std::size_t> widths(const std::vector<std::size_t>& minimum = {}) const;
  // Every row, one line each, after `indent` (or `mark` for a marked row, which should be as
  // wide as `indent`).
  std::string render(const std::string& indent = "  ", const std::string& mark = "* ",
                     const std::vector<std::size_t>& minimum = {}) const;
  bool empty() const { return rows_.empty(); }

 private:
  std::vector<Align> align_;
  std::vector<std::vector<std::string>> rows_;  // sanitized
  std::vector<bool> marked_;
};

}  // namespace peerbench
