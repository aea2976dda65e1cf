#include "core/fleet/fleet_options.h"

#include "core/base/errors.h"
#include "core/fleet/fleet_report.h"
#include "core/model/sizes.h"

namespace peerbench {

bool parse_fleet_command_line(cxxopts::Options& o, int argc, const char* const* argv,
                              FleetOptions& out, std::string& help) {
  o.add_options()("paths", "results files or folders (searched for *.json)",
                  cxxopts::value<std::vector<std::string>>())(
      "hosts", "expected nodes, one name per line: absent ones are listed as missing",
      cxxopts::value<std::string>())(
      "expect", "thresholds file; fleet_outlier_tolerance sets the fleet-outlier tolerance",
      cxxopts::value<std::string>())("format", "text | markdown | html | csv | junit | openmetrics",
                                     cxxopts::value<std::string>()->default_value("text"))(
      "o,output", "write here instead of stdout (- is stdout)", cxxopts::value<std::string>())(
      "plots", "folder of plots from scripts/plot_fleet.py fleet to embed or link",
      cxxopts::value<std::string>())(
      "write-baseline",
      "also write the healthy nodes' medians as an --expect file (a site baseline) to FILE",
      cxxopts::value<std::string>())("h,help", "this help");
  o.parse_positional({"paths"});
  o.positional_help("PATH [PATH ...]");
  const auto r = o.parse(argc, argv);
  help = o.help();
  if (r.count("help")) return false;
  if (!r.count("paths")) throw UsageError("fleet: give results files or folders");
  out.paths = r["paths"].as<std::vector<std::string>>();
  // An empty value would silently mean "not given": refuse it, naming the flag.
  const auto path = [&](const char* key, const char* flag) {
    return non_empty_path(r[key].as<std::string>(), flag);
  };
  if (r.count("hosts")) out.hosts_file = path("hosts", "--hosts");
  if (r.count("expect")) out.expect_path = path("expect", "--expect");
  out.format = parse_fleet_format(r["format"].as<std::string>());
  if (r.count("output"))
    out.output_path = output_path(r["output"].as<std::string>(), "-o/--output");
  if (r.count("plots")) out.plots_dir = path("plots", "--plots");
  if (!out.plots_dir.empty() && out.format != FleetFormat::kMarkdown &&
      out.format != FleetFormat::kHtml) {
    throw UsageError("--plots: fleet --format " + r["format"].as<std::string>() +
                     " shows no plots; they go into --format markdown or html");
  }
  if (r.count("write-baseline")) out.write_baseline = path("write-baseline", "--write-baseline");
  for (std::size_t i = 0; i < out.paths.size(); ++i) {
    if (out.paths[i].empty())
      throw UsageError("fleet: path " + std::to_string(i + 1) + " is empty; give a file or folder");
  }
  return true;
}

}  // namespace peerbench
