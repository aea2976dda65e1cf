#include "app/commands.h"
#include "app/output.h"
#include "core/base/errors.h"
#include "core/judge/verdict.h"
#include "core/model/schema.h"
#include "core/present/compare.h"
#include "core/present/report.h"

namespace peerbench::app {

namespace {

// The bars a run judged by (config.expectations, schema 3), or the built-in ones.
Expectations recorded_expectations(const RunDocument& d, const std::string& path) {
  if (!d.config.is_object() || !d.config.contains("expectations") ||
      !d.config["expectations"].is_object())
    return {};
  Expectations e = expectations_from_json(d.config["expectations"], path, {});
  const auto& j = d.config["expectations"];
  e.source = "the run's own bars (" +
             (j.contains("comment") && j["comment"].is_string() ? j["comment"].get<std::string>()
                                                                : std::string("built-in")) +
             ")";
  return e;
}

// `report "" b.json` names the empty argument (reading "" would only say "no such file").
void refuse_empty_arguments(const char* command, const std::vector<std::string>& paths) {
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (paths[i].empty()) {
      throw UsageError(std::string(command) + ": argument " + std::to_string(i + 1) + " of " +
                       std::to_string(paths.size()) + " is empty; give a results file");
    }
  }
}

std::vector<std::string> with_expect(std::vector<std::string> inputs, const std::string& expect) {
  if (!expect.empty()) inputs.push_back(expect);
  return inputs;
}

}  // namespace

int report_command(const ReportOptions& o, const std::vector<MethodInfo>& catalog) {
  refuse_empty_arguments("report", o.inputs);
  Expectations e;
  if (!o.expect_path.empty()) e = load_expectations(o.expect_path, catalog);
  std::vector<RunDocument> docs;
  docs.reserve(o.inputs.size());
  for (const auto& path : o.inputs) docs.push_back(load_named_run(path));
  std::vector<ReportInput> inputs;
  int failing = 0;
  for (std::size_t i = 0; i < docs.size(); ++i) {
    ReportInput in;
    in.path = o.inputs[i];
    in.doc = &docs[i];
    // Recomputed: by --expect when given, else by the bars the run recorded, else built-in.
    const Expectations bars = o.expect_path.empty() ? recorded_expectations(docs[i], in.path) : e;
    in.verdicts = compute_verdicts(docs[i], bars);
    in.expectations_source = bars.source;
    in.bars_used = bars_used_line(docs[i], in.verdicts, bars);
    in.recorded = recorded_verdicts_note(docs[i], in.verdicts);
    in.known_good = known_good_marks(docs[i], bars, in.verdicts);
    const auto failing_items = run_failing_items(docs[i], in.verdicts, o.fail_on);
    in.failing = static_cast<int>(failing_items.size());
    in.failing_why = failing_line(failing_items, o.fail_on);
    in.waived_why = waived_line(docs[i], in.verdicts, o.fail_on);
    failing += in.failing;
    inputs.push_back(std::move(in));
  }
  const auto plots = find_plots(o.plots_dir, o.format == ReportFormat::kHtml, o.output_path);
  emit(make_reporter(o.format)->render(inputs, plots), o.output_path,
       with_expect(o.inputs, o.expect_path), plots);
  // 0 only when everything requested was measured and passed (flags and incomplete
  // measurements selected by --fail-on make it 1).
  return failing > 0 ? kExitFlagged : kExitOk;
}

int compare_command(const CompareOptions& o) {
  refuse_empty_arguments(
      "compare", o.runs.empty() ? std::vector<std::string>{o.baseline, o.candidate} : o.runs);
  if (o.runs.size() > 2) return history_command(o);
  const RunDocument a = load_named_run(o.baseline);
  const RunDocument b = load_named_run(o.candidate);
  const Comparison c = compare_runs(a, o.baseline, b, o.candidate, o);
  emit(render_comparison(c, o.baseline, o.candidate, o), o.output_path, {o.baseline, o.candidate},
       {});
  return comparison_exit_code(c, o);
}

}  // namespace peerbench::app
