// Issue 19.1: charts inside the HTML pages, drawn as SVG in C++ (core/svg_chart): the pair
// matrix coloured by the ratio to known-good (healthy pairs alike), bandwidth against size on a
// log-2 axis, every collective on one chart, the fleet's spread with the outliers named; each
// chart with a title, axis labels with units and a text table beside it.
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "core/judge/verdict.h"
#include "core/model/schema.h"
#include "core/present/report.h"
#include "core/present/report_charts.h"
#include "core/present/svg_chart.h"
#include "core/present/svg_parts.h"
#include "test_docs.h"
#include "test_fixtures.h"

namespace peerbench {
namespace {

using test::example_run;

// The fill of the heat-map cell whose tooltip starts with `title` ("0-&gt;1  NV18, ce-write").
std::string cell_fill(const std::string& svg, const std::string& title) {
  const auto at = svg.find("<g><title>" + title);
  if (at == std::string::npos) return "(no cell " + title + ")";
  const auto fill = svg.find("fill=\"", at);
  return svg.substr(fill + 6, 7);
}

int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

// Text as a chart drew it, its escapes undone.
std::string unescaped(std::string s) {
  for (const auto& [from, to] :
       {std::pair<std::string, std::string>{"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}}) {
    for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at))
      s.replace(at, from.size(), to);
  }
  return s;
}

// The <svg> elements of a figure, one per panel.
std::vector<std::string> svgs_of(const std::string& html) {
  std::vector<std::string> out;
  for (auto at = html.find("<svg class=\"chart\""); at != std::string::npos;
       at = html.find("<svg class=\"chart\"", at + 1))
    out.push_back(html.substr(at, html.find("</svg>", at) - at));
  return out;
}

// The stroke colours of the measured series' lines (grey reference lines left out).
std::vector<std::string> polyline_colours(const std::string& svg) {
  std::vector<std::string> out;
  const std::regex re("<polyline fill=\"none\" stroke=\"(#[0-9A-Fa-f]{3,6})\"");
  for (std::sregex_iterator it(svg.begin(), svg.end(), re), end; it != end; ++it)
    if ((*it)[1] != "#666") out.push_back((*it)[1]);
  return out;
}

// What every figure must have: a title (caption, SVG title and accessible name), the SVG, a
// table beside it, no script and no reference outside the page.
void expect_complete_figure(const std::string& html, const std::string& title) {
  EXPECT_EQ(html.rfind("<figure class=\"chart\"><figcaption>", 0), 0u) << html.substr(0, 200);
  EXPECT_NE(html.find("<svg class=\"chart\""), std::string::npos);
  EXPECT_NE(html.find("role=\"img\" aria-label=\"" + title), std::string::npos) << title;
  EXPECT_NE(html.find("<title>" + title), std::string::npos);
  EXPECT_NE(html.find("<desc>"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"chart-table\">"), std::string::npos);
  EXPECT_NE(html.find("<table>"), std::string::npos);
  for (const char* banned : {"<script", "href=", "src=", "url(", "http:", "https:"})
    EXPECT_EQ(html.find(banned), std::string::npos) << banned;
}

TEST(Charts, HeatMapColoursByKnownGoodSoHealthyPairsLookAlike) {
  // NCCL over shared memory: the copies at 386.9 and 387.0 GB/s (1.00 of known-good) get one
  // colour, NCCL at 0.11 of known-good another.
  const RunDocument d = example_run("h200x2-nccl-shm.json");
  ReportInput in;
  in.path = "shm.json";
  in.doc = &d;
  in.verdicts = compute_verdicts(d, {});
  const ResultIndex idx(d);
  const auto h = pair_heat_map(in, idx);
  ASSERT_TRUE(h);
  const std::string svg = svg::render(*h);
  expect_complete_figure(svg, h->title);
  const std::string a = cell_fill(svg, "0-&gt;1  NV18  FLAGGED, ce-write (GB/s @ 64M): 386.9");
  const std::string b = cell_fill(svg, "1-&gt;0  NV18  FLAGGED, ce-write (GB/s @ 64M): 387.0");
  EXPECT_EQ(a, "#1a9850") << "0.95 or more of known-good";
  EXPECT_EQ(a, b);
  // NCCL's figures at 64 MiB were judged by no bar (under the size judged): not coloured, the
  // table says why. Red had read as a judged 0.11 (an audit).
  EXPECT_EQ(cell_fill(svg, "0-&gt;1  NV18  FLAGGED, nccl-sendrecv (busbw GB/s @ 64M): 36.6"),
            "#e6e6e6");
  // Staged has no known-good figure and no bar judged here: grey, and the legend says why.
  EXPECT_EQ(cell_fill(svg, "0-&gt;1  NV18  FLAGGED, staged"), "#e6e6e6");
  EXPECT_NE(svg.find("nothing to compare with"), std::string::npos);
  // The pair's own flag (NCCL over SHM) marks its row; the table holds figure and ratio.
  EXPECT_NE(svg.find("class=\"tick flagged-row\""), std::string::npos);
  EXPECT_NE(svg.find("386.9 (1.00)"), std::string::npos);
  EXPECT_NE(svg.find("not judged: largest size 64 MiB &lt; 256 MiB"), std::string::npos);
  EXPECT_NE(svg.find("SHM/direct/direct"), std::string::npos) << "NCCL transport in the table";
}

// A map of one column (the real 1-byte run: ce-write alone) is narrower than its caption, which
// was clipped to "rows: GPU pair a". The picture is now as wide as the caption's words.
TEST(Charts, AOneColumnHeatMapKeepsItsWholeCaption) {
  const RunDocument d = load_run_file(std::string(PEERBENCH_SOURCE_DIR) +
                                      "/tests/fixtures/runs/h200x2-one-byte.json");
  ReportInput in;
  in.path = "one-byte.json";
  in.doc = &d;
  in.verdicts = compute_verdicts(d, {});
  const ResultIndex idx(d);
  const auto h = pair_heat_map(in, idx);
  ASSERT_TRUE(h);
  ASSERT_EQ(h->columns.size(), 1u);
  const std::string svg = svg::render(*h);
  const std::string caption = "columns: method (unit @ size); rows: GPU pair and link";
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      svg, m,
      std::regex("<text x=\"([0-9.]+)\"[^>]*>" +
                 std::regex_replace(caption, std::regex("[()@]"), "\\$&") + "</text>")))
      << svg.substr(0, 800);
  const double x = std::stod(m[1]);
  ASSERT_TRUE(std::regex_search(svg, m, std::regex("<svg class=\"chart\" width=\"([0-9]+)\"")));
  // 12-px text: at most 7 px a character, so the caption ends inside the picture.
  EXPECT_GE(std::stod(m[1]), x + 7.0 * static_cast<double>(caption.size()))
      << "width " << m[1] << ", caption from x " << x;
}

TEST(Charts, BandwidthAgainstSizeOnALog2Axis) {
  const RunDocument d = example_run("h200x2-default.json");
  const auto charts = size_charts(d, MethodScope::kPair, {});
  const svg::LineChart* ce_write = nullptr;
  std::set<std::string> methods;
  for (const auto& c : charts) {
    methods.insert(c.title.substr(0, c.title.find(' ')));
    if (c.title.rfind("ce-write ", 0) == 0) ce_write = &c;
  }
  EXPECT_TRUE(methods.count("nccl-sendrecv"));
  EXPECT_FALSE(methods.count("ce-latency")) << "measured at one size: no line to draw";
  ASSERT_NE(ce_write, nullptr);
  EXPECT_EQ(ce_write->series.size(), 2u) << "0->1 and 1->0";
  const std::string svg = svg::render(*ce_write);
  expect_complete_figure(svg, ce_write->title);
  EXPECT_NE(svg.find("transfer size (bytes, log-2 scale)"), std::string::npos);
  EXPECT_NE(svg.find("bandwidth (GB/s, median)"), std::string::npos);
  for (const char* tick : {">1M<", ">4M<", ">16M<", ">64M<", ">256M<", ">1G<"})
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  // Sizes 4x apart sit equally far apart: the first series' markers.
  std::vector<double> xs;
  const std::regex marker("<circle cx=\"([0-9.]+)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), marker);
       it != std::sregex_iterator() && xs.size() < 6; ++it)
    xs.push_back(std::stod((*it)[1]));
  ASSERT_EQ(xs.size(), 6u);
  for (std::size_t i = 2; i < xs.size(); ++i) EXPECT_NEAR(xs[i] - xs[i - 1], xs[1] - xs[0], 0.2);
  // The table beside it: every size, both pairs.
  EXPECT_NE(svg.find("<th>size</th><th>0-&gt;1</th><th>1-&gt;0</th>"), std::string::npos);
}

TEST(Charts, PastEightPairsTheMedianSlowestAndFastestWithTheSlowestNamed) {
  test::NodeSpec spec;
  spec.gpus = 8;
  RunDocument d = test::make_doc(spec);
  for (int a = 0; a < 8; ++a) {
    for (int b = 0; b < 8; ++b) {
      for (std::uint64_t size = 1 << 20; size <= (1u << 30) && a != b; size *= 4)
        d.results.push_back(test::bw_result("ce-write", a, b, size, a == 2 && b == 5 ? 300 : 395));
    }
  }
  const auto charts = size_charts(d, MethodScope::kPair, {});
  ASSERT_EQ(charts.size(), 1u);
  ASSERT_EQ(charts[0].series.size(), 3u);
  EXPECT_EQ(charts[0].series[0].name, "median of 56 pairs");
  EXPECT_EQ(charts[0].series[1].name, "slowest pair: 2->5");
  EXPECT_EQ(charts[0].series[1].points.back().y, 300);
  EXPECT_EQ(charts[0].series[2].points.back().y, 395);
}

// 8 B is 0.0 GB/s on any bandwidth axis; the table beside the chart gives the time per operation
// there, the figure the verdicts judge at latency sizes, and leaves the bandwidth sizes alone.
TEST(Charts, AtLatencySizesTheTableGivesTheTimePerOperation) {
  RunDocument d = test::clean_h200_pair();
  d.results.clear();
  for (int a = 0; a < 2; ++a) {
    d.results.push_back(test::latency_result("nccl-sendrecv", a, 1 - a, 7.53));
    d.results.push_back(test::bw_result("nccl-sendrecv", a, 1 - a, 1ull << 30, 370.2));
  }
  const auto charts = size_charts(d, MethodScope::kPair, {});
  ASSERT_EQ(charts.size(), 1u);
  const std::string svg = svg::render(charts[0]);
  EXPECT_EQ(count(svg, "<td class=\"n\">0.0 (7.53 us per op)</td>"), 2) << svg;
  EXPECT_EQ(count(svg, "<td class=\"n\">370.2</td>"), 2)
      << "1 GiB is a bandwidth: nothing beside it";
  EXPECT_NE(svg.find("0-&gt;1: 8: 0.0 (7.53 us per op)"), std::string::npos) << "the tooltip too";

  // Past eight pairs the summary lines carry the time of the pair they show.
  test::NodeSpec spec;
  spec.gpus = 4;
  RunDocument big = test::make_doc(spec);
  for (int a = 0; a < 4; ++a) {
    for (int b = 0; b < 4; ++b) {
      if (a == b) continue;
      big.results.push_back(test::latency_result("nccl-sendrecv", a, b, a == 3 ? 9.0 : 7.5));
      big.results.push_back(test::bw_result("nccl-sendrecv", a, b, 1ull << 30, 370.0));
    }
  }
  const auto summary = size_charts(big, MethodScope::kPair, {});
  ASSERT_EQ(summary.size(), 1u);
  ASSERT_EQ(summary[0].series.size(), 3u);
  EXPECT_EQ(summary[0].series[1].points.front().aside, "9.00 us per op") << "the slowest pair";
  EXPECT_EQ(summary[0].series[2].points.front().aside, "7.50 us per op") << "the fastest";
}

TEST(Charts, EveryCollectiveOnOneChart) {
  const RunDocument d = example_run("h200x2-default.json");
  const auto c = collectives_chart(d, {});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->series.size(), 7u);
  const std::string svg = svg::render(*c);
  expect_complete_figure(svg, c->title);
  EXPECT_NE(svg.find("bus bandwidth (busbw GB/s, median)"), std::string::npos);
  EXPECT_NE(svg.find("nccl-allreduce (float/sum)"), std::string::npos);
  EXPECT_NE(svg.find(">266.1<"), std::string::npos) << "all-gather's busbw at 1 GiB, as report";
}

// A chart says what a healthy card draws: the known-good curve of the pair's model and link as a
// dashed grey line, at the sizes measured from the table's first (64 MiB), never past its last.
TEST(Charts, SizeChartsDrawTheKnownGoodCurveOfTheLink) {
  const RunDocument d = example_run("h200x2-default.json");
  const auto verdicts = compute_verdicts(d, {});
  const auto marks = known_good_marks(d, {}, verdicts);
  std::set<std::uint64_t> ce_write_sizes;
  for (const auto& k : marks) {
    if (k.method != "ce-write") continue;
    ce_write_sizes.insert(k.bytes);
    EXPECT_EQ(k.curve, "H200 SXM, NV18");
    EXPECT_EQ(k.unit, "GB/s");
    EXPECT_GT(k.value, 300);
    EXPECT_FALSE(k.source.empty());
  }
  EXPECT_EQ(ce_write_sizes, (std::set<std::uint64_t>{64ull << 20, 256ull << 20, 1ull << 30}))
      << "the table starts at 64 MiB: nothing drawn under it";
  const auto charts = size_charts(d, MethodScope::kPair, marks);
  const svg::LineChart* ce_write = nullptr;
  for (const auto& c : charts) {
    if (c.title.rfind("ce-write ", 0) == 0) ce_write = &c;
  }
  ASSERT_NE(ce_write, nullptr);
  ASSERT_EQ(ce_write->series.size(), 3u) << "0->1, 1->0 and one known-good line for both";
  const auto& kg = ce_write->series[2];
  EXPECT_TRUE(kg.reference);
  EXPECT_EQ(kg.name, "known-good, H200 SXM, NV18");
  ASSERT_EQ(kg.points.size(), 3u);
  // The measured pairs sit on it: 0.98-1.02 of it at 1 GiB.
  EXPECT_NEAR(ce_write->series[0].points.back().y / kg.points.back().y, 1.0, 0.02);
  const std::string svg = svg::render(*ce_write);
  EXPECT_EQ(count(svg, "stroke-dasharray=\"6 4\""), 1) << "the line, dashed";
  EXPECT_NE(svg.find("<th>known-good, H200 SXM, NV18</th>"), std::string::npos);
  // The pairs keep the colours they have without it.
  std::string plain;
  for (const auto& p : size_charts(d, MethodScope::kPair, {})) {
    if (p.title == ce_write->title) plain = svg::render(p);
  }
  EXPECT_EQ(count(svg, "#0072B2"), count(plain, "#0072B2"));
  EXPECT_EQ(count(svg, "#E69F00"), count(plain, "#E69F00"));

  // Collectives: each method's own curve, named for its method.
  const auto c = collectives_chart(d, marks);
  ASSERT_TRUE(c);
  int lines = 0;
  for (const auto& s : c->series) {
    if (!s.reference) continue;
    ++lines;
    EXPECT_NE(s.name.find(" known-good, H200 SXM, NV18"), std::string::npos) << s.name;
  }
  EXPECT_GE(lines, 2) << "all-reduce and all-gather at least";
}

// A file judged without a known-good figure (another model) draws no line, and says nothing.
TEST(Charts, NoKnownGoodLineWhereTheTableHasNone) {
  RunDocument d = example_run("h200x2-default.json");
  for (auto& r : d.system.ranks) r.gpu.name = "NVIDIA Imaginary X9";
  const auto verdicts = compute_verdicts(d, {});
  EXPECT_TRUE(known_good_marks(d, {}, verdicts).empty());
}

TEST(Charts, HtmlReportCarriesItsChartsInThePage) {
  const RunDocument d = example_run("h200x2-default.json");
  ReportInput in;
  in.path = "default.json";
  in.doc = &d;
  in.verdicts = compute_verdicts(d, {});
  const auto html = make_reporter(ReportFormat::kHtml)->render({in}, {});
  // The heat map, nine methods against size, the collectives: each with its table.
  EXPECT_EQ(count(html, "<figure class=\"chart\">"), 1 + 9 + 1);
  EXPECT_EQ(count(html, "<div class=\"chart-table\"><"), 11);
  for (const char* banned : {"<script", "<img", "<link", "url(", "http:", "https:"})
    EXPECT_EQ(html.find(banned), std::string::npos) << banned;
}

// Issue 39: a chart of more than eight series (the report's collectives drew 14, a history 18,
// colours reused) is drawn as panels of at most eight on one y scale, no colour twice in one; a
// known-good line stays in the panel of the method it is named for.
TEST(Charts, PastEightSeriesAChartIsDrawnAsPanelsWithoutARepeatedColour) {
  svg::LineChart c;
  c.title = "ten";
  c.x_label = "transfer size (bytes, log-2 scale)";
  c.y_label = "GB/s";
  for (int i = 0; i < 10; ++i) {
    svg::Series s;
    s.name = "series" + std::to_string(i);
    s.points = {{1 << 20, 10.0 + i}, {1 << 22, 20.0 + i}};
    c.series.push_back(s);
  }
  const std::string html = svg::render(c);
  expect_complete_figure(html, "ten (1 of 2)");
  EXPECT_EQ(count(html, "<figure"), 1) << "one figure, its panels inside";
  const auto svgs = svgs_of(html);
  ASSERT_EQ(svgs.size(), 2u);
  for (const auto& one : svgs) {
    const auto colours = polyline_colours(one);
    EXPECT_EQ(colours.size(), 5u) << "ten series in two panels of five";
    EXPECT_EQ(std::set<std::string>(colours.begin(), colours.end()).size(), colours.size())
        << "no colour twice in one chart";
    EXPECT_TRUE(std::regex_search(one, std::regex("class=\"title\">ten \\([12] of 2\\)<")));
  }
  // One y scale for every panel: the same ticks.
  const std::regex tick("class=\"tick\">([0-9.]+)</text>");
  const auto ticks = [&](const std::string& s) {
    std::vector<std::string> out;
    for (std::sregex_iterator it(s.begin(), s.end(), tick), end; it != end; ++it)
      out.push_back((*it)[1]);
    return out;
  };
  EXPECT_EQ(ticks(svgs[0]), ticks(svgs[1]));

  // The report's collectives with their known-good lines: 14 series, two panels.
  const RunDocument d = example_run("h200x2-default.json");
  const auto marks = known_good_marks(d, {}, compute_verdicts(d, {}));
  const auto coll = collectives_chart(d, marks);
  ASSERT_TRUE(coll);
  ASSERT_GT(coll->series.size(), svg::kMaxSeries);
  const auto panels = svg::line_panels(*coll);
  ASSERT_EQ(panels.size(), 2u);
  std::size_t drawn = 0;
  for (const auto& p : panels) {
    EXPECT_LE(p.series.size(), svg::kMaxSeries);
    drawn += p.series.size();
    for (const auto& s : p.series) {
      if (!s.reference) continue;
      const std::string method = s.name.substr(0, s.name.find(' '));
      EXPECT_TRUE(std::any_of(
          p.series.begin(), p.series.end(),
          [&](const svg::Series& m) { return !m.reference && m.name.rfind(method + " ", 0) == 0; }))
          << s.name << ": beside its method";
    }
  }
  EXPECT_EQ(drawn, coll->series.size()) << "every series drawn once";
}

// Issue 39: a legend's labels were cut at 36 characters ("nccl-allreduce known-good, H200
// SXM..."). They are measured and wrapped, and the chart is as wide as they are.
TEST(Charts, LegendLabelsAreNeverClipped) {
  svg::LineChart c;
  c.title = "long names";
  c.x_label = "transfer size (bytes, log-2 scale)";
  c.y_label = "GB/s";
  const std::vector<std::string> names{
      "nccl-reducescatter known-good, H200 SXM, NV18, 2 ranks, and a good deal more said",
      "0000:1B:00.0->0000:43:00.0/0000:9C:00.0->0000:C1:00.0/without-any-space-to-break-at",
      "short"};
  for (const auto& n : names) c.series.push_back({n, {{1 << 20, 10}, {1 << 22, 20}}});
  const std::string svg = svg::render(c);
  const int width = std::stoi(svg.substr(svg.find("width=\"") + 7));
  const std::regex entry(
      "<g transform=\"translate\\(([0-9.]+) [0-9.]+\\)\">.*?<title>([^<]*)</title>(.*?)</g>");
  const std::regex line("class=\"legend-text\">([^<]*)</text>");
  std::size_t entries = 0;
  for (std::sregex_iterator it(svg.begin(), svg.end(), entry), end; it != end; ++it) {
    const double x = std::stod((*it)[1]);
    const std::string body = (*it)[3];
    std::string joined;
    for (std::sregex_iterator l(body.begin(), body.end(), line), e; l != e; ++l) {
      const std::string text = unescaped((*l)[1]);
      EXPECT_LE(x + 18 + svg::text_width(text, svg::kLegendFont), width) << text;
      joined += text;
    }
    std::string label = unescaped((*it)[2]);
    label.erase(std::remove(label.begin(), label.end(), ' '), label.end());
    joined.erase(std::remove(joined.begin(), joined.end(), ' '), joined.end());
    EXPECT_EQ(joined, label) << "the whole label, wrapped, nothing cut";
    ++entries;
  }
  EXPECT_EQ(entries, names.size());
  EXPECT_EQ(svg.find("\u2026"), std::string::npos) << "no ellipsis anywhere";
}

TEST(Charts, StripChartNamesOutliersAndStaysSmallForLargeFleets) {
  svg::StripChart c;
  c.title = "spread";
  c.x_label = "figure / fleet median";
  c.threshold = 0.9;
  c.threshold_label = "outlier line";
  svg::StripRow row;
  row.label = "ce-write NV18 @ 1G";
  for (int i = 0; i < 20000; ++i)
    row.points.push_back({1.0 + (i % 50) * 0.001, "node" + std::to_string(i), "", false});
  row.points.push_back({0.7, "node-slow <b>", "0.70 of the median", true});
  c.rows.push_back(row);
  const std::string svg = svg::render(c);
  expect_complete_figure(svg, "spread");
  EXPECT_NE(svg.find(">node-slow &lt;b&gt;<"), std::string::npos) << "named, escaped";
  EXPECT_NE(svg.find("outlier node-slow &lt;b&gt;: 0.70 of the median"), std::string::npos);
  EXPECT_LT(svg.size(), 200000u) << "20,000 members drawn as marks per pixel column";
  EXPECT_NE(svg.find("members here"), std::string::npos);
  EXPECT_NE(svg.find("an outlier, named"), std::string::npos);
  // Without an outlier the legend has no key for one (it had listed the mark regardless).
  svg::StripChart calm = c;
  calm.rows[0].points.pop_back();
  EXPECT_EQ(svg::render(calm).find("an outlier, named"), std::string::npos);
  // A bar past the axis is an arrow at the edge, which the legend names (an audit: black
  // triangles on the latency rows that nothing explained); one on the axis is not.
  EXPECT_EQ(svg.find("off the scale that way"), std::string::npos);
  c.rows[0].bar = 0.3;
  c.rows[0].bar_detail = "5.00 us: the latency bar";
  const std::string off = svg::render(c);
  EXPECT_NE(off.find("(off the scale: 0.30 of the median)"), std::string::npos);
  EXPECT_NE(off.find("that bar, off the scale that way"), std::string::npos);
  expect_complete_figure(off, "spread");
}

// A box a chart's text or mark takes.
struct Box {
  double x0, y0, x1, y1;
  std::string what;
  bool meets(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

// The texts of a strip chart above its legend (rows, names, numbers, axis), as boxes.
std::vector<Box> text_boxes(const std::string& svg) {
  std::vector<Box> out;
  const std::string body = svg.substr(0, svg.find("<g class=\"legend\">"));
  const std::regex re(
      "<text x=\"([0-9.-]+)\" y=\"([0-9.-]+)\" text-anchor=\"(\\w+)\" "
      "class=\"(\\w+)\"[^>]*>([^<]*)<");
  for (std::sregex_iterator it(body.begin(), body.end(), re), end; it != end; ++it) {
    if ((*it)[4] == "title") continue;
    const double x = std::stod((*it)[1]), y = std::stod((*it)[2]);
    const std::string content = unescaped((*it)[5]);
    const double w = svg::text_width(content, (*it)[4] == "axis-label" ? 12 : 11);
    const double x0 = (*it)[3] == "end" ? x - w : (*it)[3] == "middle" ? x - w / 2 : x;
    out.push_back({x0, y - 9, x0 + w, y + 3, content});
  }
  return out;
}

// The named members' marks and the bars: circles of radius 5, diamonds, thick lines.
std::vector<Box> mark_boxes(const std::string& svg) {
  std::vector<Box> out;
  const std::regex circle("<circle cx=\"([0-9.]+)\" cy=\"([0-9.]+)\" r=\"([0-9.]+)\"");
  for (std::sregex_iterator it(svg.begin(), svg.end(), circle), end; it != end; ++it) {
    const double x = std::stod((*it)[1]), y = std::stod((*it)[2]), r = std::stod((*it)[3]);
    out.push_back({x - r, y - r, x + r, y + r, "circle"});
  }
  const std::regex bar(
      "<line x1=\"([0-9.]+)\" y1=\"([0-9.]+)\" x2=\"[0-9.]+\" y2=\"([0-9.]+)\" stroke=\"#000\" "
      "stroke-width=\"3\"");
  for (std::sregex_iterator it(svg.begin(), svg.end(), bar), end; it != end; ++it) {
    const double x = std::stod((*it)[1]);
    out.push_back({x - 1.5, std::stod((*it)[2]), x + 1.5, std::stod((*it)[3]), "bar"});
  }
  return out;
}

// Issue 39: outliers' names overlapped each other and the bar (an audit: two names on one line
// over the tick of the verdicts' bar). Names go where they cover no mark and no other name, or
// the marks are numbered and the names listed under the chart.
TEST(Charts, StripChartNamesNeverOverlapEachOtherOrTheMarks) {
  svg::StripChart c;
  c.title = "spread";
  c.x_label = "figure / fleet median";
  c.threshold = 0.9;
  c.threshold_label = "outlier line (10 % under)";
  svg::StripRow close;  // three outliers within 3 %, the bar among them
  close.label = "ce-write NV18 @ 1G";
  close.bar = 0.85;
  close.bar_detail = "337.4 GB/s";
  for (int i = 0; i < 30; ++i)
    close.points.push_back({0.99 + (i % 5) * 0.005, "node" + std::to_string(i), "", false});
  for (int i = 0; i < 3; ++i)
    close.points.push_back({0.78 + 0.012 * i,
                            "node00" + std::to_string(40 + i) + " 0000:1B:00.0->0000:43:00.0",
                            "0.8 of the median", true});
  svg::StripRow crowd = close;  // six outliers in one place: numbered
  crowd.label = "sm-read NV18 @ 1G";
  crowd.points.resize(30);
  for (int i = 0; i < 6; ++i)
    crowd.points.push_back({0.6 + 0.002 * i,
                            "node01" + std::to_string(10 + i) + " 0000:1B:00.0->0000:43:00.0",
                            "0.6 of the median", true});
  c.rows = {close, crowd};
  const std::string svg = svg::render(c);
  const auto texts = text_boxes(svg);
  const auto marks = mark_boxes(svg);
  for (std::size_t i = 0; i < texts.size(); ++i) {
    for (std::size_t j = i + 1; j < texts.size(); ++j)
      EXPECT_FALSE(texts[i].meets(texts[j]))
          << "'" << texts[i].what << "' on '" << texts[j].what << "'";
    for (const auto& m : marks)
      EXPECT_FALSE(texts[i].meets(m)) << "'" << texts[i].what << "' on a " << m.what;
  }
  // The worst outliers of each row (kStripNamedPerRow) are named: beside their marks, or in the
  // numbered list under the chart, worst first. (The table beside the chart names the rest.)
  int numbered = 0;
  for (const auto& row : c.rows) {
    std::size_t named = 0;
    for (const auto& p : row.points) {
      if (!p.outlier || ++named > svg::kStripNamedPerRow) continue;
      const bool beside = std::any_of(texts.begin(), texts.end(), [&](const Box& b) {
        return b.what.find(p.name) != std::string::npos;
      });
      if (beside) continue;
      std::string listed = std::to_string(++numbered) + " " + p.name + ": ";
      listed.replace(listed.find('>'), 1, "&gt;");  // "3 node0112 0000:1B:00.0-&gt;...: "
      EXPECT_NE(svg.find("\">" + listed), std::string::npos) << listed;
    }
  }
  EXPECT_EQ(numbered, 5) << "the crowded row's five, numbered; the other row's named beside";
  EXPECT_NE(svg.find("Numbered marks"), std::string::npos) << "the crowded row numbered";
}

}  // namespace
}  // namespace peerbench
