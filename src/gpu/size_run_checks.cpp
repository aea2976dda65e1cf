// SizeRun's checks and records: each sample's data check, its times and units into the tallies,
// the interference the monitors saw, and the NVLink counters around the samples.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "collective_kernels.h"
#include "core/model/json_text.h"
#include "core/model/schema_activity.h"
#include "core/model/statistics.h"
#include "gpu/check.h"
#include "gpu/size_run.h"
#include "pattern_formula.h"
#include "pattern_kernels.h"

namespace peerbench::gpu {

void SizeRun::check_sample(int sample) {
  try {
    if (!active() || !rep_.ok()) return;
    const auto st = res_.stream.get();
    const auto s = static_cast<std::uint32_t>(sample);
    auto* wrong_dev = static_cast<unsigned long long*>(res_.scratch.get());
    std::uint64_t elements = 0;
    if (o_.check && m_.data_mode() == DataMode::kCollective) {
      const CollectiveLayout l = m_.collective_layout(ctx_);
      void* outbuf = l.in_place ? ctx_.local.src : ctx_.local.dst;
      const std::size_t out_bytes = l.recv_elems * type_size(ctx_.dtype);
      if (corrupt_here_ && out_bytes >= 4)
        PB_CUDA(kernels::corrupt_one_word(st, outbuf, out_bytes));
      if (l.recv_elems > 0) {
        PB_CUDA(kernels::check_collective_output(st, outbuf, l.recv_elems, collective_data(l, s),
                                                 wrong_dev));
      }
      elements += l.recv_elems;
    } else if (o_.check && m_.data_mode() == DataMode::kBytes) {
      m_.before_check(ctx_);
      for (const auto& f : mine_->flows) {
        if (f.to != me_) continue;
        if (corrupt_here_) PB_CUDA(kernels::corrupt_one_word(st, ctx_.local.dst, bytes_));
        const std::uint64_t seed = pattern_seed(f.from, bytes_, s, salt_);
        PB_CUDA(kernels::check_pattern(st, ctx_.local.dst, bytes_, seed, wrong_dev));
        elements += bytes_ / 4 + bytes_ % 4;
      }
    }
    unsigned long long wrong = 0;
    unsigned int gate_timeouts = 0;
    PB_CUDA(cudaMemcpyAsync(&wrong, wrong_dev, sizeof(wrong), cudaMemcpyDeviceToHost, st));
    PB_CUDA(cudaMemcpyAsync(&gate_timeouts, ctx_.counter(DeviceCounter::kGateTimeouts),
                            sizeof(gate_timeouts), cudaMemcpyDeviceToHost, st));
    PB_CUDA(cudaStreamSynchronize(st));
    const CheckCounts extra = m_.after_sample(ctx_);
    rep_.wrong = wrong + extra.wrong;
    rep_.checked = elements + extra.elements;
    rep_.gate_timeouts = static_cast<int>(gate_timeouts);
    if (gate_timeouts > 0) {
      // The timed work started when the gate gave up, not when every rank was ready: the
      // figure would mix launch gaps into the transfer. Not a measurement.
      rep_.fail(RankStatus::kError, res_.rank->where() + ": " + label() +
                                        ": the start gate opened by its timeout, not by the "
                                        "host; sample discarded");
    }
  } catch (const std::exception& e) {
    record_failure(e);
  }
}

void SizeRun::record_sample(const std::vector<RankReport>& all) {
  const double per = static_cast<double>(iters_) * replays_ * transfers_;
  for (std::size_t i = 0; i < pairs_.size(); ++i) {
    const auto& p = pairs_[i];
    if (p.failed) continue;
    // The time over the working ranks, by -a (default: the slowest rank's).
    std::vector<double> worker_ms;
    for (int q : p.workers) worker_ms.push_back(all[q].elapsed_ms);
    tally_[i].times.push_back(over_ranks(worker_ms, o_.average) * 1e-3 / per);
    std::vector<double> dirs;
    for (const auto& f : p.flows) dirs.push_back(all[f.issuer].elapsed_ms * 1e-3 / per);
    tally_[i].dir_times.push_back(dirs);
    double enqueue = 0;
    for (int q : p.workers) enqueue = std::max(enqueue, all[q].enqueue_us);
    tally_[i].enqueue_us.push_back(enqueue);
  }
}

// The data check of every sample counts, the per-iteration one too.
void SizeRun::record_check(const std::vector<RankReport>& all) {
  for (std::size_t i = 0; i < pairs_.size(); ++i) {
    if (pairs_[i].failed) continue;
    for (int q : pairs_[i].ranks) {
      tally_[i].wrong += all[q].wrong;
      tally_[i].checked += all[q].checked;
    }
  }
}

// Each unit's time, the slowest worker's per unit, as the time of one transfer (us).
void SizeRun::record_units() {
  std::string mine;
  if (worker() && !unit_ms_.empty())
    mine.assign(reinterpret_cast<const char*>(unit_ms_.data()), unit_ms_.size() * sizeof(double));
  const auto all = allgather_strings(res_.rank->world, mine);  // collective: every rank
  const double per_unit = static_cast<double>(use_graph_ ? iters_ : 1) * transfers_;
  for (std::size_t i = 0; i < pairs_.size(); ++i) {
    const auto& p = pairs_[i];
    if (p.failed) continue;
    std::vector<double> slowest;
    for (int q : p.workers) {
      const auto& bytes = all[static_cast<std::size_t>(q)];
      const std::size_t n = bytes.size() / sizeof(double);
      if (slowest.empty()) slowest.assign(n, 0);
      if (n != slowest.size()) continue;  // a worker that failed this sample
      for (std::size_t u = 0; u < n; ++u) {
        double ms = 0;
        std::memcpy(&ms, bytes.data() + u * sizeof(double), sizeof(double));
        slowest[u] = std::max(slowest[u], ms);
      }
    }
    for (double ms : slowest) tally_[i].iteration_us.push_back(ms * 1e3 / per_unit);
  }
}

// What was in the way while this size ran, on every rank's GPU, into each pair's tally.
void SizeRun::gather_interference() {
  std::string mine;
  if (res_.monitor && res_.monitor->watching())
    mine = json_text(to_json(res_.monitor->case_window(t0_s_)));
  const auto all = allgather_strings(res_.rank->world, mine);  // collective: every rank
  for (std::size_t i = 0; i < pairs_.size(); ++i) {
    std::vector<GpuInterference> seen;
    bool watched = true;
    for (int q : pairs_[i].ranks) {
      const auto& s = all[static_cast<std::size_t>(q)];
      if (s.empty()) {
        watched = false;
        continue;
      }
      const auto g = gpu_interference_from(JsonIn(nlohmann::json::parse(s), "rank report"));
      if (g.contended() || g.throttled()) seen.push_back(g);
    }
    if (watched) tally_[i].interference = seen;
  }
}

// ---- NVLink counters around the whole sample loop: which link carried the copies.

void SizeRun::count_link_traffic(bool before) {
  if (!count_link_ || !active()) return;
  const Nvml& nvml = *res_.nvml;
  const auto& bus = res_.bus_id_of_rank;
  Nvml::Traffic src, dst;
  if (auto d = nvml.device_by_pci(bus[mine_->pair.src])) src = nvml.nvlink_traffic(*d);
  if (auto d = nvml.device_by_pci(bus[mine_->pair.dst])) dst = nvml.nvlink_traffic(*d);
  if (before) {
    before_src_ = src;
    before_dst_ = dst;
    return;
  }
  if (before_src_.tx_bytes && src.tx_bytes) rep_.nvl_tx = *src.tx_bytes - *before_src_.tx_bytes;
  if (before_dst_.rx_bytes && dst.rx_bytes) rep_.nvl_rx = *dst.rx_bytes - *before_dst_.rx_bytes;
  if (rep_.nvl_tx < 0 || rep_.nvl_rx < 0) {
    std::snprintf(rep_.message, sizeof(rep_.message), "%s",
                  (src.note.empty() ? dst.note : src.note).c_str());
  }
}

void SizeRun::gather_link_traffic() {
  if (!counts_link_traffic(info_)) return;
  const auto all = res_.gather(rep_);  // collective: every rank of the step takes part
  rep_ = RankReport{};
  for (std::size_t i = 0; i < pairs_.size(); ++i) {
    if (pairs_[i].all_ranks) continue;
    const auto& r = all[pairs_[i].pair.src];
    tally_[i].nvl_tx = r.nvl_tx;
    tally_[i].nvl_rx = r.nvl_rx;
    tally_[i].counter_note = r.message;
  }
}

}  // namespace peerbench::gpu
