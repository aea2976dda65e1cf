// The heat map: cells coloured by how a figure compares with its known-good figure (or, where
// there is none, with its verdict bar), in fixed steps, so two healthy pairs at 386.9 and 387.0
// GB/s get the same colour and a pair at 0.8 of known-good stands out whatever the raw figures.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/present/svg_chart.h"
#include "core/present/svg_parts.h"

namespace peerbench::svg {
namespace {

struct Shade {
  const char* fill;
  const char* ink;  // text on the fill, for contrast
  const char* label;
};

// The known-good steps, best first; `below-expected` flags under 0.85 by default.
const Shade kExpectedShades[] = {
    {"#1a9850", "#fff", "0.95 or more of known-good"},
    {"#a6d96a", "#222", "0.85 to 0.95 of known-good"},
    {"#fee08b", "#222", "0.75 to 0.85 of known-good"},
    {"#fc8d59", "#222", "0.50 to 0.75 of known-good"},
    {"#d73027", "#fff", "under 0.50 of known-good"},
};
const Shade kMeetsBar = {"#9ecae1", "#222", "meets its bar (no known-good figure)"};
const Shade kUnderBar = {"#b2182b", "#fff", "under its bar (no known-good figure)"};
const Shade kNoFigure = {
    "#e6e6e6", "#222",
    "nothing to compare with, not measured, or not the link's figure (a mark after it)"};

const Shade& shade_of(const HeatCell& c) {
  switch (c.basis) {
    case Basis::kExpected: {
      const double bounds[] = {0.95, 0.85, 0.75, 0.50};
      for (int i = 0; i < 4; ++i) {
        if (c.goodness >= bounds[i]) return kExpectedShades[i];
      }
      return kExpectedShades[4];
    }
    case Basis::kBar:
      return c.goodness >= 1.0 ? kMeetsBar : kUnderBar;
    case Basis::kNone:
      break;
  }
  return kNoFigure;
}

std::string swatch(const Shade& s) {
  return fmt::format(
      "<rect x=\"0\" y=\"0\" width=\"12\" height=\"12\" fill=\"{}\" "
      "stroke=\"#999\"/>",
      s.fill);
}

struct Layout {
  double cell_w = 86, cell_h = 28;
  double left = 0, top = 0;  // the grid's corner
  int width = 0, height = 0;
  double legend_height = 0;
  std::vector<std::string> note_lines;
};

std::string column_label(const HeatMap& h, std::size_t c) {
  const std::string unit = c < h.column_units.size() ? h.column_units[c] : "";
  return h.columns[c] + (unit.empty() ? "" : " (" + unit + ")");
}

bool row_flagged(const HeatMap& h, std::size_t r) {
  return r < h.row_flagged.size() && h.row_flagged[r];
}

std::string row_label(const HeatMap& h, std::size_t r) {
  const std::string note = r < h.row_notes.size() ? h.row_notes[r] : "";
  return h.rows[r] + (note.empty() ? "" : "  " + note) + (row_flagged(h, r) ? "  FLAGGED" : "");
}

bool uses(const HeatMap& h, Basis b) {
  for (const auto& row : h.cells) {
    for (const auto& c : row) {
      if (c.basis == b) return true;
    }
  }
  return false;
}

std::vector<LegendEntry> legend_entries(const HeatMap& h) {
  std::vector<LegendEntry> out;
  for (const auto& s : kExpectedShades) out.push_back({s.label, swatch(s)});
  if (uses(h, Basis::kBar)) {
    out.push_back({kMeetsBar.label, swatch(kMeetsBar)});
    out.push_back({kUnderBar.label, swatch(kUnderBar)});
  }
  out.push_back({kNoFigure.label, swatch(kNoFigure)});
  if (std::any_of(h.row_flagged.begin(), h.row_flagged.end(), [](bool f) { return f; })) {
    out.push_back({"FLAGGED after a row: a flag about the pair as a whole (see the verdicts)", ""});
  }
  out.push_back({"outlined: flagged by its verdict",
                 "<rect x=\"1\" y=\"1\" width=\"10\" height=\"10\" fill=\"#fff\" stroke=\"#000\" "
                 "stroke-width=\"2.5\"/>"});
  return out;
}

std::string caption(const HeatMap& h) {
  return "columns: " + h.column_heading + "; rows: " + h.row_heading;
}

// "nccl-sendrecv-bidir (busbw GB/s both ways @ 64M)" whole: at 40 it lost its size (an audit).
constexpr std::size_t kColumnLabelChars = 56;

Layout layout_of(const HeatMap& h, const std::vector<LegendEntry>& entries) {
  Layout l;
  std::size_t row_chars = h.row_heading.size(), col_chars = 0;
  for (std::size_t r = 0; r < h.rows.size(); ++r)
    row_chars = std::max(row_chars, std::min<std::size_t>(row_label(h, r).size(), 34));
  for (std::size_t c = 0; c < h.columns.size(); ++c)
    col_chars = std::max(col_chars, std::min(column_label(h, c).size(), kColumnLabelChars));
  // Column labels slant up at 35 degrees: their height and the room they take on the right.
  const double label_len = 6.4 * static_cast<double>(col_chars);
  l.left = 20 + 7.0 * static_cast<double>(row_chars);
  l.top = 64 + label_len * 0.574;
  const double grid_w = l.cell_w * static_cast<double>(h.columns.size());
  const double grid_h = l.cell_h * static_cast<double>(h.rows.size());
  // The caption under the title is as wide as its words (12 px text: about 7 px a character); a
  // map of one or two columns is narrower than that, and clipped it ("rows: GPU pair a").
  const double caption_w = 32 + 7.0 * static_cast<double>(caption(h).size());
  l.width = static_cast<int>(std::max({l.left + grid_w + label_len * 0.82 + 10, caption_w, 420.0}));
  l.note_lines = wrap_px(h.note, l.width - 32, 11);
  l.legend_height = legend(16, 0, entries, l.width - 50).height;
  l.height = static_cast<int>(l.top + grid_h + 34 + l.legend_height +
                              15.0 * static_cast<double>(l.note_lines.size()) + 8);
  return l;
}

std::string grid_labels(const HeatMap& h, const Layout& l) {
  std::string o;
  o += text(16, 44, caption(h), "start", "axis-label");
  for (std::size_t c = 0; c < h.columns.size(); ++c) {
    const double x = l.left + l.cell_w * (static_cast<double>(c) + 0.5);
    const double y = l.top - 8;
    o += text(x, y, shorten(column_label(h, c), kColumnLabelChars), "start", "tick",
              fmt::format("transform=\"rotate(-35 {} {})\"", num(x), num(y)));
  }
  o += text(l.left - 8, l.top - 8, h.row_heading, "end", "axis-label");
  for (std::size_t r = 0; r < h.rows.size(); ++r) {
    const double y = l.top + l.cell_h * (static_cast<double>(r) + 0.5) + 4;
    o += text(l.left - 8, y, shorten(row_label(h, r), 34), "end",
              row_flagged(h, r) ? "tick flagged-row" : "tick");
  }
  return o;
}

std::string grid_cells(const HeatMap& h, const Layout& l) {
  std::string o;
  for (std::size_t r = 0; r < h.cells.size() && r < h.rows.size(); ++r) {
    for (std::size_t c = 0; c < h.cells[r].size() && c < h.columns.size(); ++c) {
      const HeatCell& cell = h.cells[r][c];
      const Shade& s = shade_of(cell);
      const double x = l.left + l.cell_w * static_cast<double>(c);
      const double y = l.top + l.cell_h * static_cast<double>(r);
      const std::string tip = row_label(h, r) + ", " + column_label(h, c) + ": " + cell.text +
                              (cell.detail.empty() ? "" : "; " + cell.detail) +
                              (cell.flagged ? "; flagged" : "");
      o += fmt::format(
          "<g><title>{}</title><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" "
          "stroke=\"{}\" stroke-width=\"{}\"/>",
          esc(tip), num(x + 1), num(y + 1), num(l.cell_w - 2), num(l.cell_h - 2), s.fill,
          cell.flagged ? "#000" : "#fff", cell.flagged ? "2.5" : "1");
      o += text(x + l.cell_w / 2, y + l.cell_h / 2 + 4, shorten(cell.text, 12), "middle",
                "cell-text", fmt::format("fill=\"{}\"", s.ink));
      o += "</g>";
    }
  }
  return o;
}

// "(1.00)" after a figure: its ratio to known-good; "(1.35 of bar)" where there is none.
std::string ratio_in_table(const HeatCell& c) {
  if (c.basis == Basis::kExpected) return " (" + num(c.goodness, 2) + ")";
  if (c.basis == Basis::kBar) return " (" + num(c.goodness, 2) + " of bar)";
  return "";
}

std::string heat_table(const HeatMap& h) {
  std::vector<std::string> head{h.row_heading};
  std::vector<bool> numeric{false};
  for (std::size_t c = 0; c < h.columns.size(); ++c) {
    const std::string unit = c < h.column_units.size() ? h.column_units[c] : "";
    head.push_back(h.columns[c] + (unit.empty() ? "" : "\n" + unit));
    numeric.push_back(true);
  }
  head.insert(head.end(), h.table_extra_head.begin(), h.table_extra_head.end());
  std::vector<std::vector<std::string>> rows;
  for (std::size_t r = 0; r < h.rows.size(); ++r) {
    std::vector<std::string> row{row_label(h, r)};
    for (std::size_t c = 0; c < h.columns.size(); ++c) {
      const HeatCell* cell = r < h.cells.size() && c < h.cells[r].size() ? &h.cells[r][c] : nullptr;
      row.push_back(!cell ? ""
                          : cell->text + ratio_in_table(*cell) + (cell->flagged ? " FLAGGED" : ""));
    }
    if (r < h.table_extra.size())
      row.insert(row.end(), h.table_extra[r].begin(), h.table_extra[r].end());
    rows.push_back(std::move(row));
  }
  return html_table(head, rows, numeric);
}

}  // namespace

std::string render_heat_map(const HeatMap& h) {
  const auto entries = legend_entries(h);
  const Layout l = layout_of(h, entries);
  std::string o = svg_open(l.width, l.height, h.title,
                           "Heat map: " + std::to_string(h.rows.size()) + " rows by " +
                               std::to_string(h.columns.size()) +
                               " columns, coloured by the ratio to the known-good figure; the "
                               "same figures and ratios are in the table beside it.");
  o += text(16, 24, shorten(h.title, static_cast<std::size_t>(l.width / 8.2)), "start", "title");
  o += grid_labels(h, l);
  o += grid_cells(h, l);
  const double below = l.top + l.cell_h * static_cast<double>(h.rows.size()) + 20;
  o += legend(16, below, entries, l.width - 50).svg;
  for (std::size_t i = 0; i < l.note_lines.size(); ++i) {
    o += text(16, below + l.legend_height + 12 + 15.0 * static_cast<double>(i), l.note_lines[i],
              "start", "note");
  }
  o += "</svg>";
  return figure(h.title, o, heat_table(h),
                "In parentheses: the ratio to the known-good figure (under 1 is worse), or to the "
                "verdict's bar where there is none.");
}

}  // namespace peerbench::svg
