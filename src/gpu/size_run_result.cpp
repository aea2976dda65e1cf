// The last phase of a size: one Result per pair from what the samples gathered. Bandwidth
// formulas come from core/model/bandwidth.h (nccl-tests' PERFORMANCE.md).
#include <algorithm>

#include "core/base/text.h"
#include "core/model/bandwidth.h"
#include "core/model/sizes.h"
#include "gpu/size_run.h"

namespace peerbench::gpu {
namespace {

Stats per_direction_stats(const Tally& t, std::size_t flow, double scale, bool bandwidth,
                          std::size_t bytes) {
  std::vector<double> v;
  for (const auto& sample : t.dir_times) {
    v.push_back(bandwidth ? algbw_gbps(static_cast<double>(bytes), sample[flow])
                          : sample[flow] * scale);
  }
  return summarize(v);
}

}  // namespace

// How the host fed the GPU. Behind the start gate the host's rate cannot enter the figure; a
// method that runs without the gate (or a streamed graph, size_run_samples.cpp) is launch-bound
// when the host took about as long to enqueue each iteration as the GPU took to run it: the GPU
// waited for the host.
EnqueueInfo SizeRun::enqueue_info(const Tally& t) const {
  EnqueueInfo e;
  const double ops = static_cast<double>(iters_) * replays_;
  std::vector<double> host_us;
  for (double us : t.enqueue_us) host_us.push_back(us / ops);
  e.host_us_per_op = host_us.empty() ? 0 : summarize(host_us).median;
  const int per_batch = units_per_batch();
  const int total = use_graph_ ? replays_ : iters_;
  // As counted while the timed samples ran; the plan's count where none was opened (-z).
  e.batches = gate_openings_ > 0 ? gate_openings_ : (total + per_batch - 1) / per_batch;
  if (o_.blocking > 0) {
    e.launch_bound = true;
    e.note = "blocking mode (-z " + std::to_string(o_.blocking) +
             "): the host waited for every operation, so the figure holds its waits";
    return e;
  }
  // Without the gate, or after its one opening in a streamed graph sample, the GPU can wait for
  // the host.
  if ((!m_.use_start_gate() || streams_graph()) && !t.times.empty()) {
    std::vector<double> device_us;
    for (double s : t.times) device_us.push_back(s * 1e6 * transfers_ * (use_graph_ ? iters_ : 1));
    const double device = summarize(device_us).median / (use_graph_ ? iters_ : 1);
    if (e.host_us_per_op >= 0.9 * device) {
      e.launch_bound = true;
      e.note = "the host took " + format_fixed(e.host_us_per_op, 2) +
               " us to enqueue each iteration and the GPU " + format_fixed(device, 2) +
               " us to run it: the GPU waited for the host";
    }
  }
  return e;
}

Result SizeRun::make_result(std::size_t i, bool failed_before) {
  auto& p = pairs_[i];
  const Tally& t = tally_[i];
  Result r = result_identity(p);
  if (p.failed || t.times.empty()) {
    r.status = p.failed ? p.fail_status : ResultStatus::kNotRun;
    r.reason = p.reason;
    if (!failed_before && p.fail_status != ResultStatus::kSkipped &&
        p.fail_status != ResultStatus::kNotApplicable) {
      // Failed at this size; later sizes of this step say why they did not run.
      p.fail(ResultStatus::kNotRun, "not run: an earlier size failed (" + p.reason + ")");
    }
    return r;
  }
  r.status = ResultStatus::kOk;
  const double moved = moved_bytes(bytes_, p.flows.size());
  const int n = busbw_ranks(p.all_ranks, res_.rank->size);
  std::vector<double> us, gbps, bus;
  for (double s : t.times) {
    us.push_back(s * 1e6);
    gbps.push_back(algbw_gbps(moved, s));
    bus.push_back(gbps.back() * busbw_factor(info_.collective, n));
  }
  r.time_us = summarize(us);
  r.sample_time_us = us;
  r.algbw_gbps = summarize(gbps);
  r.busbw_gbps = summarize(bus);
  if (p.flows.size() > 1) {
    for (std::size_t f = 0; f < p.flows.size(); ++f) {
      r.directions.push_back({p.flows[f].from, p.flows[f].to,
                              per_direction_stats(t, f, 1e6, false, bytes_),
                              per_direction_stats(t, f, 1, true, bytes_)});
    }
  }
  r.per_iteration =
      t.iteration_us.empty() ? std::nullopt : std::optional(iteration_stats(t.iteration_us));
  r.enqueue = enqueue_info(t);
  r.interference = t.interference;
  r.checked = t.checked > 0;
  r.checked_elements = t.checked;
  r.wrong = t.wrong;
  r.gate_timeouts = 0;  // a sample whose gate timed out is discarded, never recorded
  if (!p.all_ranks && counts_link_traffic(info_)) r.link_counters = link_counters(t);
  return r;
}

// What the result is of: the method, the pair, the size and how it was run.
Result SizeRun::result_identity(const PairState& p) const {
  Result r;
  r.method = info_.name;
  r.src = p.all_ranks ? -1 : p.pair.src;
  r.dst = p.all_ranks ? -1 : p.pair.dst;
  r.bytes = bytes_;
  r.warmup_iters = o_.warmup_iters;
  r.iters = iters_;
  r.samples = o_.samples;
  r.graph_replays = use_graph_ ? replays_ : 0;
  r.round = step_.round;
  r.concurrent_pairs = step_.all_ranks ? 1 : std::max(1, step_.running_pairs());
  if (info_.typed) r.datatype = to_string(ctx_.dtype);
  if (info_.reduces) r.op = to_string(ctx_.op);
  if (info_.rooted) r.root = ctx_.root;
  return r;
}

// The NVLink counters read around the samples, against the payload the samples moved.
LinkCounters SizeRun::link_counters(const Tally& t) const {
  LinkCounters lc;
  lc.source = "nvml-field-values";
  // Every sample between the reads, the per-iteration one too: counted against o_.samples, the
  // traffic of six samples was set against the payload of five (a review).
  lc.payload_bytes = static_cast<double>(bytes_) * iters_ * replays_ * samples_run_;
  if (t.nvl_tx >= 0) lc.src_tx_bytes = t.nvl_tx;
  if (t.nvl_rx >= 0) lc.dst_rx_bytes = t.nvl_rx;
  lc.note = res_.nvml && res_.nvml->available() ? t.counter_note : "NVML unavailable";
  if (step_.running_pairs() > 1)
    lc.note += (lc.note.empty() ? "" : "; ") + std::string("other pairs ran at once");
  return lc;
}

}  // namespace peerbench::gpu
