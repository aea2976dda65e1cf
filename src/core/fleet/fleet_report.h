#pragma once
// Reporters of a fleet verdict, one class per format:
//   FleetTextReporter         terminal: groups, nodes worst first, findings with their evidence
//   FleetMarkdownReporter     the same for tickets and acceptance reports, plots linked
//   FleetHtmlReporter         one self-contained file, plots embedded, every string escaped
//   FleetCsvReporter          node, GPUs by PCI id, method, value, fleet median, ratio, flags
//   FleetJunitReporter        a test suite per node, a test case per pair and method (CI)
//   FleetOpenMetricsReporter  gauges for node_exporter's textfile collector, ending in # EOF
#include <memory>
#include <string>
#include <vector>

#include "core/fleet/fleet.h"
#include "core/present/report.h"
#include "core/present/svg_chart.h"

namespace peerbench {

class FleetReporter {
 public:
  virtual ~FleetReporter() = default;
  virtual std::string render(const FleetReport& r, const std::vector<PlotFile>& plots) const = 0;
};

std::unique_ptr<FleetReporter> make_fleet_reporter(FleetFormat f);

// The HTML report's chart: per group (method, GPU model, link, size), each pair against the
// fleet median, the quartiles and range, the outlier line, the outliers marked and named.
svg::StripChart fleet_spread_chart(const FleetReport& r);

// text | markdown (md) | html | csv | junit | openmetrics; throws UsageError naming --format.
FleetFormat parse_fleet_format(const std::string& v);

}  // namespace peerbench
