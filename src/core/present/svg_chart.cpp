#include "core/present/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/model/sizes.h"
#include "core/present/svg_parts.h"

namespace peerbench::svg {

const char* const kChartCss =
    // The caption repeats the chart's own title for screen readers; the eye reads it in the SVG.
    "figure.chart{margin:1.2em 0}figure.chart figcaption{position:absolute;width:1px;height:1px;"
    "overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}"
    ".chart-body{display:flex;flex-wrap:wrap;gap:1.5em;align-items:flex-start}"
    "svg.chart{max-width:100%;height:auto;font-family:sans-serif}"
    "svg.chart .bg{fill:#fff}svg.chart .title{font-size:14px;font-weight:bold;fill:#222}"
    "svg.chart .axis-label{font-size:12px;fill:#222}svg.chart .tick{font-size:11px;fill:#444}"
    "svg.chart .legend-text{font-size:11px;fill:#222}svg.chart .cell-text{font-size:11px}"
    "svg.chart .grid{stroke:#e3e3e3;stroke-width:1}svg.chart .axis{stroke:#666;stroke-width:1}"
    "svg.chart .ref{stroke:#555;stroke-width:1;stroke-dasharray:5 4}"
    "svg.chart .note{font-size:11px;fill:#444}svg.chart .flagged-row{fill:#b00;font-weight:bold}"
    // A wide table beside a chart wraps "387.0 (1.00)" rather than run off the page (an audit).
    ".chart-table{max-width:100%;overflow-x:auto}.chart-table table{font-size:85%;margin:0}"
    ".chart-table td.n{white-space:normal}.chart-table "
    "p{margin:0 0 .4em;font-size:90%}";

namespace {

// Where a line chart's plot area sits, and how figures map onto it.
struct Frame {
  int width = 720, height = 340;
  double left = 72, right = 530, top = 44, bottom = 278;
  double x_lo = 0, x_hi = 1, y_lo = 0, y_hi = 1;
  double px(double x) const { return left + (x - x_lo) / (x_hi - x_lo) * (right - left); }
  double py(double y) const { return bottom - (y - y_lo) / (y_hi - y_lo) * (bottom - top); }
};

bool on_size_axis(const LineChart& c) {
  return c.categories.empty();
}

// The x of a point on the axis: log2 of a size, or the category's index.
double axis_x(const LineChart& c, double x) {
  return on_size_axis(c) ? std::log2(std::max(x, 1.0)) : x;
}

std::string point_text(const LineChart& c, const Point& p) {
  return num(p.y, c.decimals) + (p.aside.empty() ? "" : " (" + p.aside + ")");
}

std::string x_text(const LineChart& c, double x) {
  if (on_size_axis(c)) return format_size_compact(static_cast<std::uint64_t>(x));
  const auto i = static_cast<std::size_t>(x);
  return i < c.categories.size() ? c.categories[i] : num(x, 0);
}

// The axis's label of x: a category's short tick where it has one.
std::string tick_text(const LineChart& c, double x) {
  const auto i = static_cast<std::size_t>(x);
  if (!on_size_axis(c) && i < c.category_ticks.size() && !c.category_ticks[i].empty())
    return c.category_ticks[i];
  return x_text(c, x);
}

std::set<double> distinct_x(const LineChart& c) {
  std::set<double> xs;
  for (const auto& s : c.series) {
    for (const auto& p : s.points) xs.insert(p.x);
  }
  if (!on_size_axis(c)) {
    for (std::size_t i = 0; i < c.categories.size(); ++i) xs.insert(static_cast<double>(i));
  }
  return xs;
}

// Characters of a legend label shown in full; longer ones end in an ellipsis.
constexpr std::size_t kLegendChars = 36;

Frame line_frame(const LineChart& c, const std::set<double>& xs, std::vector<double>& y_ticks) {
  Frame f;
  std::size_t legend_chars = 4;
  for (const auto& s : c.series) legend_chars = std::max(legend_chars, s.name.size());
  legend_chars = std::min(legend_chars, kLegendChars);
  f.width = static_cast<int>(f.right + 40 + 6.4 * static_cast<double>(legend_chars));
  f.height = std::max(340, 44 + 18 * static_cast<int>(c.series.size()) + 80);
  f.bottom = f.height - 62;
  double lo = 1e300, hi = -1e300;
  for (const auto& s : c.series) {
    for (const auto& p : s.points) {
      lo = std::min(lo, p.y);
      hi = std::max(hi, p.y);
    }
  }
  if (c.reference) {
    lo = std::min(lo, *c.reference);
    hi = std::max(hi, *c.reference);
  }
  if (lo > hi) lo = 0, hi = 1;
  // Figures from zero, so bars of health compare by eye; ratios around their reference.
  const double pad = std::max((hi - lo) * 0.08, std::abs(hi) * 0.02 + 1e-9);
  y_ticks = nice_ticks(c.reference ? lo - pad : std::min(0.0, lo), hi + pad, 5);
  f.y_lo = y_ticks.front();
  f.y_hi = y_ticks.back();
  if (xs.empty()) return f;
  f.x_lo = axis_x(c, *xs.begin()) - (on_size_axis(c) ? 0.4 : 0.5);
  f.x_hi = axis_x(c, *xs.rbegin()) + (on_size_axis(c) ? 0.4 : 0.5);
  return f;
}

std::string line_axes(const LineChart& c, const Frame& f, const std::set<double>& xs,
                      const std::vector<double>& y_ticks) {
  std::string o;
  for (double t : y_ticks) {
    o += fmt::format("<line class=\"grid\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>", num(f.left),
                     num(f.py(t)), num(f.right), num(f.py(t)));
    o +=
        text(f.left - 6, f.py(t) + 4, num(t, std::abs(f.y_hi - f.y_lo) < 2 ? 2 : 0), "end", "tick");
  }
  double last_label = -1e9;
  for (double x : xs) {
    const double px = f.px(axis_x(c, x));
    o += fmt::format("<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", num(px),
                     num(f.top), num(f.bottom));
    if (px - last_label < 36) continue;  // a label per tick where they fit, never overlapping
    last_label = px;
    o += text(px, f.bottom + 16, shorten(tick_text(c, x), 14), "middle", "tick");
  }
  o += fmt::format(
      "<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>"
      "<line class=\"axis\" x1=\"{0}\" y1=\"{3}\" x2=\"{0}\" y2=\"{1}\"/>",
      num(f.left), num(f.bottom), num(f.right), num(f.top));
  o += text((f.left + f.right) / 2, f.bottom + 40, c.x_label, "middle", "axis-label");
  const double mid = (f.top + f.bottom) / 2;
  o += text(16, mid, c.y_label, "middle", "axis-label",
            fmt::format("transform=\"rotate(-90 16 {})\"", num(mid)));
  return o;
}

// A measured series' colour and marker index: reference series take none, so a pair keeps its
// colour whether or not a known-good line is drawn.
std::vector<std::size_t> series_slots(const LineChart& c) {
  std::vector<std::size_t> slots;
  std::size_t next = 0;
  for (const auto& s : c.series) slots.push_back(s.reference ? 0 : next++);
  return slots;
}

const char* const kReferenceColour = "#666";

std::string reference_marker(double x, double y, const std::string& tooltip) {
  return fmt::format(
      "<circle cx=\"{}\" cy=\"{}\" r=\"3.5\" fill=\"#fff\" stroke=\"{}\" "
      "stroke-width=\"1.5\">{}</circle>",
      num(x), num(y), kReferenceColour,
      tooltip.empty() ? "" : "<title>" + esc(tooltip) + "</title>");
}

std::string line_series(const LineChart& c, const Frame& f) {
  std::string o;
  const auto slots = series_slots(c);
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const Series& s = c.series[i];
    auto pts = s.points;
    std::sort(pts.begin(), pts.end(), [](const Point& a, const Point& b) { return a.x < b.x; });
    const std::string colour = s.reference ? kReferenceColour : series_colour(slots[i]);
    std::string line;
    for (const auto& p : pts) line += num(f.px(axis_x(c, p.x))) + "," + num(f.py(p.y)) + " ";
    o += "<g><title>" + esc(s.name) + "</title>";
    if (pts.size() > 1) {
      o += fmt::format(
          "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"{} points=\"{}\"/>", colour,
          s.reference ? "1.5" : "2",
          s.reference ? std::string(" stroke-dasharray=\"6 4\"") : series_dash(slots[i]), line);
    }
    for (const auto& p : pts) {
      const double x = f.px(axis_x(c, p.x)), y = f.py(p.y);
      const std::string tip = s.name + ": " + x_text(c, p.x) + ": " + point_text(c, p);
      o += s.reference ? reference_marker(x, y, tip) : series_marker(slots[i], x, y, colour, tip);
    }
    o += "</g>";
  }
  return o;
}

// A measured series in the legend: its line (dashed past the first 8) and its marker.
std::string measured_swatch(std::size_t slot) {
  const std::string colour = series_colour(slot);
  return fmt::format(
             "<line x1=\"0\" y1=\"6\" x2=\"13\" y2=\"6\" stroke=\"{}\" stroke-width=\"2\"{}/>",
             colour, series_dash(slot)) +
         series_marker(slot, 6.5, 6, colour, "");
}

std::vector<LegendEntry> line_legend(const LineChart& c) {
  std::vector<LegendEntry> entries;
  const auto slots = series_slots(c);
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const Series& s = c.series[i];
    const std::string swatch = s.reference
                                   ? fmt::format(
                                         "<line x1=\"0\" y1=\"6\" x2=\"13\" y2=\"6\" stroke=\"{}\" "
                                         "stroke-width=\"1.5\" stroke-dasharray=\"4 2\"/>",
                                         kReferenceColour) +
                                         reference_marker(6.5, 6, "")
                                   : measured_swatch(slots[i]);
    entries.push_back({s.name, swatch});
  }
  return entries;
}

std::string line_table(const LineChart& c, const std::set<double>& xs) {
  std::vector<std::string> head{on_size_axis(c) ? "size" : "run"};
  std::vector<bool> numeric{on_size_axis(c)};
  for (const auto& s : c.series) {
    head.push_back(s.name);
    numeric.push_back(true);
  }
  std::vector<std::vector<std::string>> rows;
  for (double x : xs) {
    std::vector<std::string> row{x_text(c, x)};
    for (const auto& s : c.series) {
      const auto it =
          std::find_if(s.points.begin(), s.points.end(), [&](const Point& p) { return p.x == x; });
      row.push_back(it == s.points.end() ? "" : point_text(c, *it));
    }
    rows.push_back(std::move(row));
  }
  return html_table(head, rows, numeric);
}

}  // namespace

std::string render_line_chart(const LineChart& c) {
  const auto xs = distinct_x(c);
  std::vector<double> y_ticks;
  const Frame f = line_frame(c, xs, y_ticks);
  std::string o = svg_open(f.width, f.height, c.title,
                           "Line chart: " + c.y_label + " against " + c.x_label + ", " +
                               std::to_string(c.series.size()) +
                               " series; the same figures are in the table beside it.");
  o += text(16, 24, shorten(c.title, static_cast<std::size_t>((f.width - 32) / 8.2)), "start",
            "title");
  o += line_axes(c, f, xs, y_ticks);
  if (c.reference && *c.reference >= f.y_lo && *c.reference <= f.y_hi) {
    const double y = f.py(*c.reference);
    o += fmt::format("<line class=\"ref\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>", num(f.left),
                     num(y), num(f.right), num(y));
    o += text(f.right - 4, y - 5, c.reference_label, "end", "note");
  }
  o += line_series(c, f);
  o += legend(f.right + 16, f.top, line_legend(c), kLegendChars);
  o += "</svg>";
  return figure(c.title, o, line_table(c, xs));
}

std::string render(const Chart& c) {
  if (const auto* l = std::get_if<LineChart>(&c)) return render_line_chart(*l);
  if (const auto* h = std::get_if<HeatMap>(&c)) return render_heat_map(*h);
  return render_strip_chart(std::get<StripChart>(c));
}

}  // namespace peerbench::svg
