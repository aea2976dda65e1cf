// Job's closing phases: NCCL transports and link health gathered from every rank, the verdicts,
// the results file written for the last time, the exit code and the summary.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <ostream>
#include <set>
#include <string>

#include "core/base/text.h"
#include "core/judge/diagnosis.h"
#include "core/judge/verdict.h"
#include "core/model/json_text.h"
#include "core/model/results_file.h"
#include "core/model/schema.h"
#include "core/present/report.h"
#include "gpu/check.h"
#include "gpu/engine.h"
#include "gpu/job.h"
#include "gpu/link_health.h"

namespace peerbench::gpu {

using nlohmann::json;

// ---- Finish.

void Job::record_link_health() {
  finish_link_health(nvml_, health_);
  if (!health_.pcie_gen_under_load) {
    health_.note += std::string(health_.note.empty() ? "" : "; ") +
                    "PCIe not read under load (no staged, h2d or d2h step ran)";
  }
  for (const auto& s : allgather_strings(rank_.world, json_text(to_json(health_)))) {
    outcome_.doc.link_health.push_back(
        gpu_link_health_from_json(json::parse(s), "link health of a rank", "link_health"));
  }
}

void Job::record_nccl_transports() {
  RunDocument& doc = outcome_.doc;
  const bool nccl = want_nccl();
  doc.nccl.mode = nccl ? capture_.mode() : "not-used";
  doc.nccl.note = nccl ? capture_.note() : "no NCCL method selected";
  doc.nccl.subsystems = capture_.subsystems();
  doc.nccl.unknown_lines.clear();  // read again at the end of a burn-in's first cycle
  doc.nccl.reasons.clear();
  if (!nccl) return;
  // All NCCL work is done before its log is read.
  if (res_->nccl && fatal_.empty()) PB_CUDA(cudaDeviceSynchronize());
  NcclLogParse merged;
  std::set<std::string> graphs_seen;
  for (const auto& s :
       allgather_strings(rank_.world, json_text(to_json(capture_.read(log_start_))))) {
    const auto part = nccl_log_parse_from_json(json::parse(s), "NCCL log of a rank");
    merged.transports.insert(merged.transports.end(), part.transports.begin(),
                             part.transports.end());
    for (const auto& g : part.graphs) {
      if (graphs_seen.insert(g.raw).second) merged.graphs.push_back(g);
    }
    doc.nccl.unknown_lines.insert(doc.nccl.unknown_lines.end(), part.unknown.begin(),
                                  part.unknown.end());
    // Every rank's reasons, each once: ranks say the same of a variable they all see.
    for (const auto& r : part.reasons) {
      auto& rs = doc.nccl.reasons;
      if (std::find(rs.begin(), rs.end(), r) == rs.end()) rs.push_back(r);
    }
  }
  doc.nccl.graphs = merged.graphs;
  doc.nccl.path_type = dominant_intra_path(merged.graphs);
  for (const auto& t : summarize_transports(merged.transports)) {
    for (auto& p : doc.pairs) {
      if (p.src == t.src_rank && p.dst == t.dst_rank) p.nccl = t;
    }
  }
  if (!res_->nccl) {
    doc.nccl.note = "no NCCL communicator: " + res_->nccl_reason;
  } else if (merged.transports.empty() &&
             (capture_.mode() == "peerbench" || capture_.mode() == "user-file")) {
    doc.nccl.note += doc.nccl.note.empty() ? "" : "; ";
    doc.nccl.note += "no transport lines found in the log";
  }
}

void Job::finish() {
  RunDocument& doc = outcome_.doc;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start_).count();
  doc.timing.elapsed_s = elapsed;
  doc.finished_at = utc_now_iso8601();
  // A stop request in the first pass leaves the plan unfinished; a burn-in stopped later has its
  // first cycle whole and says why it stopped. A stop between cycle 1 and 2 wrote "incomplete"
  // over whole results (an audit).
  doc.status = !fatal_.empty() ? "failed" : !first_cycle_whole_ ? "incomplete" : "complete";
  if (root()) {
    doc.verdicts = compute_verdicts(doc, expectations_);
    doc.diagnosis = diagnose(doc, doc.verdicts);
    outcome_.json_written = file_->write(doc);
    if (!outcome_.json_written && out()) {
      *out() << "# The results file could not be written; the JSON follows on stdout.\n"
             << json_text(to_json(doc), 1) << "\n";
    }
    print_summary(elapsed);
  }
  // The exit code of `report` on the file just written: 0 only when everything requested was
  // measured and passed (--fail-on selects what counts).
  const std::string code =
      root() ? std::to_string(run_exit_code(doc, doc.verdicts, opts_.fail_on)) : std::string();
  outcome_.exit_code = std::stoi(bcast_string(rank_.world, code, 0));
  // Nobody frees buffers another rank may still be reading through its mapping.
  try {
    barrier(rank_.world);
  } catch (const std::exception&) {
    // A peer already gone: the results are written and the exit code agreed; nothing to wait for.
  }
}

void Job::print_summary(double elapsed) {
  std::ostream* o = out();
  if (!o) return;
  const RunDocument& doc = outcome_.doc;
  *o << "#\n# Verdicts (report: peerbench report " << opts_.json_path << "):\n";
  const int link_w = verdict_link_width(doc.verdicts);
  for (const auto& v : doc.verdicts) {
    *o << "#  " << std::left << std::setw(7) << pair_name(v.src, v.dst) << std::setw(link_w)
       << v.link << (v.verdict == "flagged" ? "FLAGGED" : v.verdict) << "  " << v.observed << "\n";
    for (const auto& f : v.flags) *o << "#      " << f.code << ": " << f.message << "\n";
  }
  *o << "# " << run_headline(doc, doc.verdicts) << "\n";
  // Why, and what to do next: each cause and its Next line (the report shows its evidence).
  for (const auto& c : doc.diagnosis)
    *o << "# Cause (" << c.strength << "): " << c.summary << "\n#   " << c.next << "\n";
  if (const auto why = failing_line(doc, doc.verdicts, opts_.fail_on); !why.empty())
    *o << "# Exit 1: " << why << "\n";
  if (const auto waived = waived_line(doc, doc.verdicts, opts_.fail_on); !waived.empty())
    *o << "# Waived: " << waived << "\n";
  *o << "# Bars: " << bars_used_line(doc, doc.verdicts, expectations_) << "\n";
  if (doc.nccl.mode != "not-used") {
    *o << "# NCCL transport capture: " << doc.nccl.mode
       << (doc.nccl.path_type.empty() ? "" : ", graph path " + doc.nccl.path_type) << "\n";
  }
  *o << "# Results: " << opts_.json_path << (outcome_.json_written ? "" : " (NOT written)") << "\n";
  *o << "# Time: " << format_fixed(elapsed, 1) << " s measured, estimated "
     << estimate_text(plan_.estimate_s, opts_.cycles, opts_.duration_s, 1) << "\n";
  o->flush();
}

}  // namespace peerbench::gpu
