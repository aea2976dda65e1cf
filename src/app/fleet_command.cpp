// `peerbench fleet` and `peerbench compare` of more than two runs: read many results files,
// render one verdict or one history through the core's reporters.
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include "app/commands.h"
#include "app/output.h"

#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/build_info.h"
#include "core/fleet/fleet_baseline.h"
#include "core/fleet/fleet_report.h"
#include "core/model/json_text.h"
#include "core/model/schema.h"
#include "core/platform/atomic_file.h"
#include "core/platform/input_file.h"
#include "core/platform/utc_time.h"
#include "core/present/history.h"
#include "gpu/method.h"

namespace peerbench::app {

namespace {

// The file a path names, spelled one way: its folder resolved (links, "..", "./") where it
// exists, then its name; "b.json" and "./b.json" are one file before either exists.
std::string resolved(const std::string& path) {
  const auto slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : path.substr(0, slash);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  char buf[PATH_MAX];
  return (::realpath(dir.c_str(), buf) ? std::string(buf) : dir) + "/" + name;
}

// --write-baseline: the healthy nodes' figures as a site baseline, said on stderr with what it
// left out.
void write_site_baseline(const FleetOptions& o, const FleetReport& r) {
  refuse_output_over_inputs(o.write_baseline, "--write-baseline", r.inputs);
  bool same = !o.output_path.empty() && resolved(o.output_path) == resolved(o.write_baseline);
  try {  // and links of one existing file
    refuse_output_over_inputs(o.write_baseline, "--write-baseline", {o.output_path});
  } catch (const UsageError&) {
    same = true;
  }
  if (same) {
    throw UsageError("--write-baseline and -o/--output name the same file (" +
                     sanitize_for_terminal(o.write_baseline) +
                     "): the report would replace the baseline; give two paths");
  }
  const std::string why = check_writable(o.write_baseline, true);
  if (!why.empty()) throw UsageError("--write-baseline: " + o.write_baseline + ": " + why);
  auto baseline = make_baseline(r, r.outlier_tolerance, utc_now_iso8601());
  baseline["baseline"]["from"]["peerbench"] =
      std::string(build_info::kVersion) + " " + build_info::kGitRevision;
  try {  // folders made as -J makes them
    write_file_atomically(o.write_baseline, json_text(baseline, 2) + "\n", true);
  } catch (const WriteError& e) {
    throw UsageError(std::string("--write-baseline: ") + e.what());
  }
  const auto left = baseline["baseline"]["from"]["cases_too_few_pairs"].size();
  std::fprintf(stderr, "peerbench: site baseline of the healthy nodes written to %s%s\n",
               sanitize_for_terminal(o.write_baseline).c_str(),
               left == 0 ? ""
                         : (" (" + std::to_string(left) + (left == 1 ? " case" : " cases") +
                            " left out with fewer than " + std::to_string(kFleetMinGroupPairs) +
                            " healthy pairs or " + std::to_string(kBaselineMinNodes) +
                            " nodes: baseline.from.cases_too_few_pairs)")
                               .c_str());
  // Healthy nodes a per-version baseline could not place are named, not dropped unseen.
  for (const auto& n : baseline["baseline"]["from"]["left_out"]) {
    if (n.contains("reason"))
      std::fprintf(stderr, "peerbench: %s left out of the baseline: it %s\n",
                   sanitize_for_terminal(n["host"].get<std::string>()).c_str(),
                   n["reason"].get<std::string>().c_str());
  }
  // The file holds the baseline alone: the --expect file's own bars stay in that file (an
  // audit found them dropped without a word).
  if (!o.expect_path.empty())
    std::fprintf(stderr,
                 "peerbench: the baseline file holds the site baseline only; the other "
                 "settings of %s (bars, tolerances) are not copied into it\n",
                 sanitize_for_terminal(o.expect_path).c_str());
}

}  // namespace

int fleet_command(const FleetOptions& o) {
  const FleetReport r = build_fleet(o, gpu::method_catalog());
  if (!o.output_path.empty()) {
    // Before the baseline is written: a bad -o once exited 2 with the baseline left behind.
    refuse_output_over_inputs(o.output_path, "-o/--output", r.inputs);
    const std::string why = output_refusal(o.output_path);
    if (!why.empty()) throw UsageError("-o/--output: " + o.output_path + ": " + why);
  }
  if (!o.write_baseline.empty()) write_site_baseline(o, r);
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
  for (const auto& path : o.runs) runs.push_back(load_named_run(path));
  const History h = build_history(runs, o.runs, o);
  const auto plots = find_plots(o.plots_dir, o.format == ReportFormat::kHtml, o.output_path);
  emit(render_history(h, o, plots), o.output_path, o.runs, plots);
  return h.exit_code;
}

}  // namespace peerbench::app
