#pragma once
// What the SVG charts share (core/svg_chart.h): escaped text, numbers, colours, axes, the
// figure around a chart. Internal to the chart files.
#include <string>
#include <vector>

namespace peerbench::svg {

// Text for SVG or HTML content and attributes: escaped, and made of valid characters only.
std::string esc(const std::string& s);
// A coordinate or figure: fixed decimals, "-0" never.
std::string num(double v, int decimals = 1);

// Colour-blind-safe series colours (Okabe and Ito), cycled; a marker shape per cycle.
std::string series_colour(std::size_t i);
// The line's dash for series slot i: solid for the first 8, then a dash per round of the
// palette, so two series of one colour differ in their lines as well as their markers (an audit:
// ce-read and staged read as one orange line). "" or ' stroke-dasharray="..."'.
std::string series_dash(std::size_t i);
// An SVG marker (circle, square, diamond, triangle) for series i at (x, y).
std::string series_marker(std::size_t i, double x, double y, const std::string& colour,
                          const std::string& tooltip);

// About `target` round steps (1, 2, 2.5 or 5 x 10^k) from `lo` to past `hi`.
std::vector<double> nice_ticks(double lo, double hi, int target);

// <text> at (x, y): anchor start|middle|end; `extra` attributes as written.
std::string text(double x, double y, const std::string& content, const std::string& anchor,
                 const std::string& cls, const std::string& extra = "");

// The <svg> opening: its size, and its accessible name and description.
std::string svg_open(int width, int height, const std::string& title, const std::string& desc);

// The width `s` takes in the charts' sans-serif at `font_px`: DejaVu Sans's advances (the widest
// of the common sans faces, and Chromium's on Linux), so text measured here fits in any of them.
// Characters past ASCII count as a full em.
double text_width(const std::string& s, double font_px, bool bold = false);

// `s` in lines no wider than `max_px` at `font_px`, broken at spaces; a word wider than that is
// broken inside (never clipped).
std::vector<std::string> wrap_px(const std::string& s, double max_px, double font_px,
                                 bool bold = false);

// A legend of swatches or markers, one entry per row (a label too wide for `max_text_px` wraps
// onto more), from (x, y) down; its size, so the chart is made to hold it whole.
struct LegendEntry {
  std::string label;
  std::string swatch;  // an SVG fragment drawn at the entry's left, 12 px square, or ""
};
struct Legend {
  std::string svg;
  double width = 0, height = 0;
};
inline constexpr double kLegendFont = 11;  // svg.chart .legend-text
Legend legend(double x, double y, const std::vector<LegendEntry>& entries, double max_text_px);

// "long name..." within `max_chars` characters (UTF-8 aware), for labels inside a chart; the
// full text is in the table and the tooltip.
std::string shorten(const std::string& s, std::size_t max_chars);

// `s` in lines of at most `max_chars` characters, broken at spaces (a longer word stays whole).
std::vector<std::string> wrap(const std::string& s, std::size_t max_chars);

// The figure: the title as its caption (for screen readers: the chart shows its own), then the
// SVG and the table side by side, `table_note` above the table.
std::string figure(const std::string& title, const std::string& svg, const std::string& table,
                   const std::string& table_note = "");
// The same with the chart drawn as panels (small multiples), each with its own table.
struct Panel {
  std::string svg, table, table_note;
};
std::string figure(const std::string& title, const std::vector<Panel>& panels);

// An HTML table: head row, body rows; `numeric` columns right-aligned.
std::string html_table(const std::vector<std::string>& head,
                       const std::vector<std::vector<std::string>>& rows,
                       const std::vector<bool>& numeric);

}  // namespace peerbench::svg
