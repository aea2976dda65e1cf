// `peerbench fleet` and `peerbench compare` of more than two runs: read many results files,
// render one verdict or one history through the core's reporters.
#include "app/commands.h"
#include "app/output.h"
#include "core/fleet_report.h"
#include "core/history.h"
#include "core/schema.h"
#include "gpu/method.h"

namespace peerbench::app {

int fleet_command(const FleetOptions& o) {
  const FleetReport r = build_fleet(o, gpu::method_catalog());
  const bool html = o.format == FleetFormat::kHtml;
  const auto plots = html || o.format == FleetFormat::kMarkdown
                         ? find_plots(o.plots_dir, html, o.output_path)
                         : std::vector<PlotFile>{};
  emit(make_fleet_reporter(o.format)->render(r, plots), o.output_path, r.inputs, plots);
  return fleet_exit_code(r);
}

int history_command(const CompareOptions& o) {
  std::vector<RunDocument> runs;
  runs.reserve(o.runs.size());
  for (const auto& path : o.runs) runs.push_back(load_run_file(path));
  const History h = build_history(runs, o.runs, o);
  const auto plots = find_plots(o.plots_dir, o.format == ReportFormat::kHtml, o.output_path);
  emit(render_history(h, o, plots), o.output_path, o.runs, plots);
  return h.exit_code;
}

}  // namespace peerbench::app
