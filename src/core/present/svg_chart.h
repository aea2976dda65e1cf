#pragma once
// Charts drawn as SVG inside an HTML page, so a report is one file that needs no Python, no
// script and nothing from outside it. Each chart renders as a <figure>: a title, the SVG (its
// own <title> and <desc> for screen readers, axis labels with units) and beside it a text table
// of the same figures, for screen readers and for copying. Every string is HTML-escaped.
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace peerbench::svg {

// ---- Lines: a figure against size (log-2 axis) or against a run number (categories).
struct Point {
  double x = 0;  // bytes on a size axis; the category's index otherwise
  double y = 0;
  // Shown after y in the table and the tooltip: "3.37 us per op" where a bandwidth at a latency
  // size reads 0.0 and the time is the figure judged.
  std::string aside;
};

struct Series {
  std::string name;
  std::vector<Point> points;
  // A figure to read the others against (known-good), not a measurement: a dashed grey line
  // with hollow markers, and no colour taken from the measured series. One named after a
  // measured series' first word ("nccl-allreduce known-good, ..." beside "nccl-allreduce
  // (float/sum)") is that series' own and stays in its panel; others are drawn in every panel.
  bool reference = false;
};

// The most series one chart draws: eight colours, none used twice. A chart given more is drawn as
// panels of at most eight (small multiples on one y scale), each with its own legend and table.
inline constexpr std::size_t kMaxSeries = 8;
// How far past a noise band the y axis always reaches: a 5 % band is drawn on 0.85 to 1.15 at
// least, so 3 % of noise looks small (an audit: a chart scaled to 0.94-1.04 made it a cliff).
inline constexpr double kBandMargin = 0.10;

struct LineChart {
  std::string title;
  std::string x_label;  // with its unit: "transfer size (bytes, log-2 scale)"
  std::string y_label;  // with its unit: "bandwidth (GB/s, median)"
  // Empty: x is a size in bytes, on a log-2 axis. Else x is an index into these labels.
  std::vector<std::string> categories;
  std::vector<std::string> category_ticks;  // shorter labels for the axis ("" or none: as above)
  std::vector<Series> series;
  int decimals = 1;
  std::optional<double> reference;  // a horizontal line (1.0 on a ratio chart)
  std::string reference_label;
  // Around the reference, the change a comparison calls noise (its threshold: 0.05 shades 0.95 to
  // 1.05); the axis reaches kBandMargin past it.
  std::optional<double> band;
  std::string band_label;
  std::string note;  // under the chart: what it leaves out, how to read it
};

// The panels a chart is drawn as: itself, or past kMaxSeries series several charts of its series
// (a measured series with its own reference lines), as even in size as they can be, titled "(1 of
// 2)".
std::vector<LineChart> line_panels(const LineChart& c);

// ---- A heat map: one cell per row and column, coloured by how a figure compares with what it
// should be, so healthy cells look alike whatever their raw figures.
enum class Basis {
  kNone,      // nothing to compare with: grey
  kExpected,  // `goodness` is the figure / its known-good figure (under 1 is worse)
  kBar,       // `goodness` is the figure / its verdict bar (under 1 fails the bar)
};

struct HeatCell {
  std::string text;  // the figure as the table shows it, or a status ("n/a", "timeout")
  Basis basis = Basis::kNone;
  double goodness = 0;
  bool flagged = false;  // outlined
  std::string detail;    // the tooltip and the table's second line: "1.00 of 396.9 (source)"
};

struct HeatMap {
  std::string title;
  std::string row_heading;     // "pair"
  std::string column_heading;  // "method"
  std::vector<std::string> rows;
  std::vector<std::string> row_notes;  // per row, shown after its label: "NV18"
  std::vector<bool> row_flagged;       // per row: flagged as a whole (its label marked)
  std::vector<std::string> columns;
  std::vector<std::string> column_units;     // per column: "GB/s @ 1G"
  std::vector<std::vector<HeatCell>> cells;  // [row][column]
  std::string note;                          // under the chart
  // Columns of the text table only, after the cells' (the NCCL transport of each pair).
  std::vector<std::string> table_extra_head;
  std::vector<std::vector<std::string>> table_extra;  // [row][extra column]
};

// ---- A strip per group: where each member sits against the group's median, outliers named.
struct StripPoint {
  double goodness = 1;  // the member's figure against the median, under 1 worse
  std::string name;     // "node0003 0000:1B:00.0->0000:43:00.0"
  std::string detail;   // "316.2 GB/s, 0.80 of the median"
  bool outlier = false;
  // A member drawn apart and named though it may be no outlier, with these words after its name:
  // a node short of the fleet's size, drawn at the largest size it has ("stopped at 64M").
  std::string note;
  bool labelled() const { return outlier || !note.empty(); }
};

struct StripRow {
  std::string label;                     // "ce-write NV18 @ 1G"
  std::string sublabel;                  // a second line under it, smaller: "node0004: short of 1G"
  std::vector<std::string> table_cells;  // the text table's columns after the label
  double p25 = 1, p75 = 1, min = 1, max = 1;  // against the median
  std::vector<StripPoint> points;
  // The bar the group's verdicts held its members to, against the median (a member left of it
  // fails), where one bar held them all: a site baseline's, known-good's. The median can drift
  // with the fleet; the bar does not (an audit: half a fleet slowed sat on "the median").
  std::optional<double> bar;
  std::string bar_detail;  // "356.6 GB/s, site baseline"
};

// The most members of one row named beside their marks (the worst first); the table names more.
inline constexpr std::size_t kStripNamedPerRow = 5;

struct StripChart {
  std::string title;
  std::string x_label;
  std::vector<std::string> table_head;  // the text table's headings after the label's
  std::vector<StripRow> rows;
  std::optional<double> threshold;  // the outlier line (0.9 for a 10 % tolerance)
  std::string threshold_label;
};

using Chart = std::variant<LineChart, HeatMap, StripChart>;

// The <figure> of a chart: title, SVG and its text table.
std::string render(const Chart& c);
std::string render_line_chart(const LineChart& c);
std::string render_heat_map(const HeatMap& h);
std::string render_strip_chart(const StripChart& s);

// Style rules the figures need, for the page's <style>.
extern const char* const kChartCss;

}  // namespace peerbench::svg
