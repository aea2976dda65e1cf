// The fleet's spread: one strip per group (method, GPU model, link, size) on a common axis, each
// member against its group's median, the quartiles as a band, the outlier line, and the
// outliers marked and named. Members that are not outliers are drawn one by one up to a limit,
// then as one mark per pixel column with their count, so a fleet of thousands stays small.
//
// Names never sit on a mark or on each other (an audit: two outliers' names overlapped each other
// and the bar): they go in lanes under their strip, each joined to its mark by a thin line that
// crosses no other name. Where a row's names do not fit in a few lanes, its marks are numbered
// instead and the names listed under the chart.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/present/svg_chart.h"
#include "core/present/svg_parts.h"

namespace peerbench::svg {
namespace {

constexpr std::size_t kDotsOneByOne = 300;
constexpr double kBarReach = 0.5;
constexpr double kFont = 11;           // .tick and .note
constexpr std::size_t kNameLanes = 3;  // lanes a row's names may take before it numbers them
constexpr double kLane = 13;           // px between lanes

// A name (or number) under a strip: at the mark's x, in a lane, its text starting or ending there.
struct Placed {
  double x = 0;           // the mark's x, where its leader runs
  double lo = 0, hi = 0;  // the text's extent
  std::size_t lane = 0;
  bool end_anchor = false;
  std::string text;
  const StripPoint* point = nullptr;
};

struct StripLayout {
  int width = 780, height = 0;
  double left = 0, right = 0, top = 62;
  bool threshold_above = false;  // the outlier line's label a line above the median's
  double lo = 0.5, hi = 1.1;
  std::vector<double> row_top, row_height;
  std::vector<std::vector<Placed>> labels;  // per row
  std::vector<std::string> numbered;        // the list under the chart: "1  name: detail"
  double px(double g) const {
    return left + (std::clamp(g, lo, hi) - lo) / (hi - lo) * (right - left);
  }
};

std::size_t outliers_in(const StripRow& r) {
  return static_cast<std::size_t>(std::count_if(r.points.begin(), r.points.end(),
                                                [](const StripPoint& p) { return p.outlier; }));
}

// The members named beside their marks: outliers and noted members, the worst first.
std::vector<const StripPoint*> named_points(const StripRow& r) {
  std::vector<const StripPoint*> out;
  for (const auto& p : r.points)
    if (p.labelled()) out.push_back(&p);
  std::stable_sort(out.begin(), out.end(), [](const StripPoint* a, const StripPoint* b) {
    return a->goodness < b->goodness;
  });
  if (out.size() > kStripNamedPerRow) out.resize(kStripNamedPerRow);
  return out;
}

std::string label_text(const StripPoint& p) {
  return p.name + (p.note.empty() ? "" : " (" + p.note + ")");
}

// Whether `c` may take lane c.lane beside those placed: no overlap in its lane, no leader of a
// deeper name through it, and its own leader through no name above it.
bool free_for(const Placed& c, const std::vector<Placed>& placed) {
  for (const auto& p : placed) {
    if (p.lane == c.lane && c.lo < p.hi + 6 && p.lo < c.hi + 6) return false;
    if (p.lane > c.lane && p.x >= c.lo - 3 && p.x <= c.hi + 3) return false;
    if (p.lane < c.lane && c.x >= p.lo - 3 && c.x <= p.hi + 3) return false;
  }
  return true;
}

// Places each text at its mark in the first free lane, right to left, so a name runs rightwards
// over marks whose names sit in shallower lanes and no leader crosses a name. Near the right edge
// a name ends at its mark; `ends_at_edge` false keeps every text starting at its mark (numbers,
// which the margin holds). False where one finds no lane within `lanes`.
using Texts = std::vector<std::pair<const StripPoint*, std::string>>;
bool place(Texts texts, const StripLayout& l, std::size_t lanes, bool ends_at_edge,
           std::vector<Placed>& out) {
  out.clear();
  std::stable_sort(texts.begin(), texts.end(), [](const auto& a, const auto& b) {
    return a.first->goodness > b.first->goodness;
  });
  for (const auto& [point, s] : texts) {
    const double x = l.px(point->goodness), w = text_width(s, kFont);
    Placed c{x, x - 2, x + 2 + w, 0, false, s, point};
    if (ends_at_edge && c.hi > l.width - 4.0) c = {x, x - 2 - w, x + 2, 0, true, s, point};
    if (c.lo < l.left - 4) return false;
    while (c.lane < lanes && !free_for(c, out)) ++c.lane;
    if (c.lane == lanes) return false;
    out.push_back(c);
  }
  return true;
}

// Named marks closer than a number's width, as one label each: the worst first.
std::vector<std::vector<const StripPoint*>> clusters(const StripRow& r, const StripLayout& l) {
  std::vector<std::vector<const StripPoint*>> out;
  for (const auto* p : named_points(r)) {
    const auto near = std::find_if(out.begin(), out.end(), [&](const auto& c) {
      return std::abs(l.px(c.front()->goodness) - l.px(p->goodness)) < 8;
    });
    if (near == out.end()) {
      out.push_back({p});
    } else {
      near->push_back(p);
    }
  }
  return out;
}

// The names of marks in one place: "node0004 0:1B->0:43, 0:43->0:1B (no figure at 1G)" where
// they share a host and a note, else each whole, ";" between. The note is left to the row's
// second line where that says it.
std::string merged_names(const std::vector<const StripPoint*>& c, const std::string& sublabel) {
  const auto host = [](const StripPoint* p) { return p->name.substr(0, p->name.find(' ')); };
  const auto said = [&](const StripPoint* p) {
    return p->note.empty() || sublabel.find(p->note) != std::string::npos;
  };
  const auto whole = [&](const StripPoint* p) { return said(p) ? p->name : label_text(*p); };
  const bool shared = std::all_of(c.begin(), c.end(), [&](const StripPoint* p) {
    return host(p) == host(c.front()) && p->note == c.front()->note &&
           p->name.size() > host(p).size();
  });
  std::string s;
  for (const auto* p : c) {
    if (!s.empty()) s += shared ? ", " : "; ";
    s += shared && p != c.front() ? p->name.substr(host(p).size() + 1)
                                  : (shared ? p->name : whole(p));
  }
  return shared && !said(c.front()) ? s + " (" + c.front()->note + ")" : s;
}

// A row's names: whole where they fit in kNameLanes lanes, else numbers, listed under the chart.
std::vector<Placed> row_labels(const StripRow& r, StripLayout& l) {
  const auto groups = clusters(r, l);
  Texts texts;
  for (const auto& c : groups) texts.push_back({c.front(), merged_names(c, r.sublabel)});
  std::vector<Placed> out;
  if (place(texts, l, kNameLanes, true, out)) return out;
  texts.clear();
  for (const auto& c : groups) {
    std::string numbers;
    for (const auto* p : c) {
      l.numbered.push_back(std::to_string(l.numbered.size() + 1) + " " + label_text(*p) + ": " +
                           p->detail);
      numbers += (numbers.empty() ? "" : ",") + std::to_string(l.numbered.size());
    }
    texts.push_back({c.front(), numbers});
  }
  // Right to left, each starting at its mark: one lane per label at worst.
  place(texts, l, texts.size() + 1, false, out);
  return out;
}

double lanes_used(const std::vector<Placed>& labels) {
  std::size_t n = 0;
  for (const auto& p : labels) n = std::max(n, p.lane + 1);
  return static_cast<double>(n);
}

void set_axis(const StripChart& s, StripLayout& l, std::vector<double>& ticks) {
  double lo = std::min(0.9, s.threshold.value_or(0.9)), hi = 1.05;
  double label_w = text_width("group", kFont);
  for (const auto& r : s.rows) {
    label_w = std::max({label_w, text_width(shorten(r.label, 48), kFont),
                        text_width(shorten(r.sublabel, 56), kFont)});
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
  l.left = 24 + label_w + 10;
  l.width = static_cast<int>(std::max(780.0, l.left + 520));
  l.right = l.width - 40;  // a number starting at a mark on the right edge fits
  // The outlier line's label ends at the line and the median's is centred on its own: a line
  // apart where they would meet (a tolerance of 2 %).
  if (s.threshold) {
    const double median_lo = l.px(1.0) - text_width("fleet median", kFont) / 2;
    l.threshold_above = l.px(*s.threshold) - 4 > median_lo - 8;
    if (l.threshold_above) l.top += 14;
  }
}

StripLayout strip_layout(const StripChart& s, std::vector<double>& ticks) {
  StripLayout l;
  set_axis(s, l, ticks);
  double y = l.top;
  for (const auto& r : s.rows) {
    l.labels.push_back(row_labels(r, l));
    const double lanes = lanes_used(l.labels.back());
    l.row_top.push_back(y);
    l.row_height.push_back(lanes > 0 ? 47 + kLane * (lanes - 1) : 36);
    y += l.row_height.back();
  }
  l.height = static_cast<int>(y);
  return l;
}

// A member's vertical place in its strip: spread by its index so dots do not sit on each other.
double jitter(std::size_t i) {
  return static_cast<double>((i * 7919) % 17) - 8.0;
}

double plot_bottom(const StripLayout& l) {
  return l.row_top.empty() ? l.top : l.row_top.back() + l.row_height.back();
}

std::string strip_axes(const StripChart& s, const StripLayout& l, const std::vector<double>& t) {
  std::string o;
  const double bottom = plot_bottom(l);
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
    const double top = l.top - (l.threshold_above ? 20 : 6);
    o += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#D55E00\" stroke-width=\"1.5\" "
        "stroke-dasharray=\"6 3\"/>",
        num(l.px(*s.threshold)), num(top), num(bottom));
    o += text(l.px(*s.threshold) - 4, top - 4, s.threshold_label, "end", "note");
  }
  return o;
}

// The members that are not named: each one, or one mark per pixel column past the limit.
std::string members(const StripRow& r, const StripLayout& l, double mid) {
  std::string o;
  const std::size_t plain = static_cast<std::size_t>(std::count_if(
      r.points.begin(), r.points.end(), [](const StripPoint& p) { return !p.labelled(); }));
  if (plain <= kDotsOneByOne) {
    for (std::size_t i = 0; i < r.points.size(); ++i) {
      const auto& p = r.points[i];
      if (p.labelled()) continue;
      o += fmt::format(
          "<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"#0072B2\" fill-opacity=\"0.55\">"
          "<title>{}</title></circle>",
          num(l.px(p.goodness)), num(mid + jitter(i)), esc(p.name + ": " + p.detail));
    }
    return o;
  }
  std::map<int, std::size_t> per_column;
  for (const auto& p : r.points) {
    if (!p.labelled()) ++per_column[static_cast<int>(std::lround(l.px(p.goodness) / 2))];
  }
  for (const auto& [column, n] : per_column) {
    o += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"2\" height=\"16\" fill=\"#0072B2\" "
        "fill-opacity=\"{}\"><title>{} members here</title></rect>",
        num(column * 2.0 - 1), num(mid - 8), num(std::min(1.0, 0.25 + 0.05 * n), 2), n);
  }
  return o;
}

// An outlier is an orange dot; a noted member (short of the fleet's size) a diamond, orange
// where it is also under the outlier line.
std::string named_mark(const StripPoint& p, double x, double mid) {
  const std::string tip = esc((p.outlier ? "outlier " : "") + label_text(p) + ": " + p.detail);
  if (p.note.empty()) {
    return fmt::format(
        "<circle cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"#D55E00\" stroke=\"#000\" stroke-width=\"1\">"
        "<title>{}</title></circle>",
        num(x), num(mid), tip);
  }
  return fmt::format(
      "<path d=\"M{} {}l6 6l-6 6l-6 -6z\" fill=\"{}\" stroke=\"#000\" stroke-width=\"1.2\">"
      "<title>{}</title></path>",
      num(x), num(mid - 6), p.outlier ? "#D55E00" : "#fff", tip);
}

std::string named(const StripRow& r, const std::vector<Placed>& labels, const StripLayout& l,
                  double mid) {
  std::string o;
  for (const auto& p : r.points) {
    if (p.labelled()) o += named_mark(p, l.px(p.goodness), mid);
  }
  for (const auto& p : labels) {
    const double baseline = mid + 25 + kLane * static_cast<double>(p.lane);
    o += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#888\" stroke-width=\"0.8\"/>",
        num(p.x), num(mid + 7), num(baseline - 9));
    o += text(p.end_anchor ? p.hi - 2 : p.lo + 2, baseline, p.text, p.end_anchor ? "end" : "start",
              "note");
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
    o += text(l.left - 10, mid + 4, shorten(r.label, 48), "end", "tick");
    if (!r.sublabel.empty())
      o += text(l.left - 10, mid + 17, shorten(r.sublabel, 56), "end", "note");
    o += fmt::format("<line x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" stroke=\"#999\"/>",
                     num(l.px(r.min)), num(l.px(r.max)), num(mid));
    o += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"12\" fill=\"#cfe3f3\" stroke=\"#7aa6c8\">"
        "<title>{}</title></rect>",
        num(l.px(r.p25)), num(mid - 6), num(std::max(1.0, l.px(r.p75) - l.px(r.p25))),
        esc(r.label + ": quartiles " + num(r.p25, 3) + " to " + num(r.p75, 3) + " of the median"));
    o += members(r, l, mid);
    if (r.bar) o += bar_mark(r, l, mid);
    o += named(r, l.labels[i], l, mid);
  }
  return o;
}

std::vector<LegendEntry> strip_keys(const StripChart& s, const StripLayout& l) {
  const auto any = [&](auto pred) { return std::any_of(s.rows.begin(), s.rows.end(), pred); };
  std::vector<LegendEntry> keys{
      {"a pair, against its group's median",
       "<circle cx=\"6\" cy=\"6\" r=\"3\" fill=\"#0072B2\" fill-opacity=\"0.55\"/>"}};
  // Only where one is drawn: a key for an outlier on a chart of none read as a missing mark.
  if (any([](const StripRow& r) { return outliers_in(r) > 0; })) {
    keys.push_back({"an outlier, named (the " + std::to_string(kStripNamedPerRow) +
                        " worst per group; the table names more)",
                    "<circle cx=\"6\" cy=\"6\" r=\"5\" fill=\"#D55E00\" stroke=\"#000\"/>"});
  }
  if (any([](const StripRow& r) {
        return std::any_of(r.points.begin(), r.points.end(),
                           [](const StripPoint& p) { return !p.note.empty(); });
      })) {
    keys.push_back({"a member drawn apart, named with why (orange: also under the outlier line)",
                    "<path d=\"M6 0l6 6l-6 6l-6 -6z\" fill=\"#fff\" stroke=\"#000\"/>"});
  }
  keys.push_back({"quartiles (p25 to p75); the line: min to max",
                  "<rect x=\"0\" y=\"1\" width=\"12\" height=\"10\" fill=\"#cfe3f3\" "
                  "stroke=\"#7aa6c8\"/>"});
  if (any([](const StripRow& r) { return r.bar.has_value(); })) {
    keys.push_back({"the bar the verdicts held the group to (left of it fails)",
                    "<line x1=\"6\" y1=\"0\" x2=\"6\" y2=\"12\" stroke=\"#000\" "
                    "stroke-width=\"3\"/>"});
  }
  // A bar past the axis is an arrow at its edge: named in the legend too (an audit found black
  // triangles on the latency rows that nothing explained).
  if (any([&](const StripRow& r) { return r.bar && (*r.bar < l.lo || *r.bar > l.hi); })) {
    keys.push_back({"that bar, off the scale that way (its figure in the table)",
                    "<path d=\"M2 6l8 -6l0 12z\" fill=\"#000\"/>"});
  }
  return keys;
}

// Under the legend: the numbered marks' names, where a row numbered them.
std::string numbered_list(const StripLayout& l, double y, double& height) {
  std::string o;
  height = 0;
  if (l.numbered.empty()) return o;
  o += text(16, y + 10, "Numbered marks, the worst of each group first:", "start", "axis-label");
  height = 18;
  for (const auto& entry : l.numbered) {
    for (const auto& line : wrap_px(entry, l.width - 48, kFont)) {
      o += text(24, y + height + 10, line, "start", "note");
      height += 14;
    }
  }
  return o;
}

std::string strip_table(const StripChart& s) {
  std::vector<std::string> head{"group"};
  head.insert(head.end(), s.table_head.begin(), s.table_head.end());
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : s.rows) {
    std::vector<std::string> row{r.label + (r.sublabel.empty() ? "" : "\n" + r.sublabel)};
    row.insert(row.end(), r.table_cells.begin(), r.table_cells.end());
    rows.push_back(std::move(row));
  }
  return html_table(head, rows, {});
}

}  // namespace

std::string render_strip_chart(const StripChart& s) {
  std::vector<double> ticks;
  StripLayout l = strip_layout(s, ticks);
  const double bottom = plot_bottom(l);
  const Legend keys = legend(16, bottom + 54, strip_keys(s, l), l.width - 50);
  double list_height = 0;
  const std::string list = numbered_list(l, bottom + 54 + keys.height + 6, list_height);
  l.height = static_cast<int>(std::ceil(bottom + 54 + keys.height + 6 + list_height + 8));
  std::string o = svg_open(l.width, l.height, s.title,
                           "Strip chart: " + std::to_string(s.rows.size()) +
                               " groups, each member against its group's median; outliers are "
                               "marked and named, and listed in the table beside it.");
  o += text(16, 24, shorten(s.title, static_cast<std::size_t>((l.width - 32) / 8.2)), "start",
            "title");
  o += row_shading(l);
  o += strip_axes(s, l, ticks);
  o += strip_rows(s, l);
  o += keys.svg + list + "</svg>";
  return figure(s.title, o, strip_table(s));
}

}  // namespace peerbench::svg
