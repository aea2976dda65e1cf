// The live table of `run` (core/report.h's LiveReporter): one line per case as it completes.
#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

#include "core/base/text.h"
#include "core/judge/verdict.h"
#include "core/model/datatypes.h"
#include "core/model/result_index.h"
#include "core/model/sizes.h"
#include "core/present/report.h"
#include "core/present/report_parts.h"
#include "core/present/run_progress.h"
#include "core/present/text_table.h"

namespace peerbench {
using report_parts::variant_suffix;

namespace {

// The live table's columns: nccl-tests' (size, count, type, redop, root, time, algbw, busbw,
// #wrong) with peerbench's method, pair, round and spread. Fixed widths, since lines appear as
// cases complete; a longer value pushes its line right, never into the next column.
const std::vector<std::size_t> kLiveWidths = {20, 7, 12, 12, 8, 6, 4, 5, 10, 9, 9, 8, 6, 0};
const std::vector<Align> kLiveAlign = {Align::kLeft,  Align::kLeft,  Align::kRight, Align::kRight,
                                       Align::kRight, Align::kRight, Align::kRight, Align::kRight,
                                       Align::kRight, Align::kRight, Align::kRight, Align::kRight,
                                       Align::kRight, Align::kLeft};

// count, type, redop, root as nccl-tests prints them (redop "none", root -1 where they do not
// apply to a collective); "-" for methods that have no element type.
std::vector<std::string> nccl_columns(const Result& r) {
  if (r.datatype.empty()) return {"-", "-", "-", "-"};
  std::string count = "-";
  try {
    count = std::to_string(r.bytes / type_size(data_type_from_name(r.datatype)));
  } catch (const std::invalid_argument&) {
    // A type this build does not know (a newer file): its count is not computed.
  }
  return {count, r.datatype, r.op.empty() ? "none" : r.op, std::to_string(r.root)};
}

std::string round_text(const Result& r) {
  return std::to_string(r.round) +
         (r.concurrent_pairs > 1 ? "x" + std::to_string(r.concurrent_pairs) : "");
}

// What follows "ok" on a result's line: data errors, interference, per-iteration detail.
std::string live_notes(const Result& r, int verbosity) {
  std::ostringstream out;
  if (r.wrong > 0) out << " DATA ERRORS";
  if (r.gate_timeouts > 0) out << " (start gate timed out " << r.gate_timeouts << "x)";
  if (contended(r) || throttled(r)) {
    out << (contended(r) ? " CONTENDED:" : " THROTTLED:");
    for (const auto& g : *r.interference) {
      for (const auto& p : g.processes)
        out << " pid " << p.pid << (p.name.empty() ? "" : " " + sanitize_for_terminal(p.name));
      if (g.busy_while_idle) out << " GPU busy " << g.util_gpu_pct.value_or(0) << " %";
      for (const auto& t : g.throttle_reasons) out << " " << t;
      out << " on rank " << g.rank;
    }
  }
  if (r.enqueue && r.enqueue->launch_bound) out << " launch-bound (not judged)";
  if (verbosity >= 2 && r.per_iteration) {
    out << " per-iteration(us): p50 " << format_fixed(r.per_iteration->p50_us, 2) << " p99 "
        << format_fixed(r.per_iteration->p99_us, 2) << " cv "
        << format_fixed(r.per_iteration->cv, 3);
  }
  if (verbosity >= 2 && !r.sample_time_us.empty()) {
    out << " samples(us):";
    for (double t : r.sample_time_us) out << " " << format_fixed(t, 2);
  }
  if (!r.directions.empty() && verbosity >= 1) {
    out << " [";
    for (std::size_t i = 0; i < r.directions.size(); ++i) {
      out << (i ? ", " : "") << r.directions[i].src << "->" << r.directions[i].dst << " "
          << format_fixed(r.directions[i].algbw_gbps.median, 1);
    }
    out << "]";
  }
  return out.str();
}

}  // namespace

std::string LiveReporter::rank_time_words(int average) {
  switch (average) {
    case 0:
      return "rank 0's, median of the samples (nccl-tests' -a 0)";
    case 1:
      return "the average of the ranks', median of the samples (nccl-tests' -a 1)";
    case 2:
      return "the fastest rank's, median of the samples (nccl-tests' -a 2)";
    default:
      return kSlowestRankTime;
  }
}

// With -C, the host's CPU time per operation stands beside the GPU time, as its own column.
constexpr std::size_t kTimeColumn = 8;

std::vector<std::string> with_cpu_column(std::vector<std::string> cells, bool on, std::string cpu) {
  if (on) cells.insert(cells.begin() + kTimeColumn + 1, std::move(cpu));
  return cells;
}

void LiveReporter::line(const std::vector<std::string>& cells) {
  auto widths = kLiveWidths;
  auto align = kLiveAlign;
  if (cpu_time_) {
    widths.insert(widths.begin() + kTimeColumn + 1, 9);
    align.insert(align.begin() + kTimeColumn + 1, Align::kRight);
  }
  out_ << format_columns(cells, widths, align) << "\n";
}

void LiveReporter::header(const std::string& rank_time) {
  if (verbosity_ <= 0) return;
  out_ << "#\n# time: " << rank_time
       << "; nccl-tests defaults to the average of the ranks' times (its -a 1)\n";
  out_ << "# ";
  line(with_cpu_column({"method", "pair", "size", "count", "type", "redop", "root", "round",
                        "time(us)", "algbw", "busbw", "min-max%", "#wrong", "status"},
                       cpu_time_, "cpu(us)"));
  out_ << "# ";
  line(with_cpu_column(
      {"", "", "(B)", "(elements)", "", "", "", "", "median", "(GB/s)", "(GB/s)", "", "", ""},
      cpu_time_, "per op"));
  out_.flush();
}

void LiveReporter::result(const RunDocument& d, const MethodInfo* m, const Result& r) {
  (void)d;
  if (verbosity_ <= 0) return;
  std::vector<std::string> cells{r.method, pair_name(r.src, r.dst), std::to_string(r.bytes)};
  for (auto& c : nccl_columns(r)) cells.push_back(std::move(c));
  cells.push_back(round_text(r));
  if (r.status == ResultStatus::kOk && r.time_us && r.algbw_gbps) {
    const bool latency = m && m->metric == Metric::kLatency;
    const auto& spread = latency ? *r.time_us : *r.algbw_gbps;
    cells.push_back(format_fixed(r.time_us->median, 2));
    cells.push_back(latency ? "-" : format_fixed(r.algbw_gbps->median, 2));
    cells.push_back(
        latency ? "-"
                : format_fixed(r.busbw_gbps ? r.busbw_gbps->median : r.algbw_gbps->median, 2));
    cells.push_back(format_fixed(100.0 * relative_spread(spread), 1));
    cells.push_back(r.checked ? std::to_string(r.wrong) : "N/A");
    cells.push_back("ok" + live_notes(r, verbosity_));
  } else {
    for (int i = 0; i < 5; ++i) cells.push_back("-");
    cells.push_back(to_string(r.status) + (r.reason.empty() ? "" : ": " + r.reason));
  }
  const bool ok = r.status == ResultStatus::kOk && r.time_us && r.algbw_gbps;
  out_ << "  ";
  line(with_cpu_column(std::move(cells), cpu_time_,
                       ok && r.enqueue ? format_fixed(r.enqueue->host_us_per_op, 2) : "-"));
  out_.flush();
  ++lines_;
}

void LiveReporter::footer(const RunDocument& d) {
  if (verbosity_ <= 0) return;
  // nccl-tests' footer: the values out of bounds (here: wrong elements of every checked case),
  // then the average bus bandwidth over the sizes, here per method and variant, since one run
  // holds many.
  std::uint64_t wrong = 0;
  std::vector<std::pair<std::string, std::pair<double, int>>> sums;  // in run order
  for (const auto& r : d.results) {
    wrong += r.wrong;
    const auto* m = find_method(d.methods, r.method);
    if (r.status != ResultStatus::kOk || !r.algbw_gbps || (m && m->metric == Metric::kLatency))
      continue;
    const std::string label = r.method + variant_suffix(variant_label(r));
    auto it =
        std::find_if(sums.begin(), sums.end(), [&](const auto& s) { return s.first == label; });
    if (it == sums.end()) it = sums.insert(sums.end(), {label, {0.0, 0}});
    it->second.first += r.busbw_gbps ? r.busbw_gbps->median : r.algbw_gbps->median;
    ++it->second.second;
  }
  out_ << "# Out of bounds values : " << wrong << (wrong ? " FAILED" : " OK") << "\n";
  for (const auto& [label, sum] : sums) {
    out_ << "# Avg bus bandwidth    : " << format_fixed(sum.first / sum.second, 4) << "  (" << label
         << ", GB/s, " << sum.second << " size" << (sum.second == 1 ? "" : "s") << ")\n";
  }
  out_ << "#\n";
  out_.flush();
}

void LiveReporter::progress(int done, int total, double elapsed_s, double remaining_s,
                            const std::string& what, bool terminal) {
  if (verbosity_ <= 0) return;
  std::ostringstream line;
  line << "# [" << done << "/" << total << "] " << format_fixed(elapsed_s, 0) << " s elapsed, "
       << (remaining_s < 0 ? "until stopped" : "~" + format_fixed(remaining_s, 0) + " s left")
       << ": " << what;
  if (terminal) {
    // Redrawn in place under the result lines.
    out_ << "\r" << line.str() << "\033[K\r";
  } else if (verbosity_ >= 1) {
    out_ << line.str() << "\n";  // logs get one line per update
  }
  out_.flush();
}

}  // namespace peerbench
