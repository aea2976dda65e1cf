// `peerbench import`: other tools' outputs as peerbench results files, judged as runs are.
#include <cstdio>
#include <string>
#include <vector>

#include "app/commands.h"
#include "app/output.h"
#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/import/import.h"
#include "core/judge/verdict.h"
#include "core/model/json_text.h"
#include "core/model/schema.h"
#include "core/platform/input_file.h"

namespace peerbench::app {
namespace {

struct Imported {
  std::string path;
  RunDocument doc;
};

std::string stem(const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  const auto dot = name.rfind('.');
  return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

// "all_reduce.log: nccl-tests text output, nccl-tests 2.13.9, 8 ranks on 1 host, 23 figures;
// 1 pass of 1 verdicts"
std::string summary_line(const Imported& i) {
  const auto& d = i.doc;
  const auto& imp = d.config["imported"];
  std::string s = i.path + ": " + imp.value("format", std::string()) + ", " + d.tool.name +
                  (d.tool.version.empty() ? "" : " " + d.tool.version) + ", " +
                  count_of(static_cast<long long>(d.system.ranks.size()), "rank") + " on " +
                  count_of(static_cast<long long>(d.system.hosts.size()), "host") + ", " +
                  count_of(static_cast<long long>(d.results.size()), "figure") + "; " +
                  verdict_headline(count_verdicts(d.verdicts));
  if (d.status != "complete" && !d.errors.empty()) s += "; " + d.status + ": " + d.errors.back();
  for (const auto& u : imp.value("unknown", nlohmann::json::array()))
    s += "\n  unknown: " + u.get<std::string>();
  for (const auto& u : imp.value("unmapped", nlohmann::json::array()))
    s += "\n  not imported: " + u.value("test", std::string()) + " (" +
         u.value("why", std::string()) + ")";
  return sanitize_lines_for_terminal(s);
}

// The inputs read: topo -m files apart, to judge every single-host output by.
std::vector<Imported> read_inputs(const ImportOptions& o) {
  std::vector<Imported> runs;
  std::vector<std::pair<std::string, TopologyReport>> topos;
  for (const auto& path : o.inputs) {
    const std::string text = read_input_file(path, InputKind::kImport);
    if (detect_format(text) == ImportFormat::kTopoMatrix) {
      topos.emplace_back(path, import_topology(text, path));
    } else if (detect_format(text) == ImportFormat::kPeerbenchRun) {
      throw InputError(quoted_path(path), "", "a peerbench results file already; report reads it");
    } else {
      runs.push_back({path, import_text(text, path)});
    }
  }
  if (runs.empty()) throw UsageError("import: no output to import, only topologies (topo -m)");
  if (topos.size() > 1)
    throw UsageError("import: give one topo -m (got " + std::to_string(topos.size()) + ")");
  for (auto& r : runs) {
    if (!topos.empty()) attach_topology(r.doc, topos[0].second, topos[0].first);
    r.doc.verdicts = compute_verdicts(r.doc, Expectations{});
  }
  return runs;
}

}  // namespace

int import_command(const ImportOptions& o) {
  if (!o.json_path.empty() && o.inputs.size() > 1) {
    // Counted before reading: a topo -m beside one output is fine.
    int outputs = 0;
    for (const auto& p : o.inputs) outputs += sniff_file(p) != ImportFormat::kTopoMatrix;
    if (outputs > 1)
      throw UsageError("-J/--json: writes one output's run, and " + std::to_string(outputs) +
                       " were given; give --out-dir DIR for several");
  }
  const auto runs = read_inputs(o);
  for (const auto& r : runs) {
    std::string target = o.json_path;
    if (!o.out_dir.empty()) target = o.out_dir + "/" + stem(r.path) + ".json";
    if (target.empty()) {
      std::printf("%s\n", summary_line(r).c_str());
      continue;
    }
    refuse_output_over_inputs(target, o.json_path.empty() ? "--out-dir" : "-J/--json", o.inputs);
    write_output(target, json_text(to_json(r.doc), 1) + "\n",
                 o.json_path.empty() ? "--out-dir" : "-J/--json");
    std::printf("%s\n  wrote %s\n", summary_line(r).c_str(), quoted_path(target).c_str());
  }
  return kExitOk;
}

}  // namespace peerbench::app
