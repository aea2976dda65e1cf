// Issue 39.4: every node with a figure is on the fleet's chart and in its CSV and OpenMetrics. A
// node whose run stopped at 64 MiB had no figure at the fleet's judged size (1 GiB) and vanished
// from all three, under a FAIL that named it (an audit: every dot at 1.00 beneath it).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <regex>

#include "core/fleet/fleet.h"
#include "core/fleet/fleet_report.h"
#include "core/model/schema.h"
#include "core/platform/atomic_file.h"
#include "core/present/svg_chart.h"
#include "fleet_nodes.h"
#include "test_docs.h"
#include "test_fixtures.h"

namespace peerbench {
namespace {

using test::as_node;
using test::h200x2_default_run;
using test::write_run;

constexpr std::uint64_t k64M = 64ull << 20, k1G = 1ull << 30;

struct Folder {
  std::string path = ::testing::TempDir() + "/pb_fleet_chart_XXXXXX";
  Folder() {
    if (!::mkdtemp(path.data())) throw std::runtime_error("mkdtemp");
  }
  ~Folder() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

void write_node(const std::string& dir, const RunDocument& d) {
  write_run(dir, d.system.hosts.front(), d);
}

// Four healthy nodes and "cut": its run stopped after 64 MiB, its ce-write at half speed.
struct CutFleet {
  Folder dir;
  FleetReport report;
  CutFleet() {
    for (int i = 0; i < 4; ++i)
      write_node(dir.path, as_node(h200x2_default_run(), "n" + std::to_string(i)));
    RunDocument cut = as_node(h200x2_default_run(), "cut");
    cut.results.erase(std::remove_if(cut.results.begin(), cut.results.end(),
                                     [](const Result& r) { return r.bytes > k64M; }),
                      cut.results.end());
    const auto scale = [](std::optional<Stats>& s, double f) {
      if (s) s->min *= f, s->median *= f, s->max *= f, s->mean *= f;
    };
    for (auto& r : cut.results) {
      if (r.method != "ce-write" || r.status != ResultStatus::kOk) continue;
      scale(r.algbw_gbps, 0.5);
      scale(r.busbw_gbps, 0.5);
      scale(r.time_us, 2);
    }
    cut.status = "incomplete";
    cut.in_progress = {{"method", "ce-write"}};
    write_node(dir.path, cut);
    FleetOptions o;
    o.paths = {dir.path};
    report = build_fleet(o, method_catalog());
  }
};

TEST(FleetChart, ANodeThatStoppedShortIsDrawnAtTheSizeItHas) {
  const CutFleet f;
  const auto c = fleet_spread_chart(f.report);
  const svg::StripRow* row = nullptr;
  for (const auto& r : c.rows) {
    if (r.label.rfind("ce-write ", 0) == 0 && r.label.find("@ 64M") != std::string::npos) row = &r;
  }
  ASSERT_NE(row, nullptr) << "a ce-write row at 64M, the size the cut node has";
  EXPECT_NE(row->sublabel.find("cut: no figure at 1G"), std::string::npos) << row->sublabel;
  std::size_t cut_points = 0, others = 0;
  for (const auto& p : row->points) {
    if (p.name.rfind("cut ", 0) == 0) {
      ++cut_points;
      EXPECT_EQ(p.note, "no figure at 1G");
      EXPECT_NEAR(p.goodness, 0.5, 0.05) << "against every node's figure at 64M: " << p.detail;
      EXPECT_TRUE(p.outlier) << "drawn orange: under the outlier line there";
    } else {
      ++others;
      EXPECT_NEAR(p.goodness, 1.0, 0.05) << p.name;
    }
  }
  EXPECT_EQ(cut_points, 2u) << "both of its ce-write pairs";
  EXPECT_EQ(others, 8u) << "the healthy nodes' figures at 64M beside it";
  // Drawn and named in the page (the row's own line, a name or a numbered list entry).
  const std::string html = make_fleet_reporter(FleetFormat::kHtml)->render(f.report, {});
  EXPECT_NE(html.find("cut: no figure at 1G"), std::string::npos);
  EXPECT_TRUE(std::regex_search(html, std::regex("<text[^>]*>[^<]*cut 0000:")))
      << "its name, beside its mark or in the numbered list";
  // Never judged: no fleet-outlier from a figure at a size the fleet did not judge.
  for (const auto& n : f.report.nodes) {
    if (n.host != "cut") continue;
    EXPECT_EQ(n.state, NodeState::kIncomplete);
    for (const auto& p : n.pairs)
      for (const auto& flag : p.flags) EXPECT_NE(flag.code, "fleet-outlier") << flag.message;
  }
}

TEST(FleetChart, ANodeThatStoppedShortHasItsFiguresInOpenMetricsAndCsv) {
  const CutFleet f;
  const std::string om = make_fleet_reporter(FleetFormat::kOpenMetrics)->render(f.report, {});
  const std::string series = "peerbench_link_bandwidth_bytes_per_second{host=\"cut\"";
  const auto at = om.find(series);
  ASSERT_NE(at, std::string::npos) << om.substr(0, 2000);
  EXPECT_NE(om.find("method=\"ce-write\",bytes=\"" + std::to_string(k64M) + "\"", at),
            std::string::npos);
  EXPECT_NE(om.find("peerbench_fleet_median_bandwidth_bytes_per_second{method=\"ce-write\","
                    "gpu=\"NVIDIA H200\",link=\"NV18\",bytes=\"" +
                    std::to_string(k64M) + "\"}"),
            std::string::npos)
      << "the median its ratio is to";
  const std::string csv = make_fleet_reporter(FleetFormat::kCsv)->render(f.report, {});
  std::size_t rows = 0;
  for (std::size_t p = csv.find("\ncut,"); p != std::string::npos; p = csv.find("\ncut,", p + 1)) {
    const std::string line = csv.substr(p + 1, csv.find('\n', p + 1) - p - 1);
    if (line.find(",ce-write," + std::to_string(k64M) + ",") == std::string::npos) continue;
    ++rows;
    EXPECT_NE(line.find("no figure at the fleet's size 1 GiB"), std::string::npos) << line;
  }
  EXPECT_EQ(rows, 2u) << csv.substr(0, 600);
  // The fleet's groups stay at 1 GiB: the short figures judge nothing.
  for (const auto& g : f.report.groups)
    if (g.method == "ce-write") EXPECT_EQ(g.bytes, k1G);
}

}  // namespace
}  // namespace peerbench
