// The fleet's chart: every group's members against the group's median, outliers marked and named
// (core/svg_chart.h's strip chart).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "core/base/text.h"
#include "core/fleet/fleet_report.h"
#include "core/model/sizes.h"

namespace peerbench {
namespace {

using GroupKey = std::tuple<std::string, std::string, std::string, std::uint64_t>;

// Against the median, under 1 worse: latency's ratio is turned over.
double goodness(double ratio, bool lower_is_better) {
  if (!lower_is_better) return ratio;
  return ratio > 0 ? 1 / ratio : 0;
}

std::string group_label(const FleetGroup& g, bool name_model) {
  return g.method + " " + g.link + " @ " + format_size_label(g.bytes) +
         (name_model ? " (" + g.gpu_model + ")" : "");
}

// The text table's cells of a group: its figures and its outliers by name.
std::vector<std::string> group_cells(const FleetGroup& g, const svg::StripRow& row) {
  const bool lo = g.lower_is_better;
  const int d = lo ? 2 : 1;
  const std::string unit = " " + fleet_unit(g.method, lo);
  std::string names;
  std::size_t outliers = 0;
  for (const auto& p : row.points) {
    if (!p.outlier) continue;
    if (++outliers <= 10) names += (names.empty() ? "" : "; ") + p.name + " (" + p.detail + ")";
  }
  if (outliers > 10) names += "; +" + std::to_string(outliers - 10) + " more";
  return {std::to_string(g.pairs),
          std::to_string(g.nodes),
          format_fixed(g.median, d) + unit,
          format_fixed(g.p25, d) + "-" + format_fixed(g.p75, d) + unit,
          format_fixed(g.min, d) + "-" + format_fixed(g.max, d) + unit,
          row.bar ? row.bar_detail : "",
          g.judged ? (names.empty() ? "none" : names) : "not judged (too few pairs)"};
}

// "337.4 GB/s: 85 % of known-good 396.9", "356.6 GB/s: the site baseline's bar": the bar is a
// share of its source's figure, not that figure (a review).
std::string bar_text(const FleetPair::JudgedBar& b, const std::string& method, bool lo) {
  const int d = lo ? 2 : 1;
  const std::string figure = format_fixed(b.bar, d) + " " + fleet_unit(method, lo) + ": ";
  if (b.source == kBarKnownGood && b.expected > 0) {
    const double share = lo ? b.expected / b.bar : b.bar / b.expected;
    return figure + format_fixed(100 * share, 0) + " % of known-good " +
           format_fixed(b.expected, d);
  }
  if (b.source == kBarSiteBaseline) return figure + "the site baseline's bar";
  if (b.source == kBarLinkRate) return figure + "the link-rate rule's bar";
  if (b.source == kBarSiteBar) return figure + "the site's bar (--expect)";
  return figure + (b.source == kBarLatencyTable ? "the latency bar" : b.source);
}

// The one bar that held every member of a group, set on its row; none where members were held
// to different bars (other rank counts, versions, or no bar at all).
void set_bar(svg::StripRow& row, const FleetGroup& g,
             const std::vector<const FleetPair::JudgedBar*>& bars) {
  if (bars.empty() || g.median <= 0) return;
  for (const auto* b : bars) {
    if (!b || b->source != bars[0]->source ||
        std::abs(b->bar - bars[0]->bar) > 1e-6 * std::abs(bars[0]->bar))
      return;
  }
  const bool lo = g.lower_is_better;
  row.bar = goodness(bars[0]->bar / g.median, lo);
  row.bar_detail = bar_text(*bars[0], g.method, lo);
}

svg::StripRow strip_row(const FleetGroup& g, bool name_model) {
  svg::StripRow row;
  row.label = group_label(g, name_model);
  const double m = g.median > 0 ? g.median : 1;
  const bool lo = g.lower_is_better;
  // The quartiles and range as the axis shows them: for latency, the shortest time is the best.
  row.p25 = goodness((lo ? g.p75 : g.p25) / m, lo);
  row.p75 = goodness((lo ? g.p25 : g.p75) / m, lo);
  row.min = goodness((lo ? g.max : g.min) / m, lo);
  row.max = goodness((lo ? g.min : g.max) / m, lo);
  return row;
}

// A point of a member's figure, as the axis reads it: latency's is the median over the figure.
svg::StripPoint member_point(const FleetNode& n, const FleetPair& p, const FleetPosition& pos) {
  const int d = pos.lower_is_better ? 2 : 1;
  return {pos.goodness(), n.host + " " + p.name(),
          format_fixed(pos.value, d) + " " + fleet_unit(pos.method, pos.lower_is_better) + ", " +
              format_fixed(pos.goodness(), 3) +
              (pos.lower_is_better ? " (median / figure)" : " of the median"),
          pos.outlier, ""};
}

// The row of members at a smaller size than their group's, for those short of it: every
// member's figure there, the short ones drawn apart and named.
void fill_short_row(svg::StripRow& row, const FleetGroup& g, const FleetReport& r) {
  std::vector<std::string> short_hosts;
  const std::string fleet_size = format_size_label(g.fleet_bytes);
  for (const auto& n : r.nodes) {
    for (const auto& p : n.pairs) {
      if (p.gpu_model != g.gpu_model || p.group_of(g.method) != g.link) continue;
      const auto m = std::find_if(p.measurements.begin(), p.measurements.end(), [&](const auto& x) {
        return x.method == g.method && x.bytes == g.bytes;
      });
      if (m == p.measurements.end()) continue;
      FleetPosition pos{g.method, g.bytes,           m->value, g.median,
                        0,        g.lower_is_better, false,    g.judged};
      pos.ratio = g.median > 0 ? m->value / g.median : 1;
      svg::StripPoint point = member_point(n, p, pos);
      const bool is_short = std::any_of(
          p.short_positions.begin(), p.short_positions.end(), [&](const FleetPosition& x) {
            return x.method == g.method && x.bytes == g.bytes && x.fleet_bytes == g.fleet_bytes;
          });
      if (is_short) {
        point.note = "no figure at " + fleet_size;
        point.outlier = g.judged && point.goodness < 1 - r.outlier_tolerance;
        if (short_hosts.empty() || short_hosts.back() != n.host) short_hosts.push_back(n.host);
      }
      row.points.push_back(std::move(point));
    }
  }
  row.sublabel =
      (short_hosts.size() == 1 ? short_hosts.front()
                               : count_of(static_cast<long long>(short_hosts.size()), "node")) +
      ": no figure at " + fleet_size;
}

// The text table's cells of a row of members short of their group's size.
std::vector<std::string> short_group_cells(const FleetGroup& g, const svg::StripRow& row) {
  auto cells = group_cells(g, row);
  std::string names;
  for (const auto& p : row.points)
    if (!p.note.empty()) names += (names.empty() ? "" : "; ") + p.name + " (" + p.detail + ")";
  cells.back() = "not judged: " + names + "; none at " + format_size_label(g.fleet_bytes);
  return cells;
}

}  // namespace

svg::StripChart fleet_spread_chart(const FleetReport& r) {
  svg::StripChart c;
  c.title = "Every pair against its group's fleet median, outliers named";
  c.x_label = "figure / fleet median (latency: median / figure); under 1 is worse";
  c.table_head = {"pairs", "nodes", "median", "p25-p75", "min-max", "verdicts' bar", "outliers"};
  c.threshold = 1 - r.outlier_tolerance;
  c.threshold_label = "outlier line (" + format_fixed(100 * r.outlier_tolerance, 0) + " % under)";
  std::set<std::string> models;
  for (const auto& g : r.groups) models.insert(g.gpu_model);
  // Each fleet group, then the rows of its members short of its size, at the sizes they have.
  std::vector<const FleetGroup*> groups;
  for (const auto& g : r.groups) {
    groups.push_back(&g);
    for (const auto& s : r.short_groups) {
      if (s.method == g.method && s.gpu_model == g.gpu_model && s.link == g.link &&
          s.fleet_bytes == g.bytes)
        groups.push_back(&s);
    }
  }
  std::map<GroupKey, std::size_t> row_of;
  for (const auto* g : groups) {
    row_of[{g->method, g->gpu_model, g->link, g->bytes}] = c.rows.size();
    c.rows.push_back(strip_row(*g, models.size() > 1));
    if (g->fleet_bytes) fill_short_row(c.rows.back(), *g, r);
  }
  std::vector<std::vector<const FleetPair::JudgedBar*>> bars(c.rows.size());
  for (const auto& n : r.nodes) {
    for (const auto& p : n.pairs) {
      for (const auto& pos : p.positions) {
        const auto it = row_of.find({pos.method, p.gpu_model, p.group_of(pos.method), pos.bytes});
        if (it == row_of.end()) continue;
        const auto b = p.bars.find(pos.method);
        bars[it->second].push_back(b != p.bars.end() && b->second.bytes == pos.bytes ? &b->second
                                                                                     : nullptr);
        c.rows[it->second].points.push_back(member_point(n, p, pos));
      }
    }
  }
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (groups[i]->fleet_bytes) {
      c.rows[i].table_cells = short_group_cells(*groups[i], c.rows[i]);
      continue;
    }
    set_bar(c.rows[i], *groups[i], bars[i]);
    c.rows[i].table_cells = group_cells(*groups[i], c.rows[i]);
  }
  return c;
}

}  // namespace peerbench
