// The fleet's spread: one strip per group (method, GPU model, link, size) on a common axis, each
// member against its group's median, the quartiles as a band, the outlier line, and the
// outliers marked and named. Members that are not outliers are drawn one by one up to a limit,
// then as one mark per pixel column with their count, so a fleet of thousands stays small.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/present/svg_chart.h"
#include "core/present/svg_parts.h"

namespace peerbench::svg {
namespace {

constexpr std::size_t kDotsOneByOne = 300;
constexpr std::size_t kNamedPerRow = 3;
constexpr double kBarReach = 0.5;

struct StripLayout {
  int width = 780, height = 0;
  double left = 0, right = 0, top = 62;
  double lo = 0.5, hi = 1.1;
  std::vector<double> row_top, row_height;
  double px(double g) const {
    return left + (std::clamp(g, lo, hi) - lo) / (hi - lo) * (right - left);
  }
};

std::size_t outliers_in(const StripRow& r) {
  return static_cast<std::size_t>(std::count_if(r.points.begin(), r.points.end(),
                                                [](const StripPoint& p) { return p.outlier; }));
}

StripLayout strip_layout(const StripChart& s, std::vector<double>& ticks) {
  StripLayout l;
  std::size_t label_chars = 12;
  double lo = std::min(0.9, s.threshold.value_or(0.9)), hi = 1.05;
  for (const auto& r : s.rows) {
    label_chars = std::max(label_chars, std::min<std::size_t>(r.label.size(), 40));
    lo = std::min(lo, r.min);
    hi = std::max(hi, r.max);
    // A bar far from the figures (5 us of latency against medians of 0.67) squeezed every strip
    // into a sliver (a review): the axis reaches a bar within kBarReach of the median only; the
    // others stay in the table.
    if (r.bar && std::abs(*r.bar - 1) <= kBarReach) {
      lo = std::min(lo, *r.bar);
      hi = std::max(hi, *r.bar);
    }
    for (const auto& p : r.points) {
      lo = std::min(lo, p.goodness);
      hi = std::max(hi, p.goodness);
    }
  }
  ticks = nice_ticks(std::max(0.0, lo - 0.02), std::min(3.0, hi + 0.02), 6);
  l.lo = ticks.front();
  l.hi = ticks.back();
  l.left = 24 + 6.6 * static_cast<double>(label_chars);
  l.right = l.width - 24;
  double y = l.top;
  for (const auto& r : s.rows) {
    const std::size_t named = std::min(outliers_in(r), kNamedPerRow);
    const double h = 36 + 13.0 * static_cast<double>(named > 1 ? named - 1 : 0);
    l.row_top.push_back(y);
    l.row_height.push_back(h);
    y += h;
  }
  const bool bars =
      std::any_of(s.rows.begin(), s.rows.end(), [](const StripRow& r) { return r.bar; });
  const bool off_scale = std::any_of(s.rows.begin(), s.rows.end(), [&](const StripRow& r) {
    return r.bar && (*r.bar < l.lo || *r.bar > l.hi);
  });
  l.height = static_cast<int>(y + 54 + (3 + bars + off_scale) * 18 + 8);
  return l;
}

// A member's vertical place in its strip: spread by its index so dots do not sit on each other.
double jitter(std::size_t i) {
  return static_cast<double>((i * 7919) % 17) - 8.0;
}

std::string strip_axes(const StripChart& s, const StripLayout& l, const std::vector<double>& t) {
  std::string o;
  const double bottom = l.row_top.empty() ? l.top : l.row_top.back() + l.row_height.back();
  for (double v : t) {
    o += fmt::format("<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>",
                     num(l.px(v)), num(l.top), num(bottom));
    o += text(l.px(v), bottom + 16, num(v, 2), "middle", "tick");
  }
  o += fmt::format("<line class=\"axis\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>", num(l.left),
                   num(bottom), num(l.right), num(bottom));
  o += text((l.left + l.right) / 2, bottom + 40, s.x_label, "middle", "axis-label");
  o += fmt::format("<line class=\"ref\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>",
                   num(l.px(1.0)), num(l.top - 6), num(bottom));
  o += text(l.px(1.0), l.top - 10, "fleet median", "middle", "note");
  if (s.threshold) {
    o += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#D55E00\" stroke-width=\"1.5\" "
        "stroke-dasharray=\"6 3\"/>",
        num(l.px(*s.threshold)), num(l.top - 6), num(bottom));
    o += text(l.px(*s.threshold) - 4, l.top - 10, s.threshold_label, "end", "note");
  }
  return o;
}

// The members that are not outliers: each one, or one mark per pixel column past the limit.
std::string members(const StripRow& r, const StripLayout& l, double mid) {
  std::string o;
  std::size_t plain = r.points.size() - outliers_in(r);
  if (plain <= kDotsOneByOne) {
    for (std::size_t i = 0; i < r.points.size(); ++i) {
      const auto& p = r.points[i];
      if (p.outlier) continue;
      o += fmt::format(
          "<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"#0072B2\" fill-opacity=\"0.55\">"
          "<title>{}</title></circle>",
          num(l.px(p.goodness)), num(mid + jitter(i)), esc(p.name + ": " + p.detail));
    }
    return o;
  }
  std::map<int, std::size_t> per_column;
  for (const auto& p : r.points) {
    if (!p.outlier) ++per_column[static_cast<int>(std::lround(l.px(p.goodness) / 2))];
  }
  for (const auto& [column, n] : per_column) {
    o += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"2\" height=\"16\" fill=\"#0072B2\" "
        "fill-opacity=\"{}\"><title>{} members here</title></rect>",
        num(column * 2.0 - 1), num(mid - 8), num(std::min(1.0, 0.25 + 0.05 * n), 2), n);
  }
  return o;
}

std::string outliers(const StripRow& r, const StripLayout& l, double mid) {
  std::string o;
  std::size_t named = 0;
  const std::size_t total = outliers_in(r);
  for (const auto& p : r.points) {
    if (!p.outlier) continue;
    const double x = l.px(p.goodness);
    o += fmt::format(
        "<circle cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"#D55E00\" stroke=\"#000\" stroke-width=\"1\">"
        "<title>{}</title></circle>",
        num(x), num(mid), esc("outlier " + p.name + ": " + p.detail));
    if (named == kNamedPerRow) continue;
    std::string label = shorten(p.name, 46);
    if (++named == kNamedPerRow && total > kNamedPerRow)
      label += " (+" + std::to_string(total - kNamedPerRow) + " more)";
    // Left of the dot, where the healthy members are not, when the label fits there.
    const double y = mid - 9 + 13.0 * static_cast<double>(named - 1);
    const bool left = x - l.left > 6.0 * static_cast<double>(label.size()) + 12;
    o += text(left ? x - 9 : x + 9, y + 4, label, left ? "end" : "start", "note");
  }
  return o;
}

// The group's bar: a thick tick, or past the axis an arrow at its edge pointing the way.
std::string bar_mark(const StripRow& r, const StripLayout& l, double mid) {
  const std::string tip = esc(r.label + ": the verdicts' bar, " + r.bar_detail);
  if (*r.bar >= l.lo && *r.bar <= l.hi) {
    return fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#000\" "
        "stroke-width=\"3\"><title>{3}</title></line>",
        num(l.px(*r.bar)), num(mid - 11), num(mid + 11), tip);
  }
  const bool left = *r.bar < l.lo;
  const double x = left ? l.left + 2 : l.right - 2;
  return fmt::format(
      "<path d=\"M{} {}l{} -6l0 12z\" fill=\"#000\"><title>{} (off the scale: {} of the "
      "median)</title></path>",
      num(x), num(mid), left ? 8 : -8, tip, num(*r.bar, 2));
}

// Every other strip shaded, under the grid and the lines drawn over them.
std::string row_shading(const StripLayout& l) {
  std::string o;
  for (std::size_t i = 1; i < l.row_top.size(); i += 2) {
    o += fmt::format("<rect x=\"0\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#f6f6f6\"/>",
                     num(l.row_top[i]), l.width, num(l.row_height[i]));
  }
  return o;
}

std::string strip_rows(const StripChart& s, const StripLayout& l) {
  std::string o;
  for (std::size_t i = 0; i < s.rows.size(); ++i) {
    const auto& r = s.rows[i];
    const double mid = l.row_top[i] + 18;
    o += text(l.left - 10, mid + 4, shorten(r.label, 40), "end", "tick");
    o += fmt::format("<line x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" stroke=\"#999\"/>",
                     num(l.px(r.min)), num(l.px(r.max)), num(mid));
    o += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"12\" fill=\"#cfe3f3\" stroke=\"#7aa6c8\">"
        "<title>{}</title></rect>",
        num(l.px(r.p25)), num(mid - 6), num(std::max(1.0, l.px(r.p75) - l.px(r.p25))),
        esc(r.label + ": quartiles " + num(r.p25, 3) + " to " + num(r.p75, 3) + " of the median"));
    o += members(r, l, mid);
    o += outliers(r, l, mid);
    if (r.bar) o += bar_mark(r, l, mid);
  }
  return o;
}

}  // namespace

std::string render_strip_chart(const StripChart& s) {
  std::vector<double> ticks;
  const StripLayout l = strip_layout(s, ticks);
  std::string o = svg_open(l.width, l.height, s.title,
                           "Strip chart: " + std::to_string(s.rows.size()) +
                               " groups, each member against its group's median; outliers are "
                               "marked and named, and listed in the table beside it.");
  o += text(16, 24, shorten(s.title, static_cast<std::size_t>((l.width - 32) / 8.2)), "start",
            "title");
  o += row_shading(l);
  o += strip_axes(s, l, ticks);
  o += strip_rows(s, l);
  const double bottom = l.row_top.empty() ? l.top : l.row_top.back() + l.row_height.back();
  std::vector<LegendEntry> keys{
      {"a pair, against its group's median",
       "<circle cx=\"6\" cy=\"6\" r=\"3\" fill=\"#0072B2\" fill-opacity=\"0.55\"/>"},
      {"quartiles (p25 to p75); the line: min to max",
       "<rect x=\"0\" y=\"1\" width=\"12\" height=\"10\" fill=\"#cfe3f3\" "
       "stroke=\"#7aa6c8\"/>"}};
  // Only where one is drawn: a key for an outlier on a chart of none read as a missing mark.
  if (std::any_of(s.rows.begin(), s.rows.end(),
                  [](const StripRow& r) { return outliers_in(r) > 0; })) {
    keys.insert(keys.begin() + 1,
                {"an outlier, named (the first " + std::to_string(kNamedPerRow) + " per group)",
                 "<circle cx=\"6\" cy=\"6\" r=\"5\" fill=\"#D55E00\" stroke=\"#000\"/>"});
  }
  if (std::any_of(s.rows.begin(), s.rows.end(), [](const StripRow& r) { return r.bar; })) {
    keys.push_back({"the bar the verdicts held the group to (left of it fails)",
                    "<line x1=\"6\" y1=\"0\" x2=\"6\" y2=\"12\" stroke=\"#000\" "
                    "stroke-width=\"3\"/>"});
  }
  // A bar past the axis is an arrow at its edge: named in the legend too (an audit found black
  // triangles on the latency rows that nothing explained).
  if (std::any_of(s.rows.begin(), s.rows.end(),
                  [&](const StripRow& r) { return r.bar && (*r.bar < l.lo || *r.bar > l.hi); })) {
    keys.push_back({"that bar, off the scale that way (its figure in the table)",
                    "<path d=\"M2 6l8 -6l0 12z\" fill=\"#000\"/>"});
  }
  o += legend(16, bottom + 54, keys, 60);
  o += "</svg>";
  std::vector<std::string> head{"group"};
  head.insert(head.end(), s.table_head.begin(), s.table_head.end());
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : s.rows) {
    std::vector<std::string> row{r.label};
    row.insert(row.end(), r.table_cells.begin(), r.table_cells.end());
    rows.push_back(std::move(row));
  }
  return figure(s.title, o, html_table(head, rows, {}));
}

}  // namespace peerbench::svg
