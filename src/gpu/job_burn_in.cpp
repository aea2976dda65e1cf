// Burn-in (-N, --duration): the plan again and again, each cycle's results folded into the burn-in
// series (core/judge/burn_in.h), the NVLink error and PCIe replay counters read around every cycle,
// and the file written after each; a stop request (SIGINT, SIGTERM) ends it cleanly with the cycles
// done. A plain run is one cycle of the same loop.
#include <algorithm>
#include <chrono>
#include <ostream>

#include "core/base/text.h"
#include "core/judge/burn_in.h"
#include "core/judge/verdict.h"
#include "core/model/link_counters.h"
#include "gpu/job.h"
#include "gpu/stop_request.h"

namespace peerbench::gpu {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

bool Job::stop_asked() {
  if (stopping_) return true;
  stopping_ = !all_true(rank_.world, !stop_requested());  // collective
  if (stopping_) {  // which signal, as the lowest rank that got one saw it (collective too)
    for (const auto& s : allgather_strings(rank_.world, stop_signal_name())) {
      if (!s.empty()) {
        stop_signal_ = s;
        break;
      }
    }
    if (stop_signal_.empty()) stop_signal_ = "SIGINT";
  }
  return stopping_;
}

void Job::begin_cycle() {
  this_cycle_ = BurnInCycle{};
  this_cycle_.cycle = cycle_;
  this_cycle_.started_s = seconds_since(t_start_);
  cycle_links_.clear();
  cycle_replays_.reset();
  if (!opts_.burn_in()) return;
  if (auto d = nvml_.device_by_pci(my_gpu_.pci_bus_id)) {
    for (const auto& l : nvml_.nvlink_errors(*d))
      cycle_links_.push_back({l.link, l.replay, l.recovery, l.crc_flit, l.crc_data});
    cycle_replays_ = nvml_.pcie_replays(*d);
  }
}

void Job::record_cycle_result(const Result& r) {
  this_cycle_.wrong += r.wrong;
  if (burn_in_failure(r)) ++this_cycle_.failed;
  if (outcome_.doc.burn_in)
    burn_in_recorder_.record(*outcome_.doc.burn_in, cycle_, r, find_method(selected_, r.method));
}

// The cycle's counters that grew on every rank's GPU, then the cycle into the file.
void Job::end_cycle(bool whole) {
  if (!opts_.burn_in()) return;
  std::vector<std::string> grown;
  if (auto d = nvml_.device_by_pci(my_gpu_.pci_bus_id)) {
    std::vector<NvLinkErrorCounts> now;
    for (const auto& l : nvml_.nvlink_errors(*d))
      now.push_back({l.link, l.replay, l.recovery, l.crc_flit, l.crc_data});
    grown = grown_counters(cycle_links_, now);
    const auto replays = nvml_.pcie_replays(*d);
    if (replays && cycle_replays_ && *replays > *cycle_replays_)
      grown.push_back("PCIe replay +" + std::to_string(*replays - *cycle_replays_));
  }
  const std::string where =
      "GPU " + std::to_string(my_gpu_.index) + " (" + my_gpu_.pci_bus_id + ") of " + rank_.host;
  std::string mine;
  for (const auto& g : grown) mine += (mine.empty() ? "" : "\n") + g + " on " + where;
  BurnIn& b = *outcome_.doc.burn_in;
  for (const auto& s : allgather_strings(rank_.world, mine)) {  // collective
    for (const auto& line : split(s, '\n')) {
      if (!line.empty()) this_cycle_.counters.push_back(line);
    }
  }
  this_cycle_.elapsed_s = seconds_since(t_start_) - this_cycle_.started_s;
  b.cycles.push_back(this_cycle_);
  if (whole) b.cycles_done = cycle_;
  if (out() && opts_.verbosity > 0) {
    *out() << "# burn-in cycle " << cycle_ << (whole ? "" : " (cut short)") << ": "
           << format_fixed(this_cycle_.elapsed_s, 1) << " s, " << this_cycle_.wrong
           << " wrong elements, " << this_cycle_.failed << " failed cases"
           << (this_cycle_.counters.empty() ? "" : ", " + join(this_cycle_.counters, "; ")) << "\n";
  }
  // The file written after each cycle says how NCCL connected from the first cycle on (every
  // rank reads its log together; finish() reads it again).
  if (cycle_ == 1 && whole && fatal_.empty()) record_nccl_transports();
  if (root()) outcome_.json_written = file_->write(outcome_.doc);
}

// Another cycle? Not past -N, nor past --duration (a cycle that would start after it), nor when
// any rank was asked to stop. Every rank reaches the same answer.
bool Job::next_cycle() {
  if (!opts_.burn_in()) return false;
  BurnIn& b = *outcome_.doc.burn_in;
  std::string why;
  const bool stop = stop_asked();  // collective: every rank asks, whatever comes first below
  // A bound reached names the end before a signal that came with it: SIGTERM at a batch
  // system's limit, after the last cycle of a --duration, read as a burn-in cut short (a review).
  if (opts_.cycles > 0 && cycle_ >= opts_.cycles) {
    why = "cycles";
  } else if (opts_.duration_s > 0 && seconds_since(t_start_) >= opts_.duration_s) {
    why = "duration";
  } else if (stop) {
    why = stop_signal_;
  }
  why = bcast_string(rank_.world, why, 0);  // rank 0's clock decides the duration for all
  if (!why.empty()) b.stopped_by = why;
  return why.empty();
}

}  // namespace peerbench::gpu
