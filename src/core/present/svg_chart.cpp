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

constexpr double kPlotWidth = 458, kPlotHeight = 234;
constexpr double kLegendTextMax = 260;  // px of label a legend line holds before it wraps
constexpr double kTitleFont = 14, kAxisFont = 12, kNoteFont = 11;

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

// The y axis, one for every panel of a chart: figures from zero, so bars of health compare by
// eye; ratios around their reference, and past the noise band by kBandMargin at least.
struct YAxis {
  std::vector<double> ticks;
  int decimals = 0;
};

YAxis y_axis(const LineChart& c) {
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
    if (c.band) {
      lo = std::min(lo, *c.reference - *c.band - kBandMargin);
      hi = std::max(hi, *c.reference + *c.band + kBandMargin);
    }
  }
  if (lo > hi) lo = 0, hi = 1;
  const double pad = std::max((hi - lo) * 0.08, std::abs(hi) * 0.02 + 1e-9);
  YAxis y;
  y.ticks = nice_ticks(c.reference ? lo - pad : std::min(0.0, lo), hi + pad, 5);
  // As many decimals as the ticks need to print exactly: 0.025 steps read "0.93, 0.95" (audit).
  for (y.decimals = 0; y.decimals < 4; ++y.decimals) {
    const double scale = std::pow(10.0, y.decimals);
    if (std::all_of(y.ticks.begin(), y.ticks.end(), [&](double t) {
          return std::abs(std::round(t * scale) - t * scale) < 1e-6 * scale;
        }))
      break;
  }
  return y;
}

// Where a panel's plot area sits, how figures map onto it, and the text around it, measured.
struct Frame {
  int width = 0, height = 0;
  double left = 0, right = 0, top = 0, bottom = 0;
  double x_lo = 0, x_hi = 1, y_lo = 0, y_hi = 1;
  std::vector<std::string> title_lines, y_label_lines, note_lines;
  Legend legend;
  double px(double x) const { return left + (x - x_lo) / (x_hi - x_lo) * (right - left); }
  double py(double y) const { return bottom - (y - y_lo) / (y_hi - y_lo) * (bottom - top); }
};

std::vector<LegendEntry> line_legend(const LineChart& c);

Frame line_frame(const LineChart& c, const std::set<double>& xs, const YAxis& y) {
  Frame f;
  f.y_label_lines = wrap_px(c.y_label, kPlotHeight, kAxisFont);
  f.left = 58 + 14.0 * static_cast<double>(f.y_label_lines.size());
  f.right = f.left + kPlotWidth;
  // The legend beside the plot, its labels measured and wrapped: never clipped (an audit found
  // "nccl-allreduce known-good, H200 SXM..." cut at 36 characters).
  f.legend = legend(f.right + 16, 0, line_legend(c), kLegendTextMax);
  f.width = static_cast<int>(std::ceil(f.right + 16 + std::max(60.0, f.legend.width) + 16));
  f.title_lines = wrap_px(c.title, f.width - 32, kTitleFont, true);
  f.top = 44 + 18.0 * static_cast<double>(f.title_lines.size() - 1);
  f.bottom = f.top + kPlotHeight;
  f.note_lines =
      c.note.empty() ? std::vector<std::string>{} : wrap_px(c.note, f.width - 32, kNoteFont);
  const double under = f.bottom + 58 + 15.0 * static_cast<double>(f.note_lines.size());
  f.height = static_cast<int>(std::ceil(std::max(under, f.top + f.legend.height + 8)));
  f.legend = legend(f.right + 16, f.top, line_legend(c), kLegendTextMax);
  f.y_lo = y.ticks.front();
  f.y_hi = y.ticks.back();
  if (xs.empty()) return f;
  f.x_lo = axis_x(c, *xs.begin()) - (on_size_axis(c) ? 0.4 : 0.5);
  f.x_hi = axis_x(c, *xs.rbegin()) + (on_size_axis(c) ? 0.4 : 0.5);
  return f;
}

std::string line_axes(const LineChart& c, const Frame& f, const std::set<double>& xs,
                      const YAxis& y) {
  std::string o;
  for (double t : y.ticks) {
    o += fmt::format("<line class=\"grid\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>", num(f.left),
                     num(f.py(t)), num(f.right), num(f.py(t)));
    o += text(f.left - 6, f.py(t) + 4, num(t, y.decimals), "end", "tick");
  }
  double last_end = -1e9;
  for (double x : xs) {
    const double px = f.px(axis_x(c, x));
    o += fmt::format("<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", num(px),
                     num(f.top), num(f.bottom));
    // A label per tick where it fits, never overlapping the one before.
    const std::string label = shorten(tick_text(c, x), 14);
    const double half = text_width(label, 11) / 2;
    if (px - half < last_end + 6) continue;
    last_end = px + half;
    o += text(px, f.bottom + 16, label, "middle", "tick");
  }
  o += fmt::format(
      "<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>"
      "<line class=\"axis\" x1=\"{0}\" y1=\"{3}\" x2=\"{0}\" y2=\"{1}\"/>",
      num(f.left), num(f.bottom), num(f.right), num(f.top));
  o += text((f.left + f.right) / 2, f.bottom + 40, c.x_label, "middle", "axis-label");
  const double mid = (f.top + f.bottom) / 2;
  for (std::size_t i = 0; i < f.y_label_lines.size(); ++i) {
    const double x = 16 + 14.0 * static_cast<double>(i);
    o += text(x, mid, f.y_label_lines[i], "middle", "axis-label",
              fmt::format("transform=\"rotate(-90 {} {})\"", num(x), num(mid)));
  }
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
const char* const kBandFill = "#dcebdc";

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

// The noise band and the reference line, under the series; their words are in the legend, where
// they cover no line (the reference's label had sat on the plot).
std::string reference_marks(const LineChart& c, const Frame& f) {
  if (!c.reference) return "";
  std::string o;
  if (c.band) {
    const double top = f.py(std::min(*c.reference + *c.band, f.y_hi));
    const double bottom = f.py(std::max(*c.reference - *c.band, f.y_lo));
    o += fmt::format(
        "<rect class=\"band\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\">"
        "<title>{}</title></rect>",
        num(f.left), num(top), num(f.right - f.left), num(std::max(0.0, bottom - top)), kBandFill,
        esc(c.band_label));
  }
  if (*c.reference >= f.y_lo && *c.reference <= f.y_hi) {
    const double y = f.py(*c.reference);
    o += fmt::format("<line class=\"ref\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>", num(f.left),
                     num(y), num(f.right), num(y));
  }
  return o;
}

// A measured series in the legend: its line and its marker.
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
  if (c.reference && !c.reference_label.empty())
    entries.push_back({c.reference_label + " (" + num(*c.reference, 2) + ")",
                       "<line class=\"ref\" x1=\"0\" y1=\"6\" x2=\"13\" y2=\"6\"/>"});
  if (c.reference && c.band && !c.band_label.empty())
    entries.push_back({c.band_label, fmt::format("<rect x=\"0\" y=\"1\" width=\"13\" height=\"10\" "
                                                 "fill=\"{}\"/>",
                                                 kBandFill)});
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

// One panel: its SVG and its table, on the chart's y axis.
Panel line_panel(const LineChart& c, const YAxis& y, std::size_t of_panels) {
  const auto xs = distinct_x(c);
  const Frame f = line_frame(c, xs, y);
  std::string o = svg_open(
      f.width, f.height, c.title,
      "Line chart: " + c.y_label + " against " + c.x_label + ", " +
          std::to_string(c.series.size()) + " series" +
          (of_panels > 1 ? " (one panel of " + std::to_string(of_panels) + ", on one y scale)"
                         : "") +
          "; the same figures are in the table beside it.");
  for (std::size_t i = 0; i < f.title_lines.size(); ++i)
    o += text(16, 24 + 18.0 * static_cast<double>(i), f.title_lines[i], "start", "title");
  o += line_axes(c, f, xs, y);
  o += reference_marks(c, f);
  o += line_series(c, f);
  o += f.legend.svg;
  for (std::size_t i = 0; i < f.note_lines.size(); ++i)
    o += text(16, f.bottom + 62 + 15.0 * static_cast<double>(i), f.note_lines[i], "start", "note");
  o += "</svg>";
  return {o, line_table(c, xs), ""};
}

}  // namespace

std::string render_line_chart(const LineChart& c) {
  const YAxis y = y_axis(c);  // the whole chart's: its panels compare by eye
  const auto panels = line_panels(c);
  std::vector<Panel> drawn;
  for (const auto& p : panels) drawn.push_back(line_panel(p, y, panels.size()));
  return figure(c.title, drawn);
}

namespace {

// The first word of a series' name: "nccl-allreduce" of "nccl-allreduce (float/sum)".
std::string first_word(const std::string& name) {
  return name.substr(0, name.find(' '));
}

// Each measured series with the reference lines named after it, in the chart's order; the
// reference lines of no one series go in `shared`.
std::vector<std::vector<std::size_t>> series_units(const LineChart& c,
                                                   std::vector<std::size_t>& shared) {
  std::vector<std::vector<std::size_t>> units;
  std::map<std::string, std::size_t> unit_of;  // first word -> unit
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    if (c.series[i].reference) continue;
    unit_of.emplace(first_word(c.series[i].name), units.size());
    units.push_back({i});
  }
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    if (!c.series[i].reference) continue;
    const auto it = unit_of.find(first_word(c.series[i].name));
    if (it == unit_of.end()) {
      shared.push_back(i);
    } else {
      units[it->second].push_back(i);
    }
  }
  return units;
}

}  // namespace

std::vector<LineChart> line_panels(const LineChart& c) {
  if (c.series.size() <= kMaxSeries) return {c};
  std::vector<std::size_t> shared;
  const auto units = series_units(c, shared);
  const std::size_t room = kMaxSeries > shared.size() ? kMaxSeries - shared.size() : 1;
  std::size_t total = 0;
  for (const auto& u : units) total += u.size();
  // As few panels as hold them, as even as the series' units allow: 14 series in two panels,
  // not three.
  std::size_t groups_left = (total + room - 1) / room, remaining = total;
  const auto target = [&] {
    return std::min(room, (remaining + groups_left - 1) / std::max<std::size_t>(groups_left, 1));
  };
  std::vector<std::vector<std::size_t>> groups(1);
  std::size_t in_group = 0, limit = target();
  for (const auto& u : units) {
    if (in_group > 0 && in_group + u.size() > limit) {
      remaining -= in_group;
      groups_left = groups_left > 1 ? groups_left - 1 : 1;
      limit = target();
      groups.emplace_back();
      in_group = 0;
    }
    groups.back().insert(groups.back().end(), u.begin(), u.end());
    in_group += u.size();
  }
  std::vector<LineChart> panels;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    LineChart p = c;
    p.title = c.title + " (" + std::to_string(g + 1) + " of " + std::to_string(groups.size()) + ")";
    p.series.clear();
    auto members = groups[g];
    members.insert(members.end(), shared.begin(), shared.end());
    std::sort(members.begin(), members.end());  // the chart's own order
    for (std::size_t i : members) p.series.push_back(c.series[i]);
    if (g + 1 < groups.size()) p.note.clear();  // said once, under the last panel
    panels.push_back(std::move(p));
  }
  return panels;
}

std::string render(const Chart& c) {
  if (const auto* l = std::get_if<LineChart>(&c)) return render_line_chart(*l);
  if (const auto* h = std::get_if<HeatMap>(&c)) return render_heat_map(*h);
  return render_strip_chart(std::get<StripChart>(c));
}

}  // namespace peerbench::svg
