#include "core/plan/run_options.h"

#include <algorithm>

namespace peerbench {

std::string to_string(Schedule s) {
  return s == Schedule::kSerial ? "serial" : "rounds";
}

bool RunOptions::given(const std::string& flag) const {
  return std::find(flags_given.begin(), flags_given.end(), flag) != flags_given.end();
}

nlohmann::json run_options_to_json(const RunOptions& o) {
  nlohmann::json j;
  j["minbytes"] = o.sweep.min_bytes;
  j["maxbytes"] = o.sweep.max_bytes;
  j["stepfactor"] = o.sweep.step_factor;
  j["stepbytes"] = o.sweep.step_bytes;
  j["sizes"] = make_sweep(o.sweep);
  j["warmup_iters"] = o.warmup_iters;
  j["iters"] = o.iters;
  j["samples"] = o.samples;
  j["check"] = o.check;
  j["cudagraph_replays"] = o.cudagraph_replays;
  j["per_iteration"] = o.per_iteration;
  j["methods"] = o.methods;
  j["methods_spec"] = o.methods_spec;
  j["timeout_s"] = o.timeout_s;
  j["schedule"] = to_string(o.schedule);
  j["pairs"] = o.pairs.text;
  j["latency_bytes"] = o.latency_bytes;
  j["latency_iters"] = o.latency_iters;
  j["staged_chunk"] = o.staged_chunk;
  j["staged_slots"] = o.staged_slots;
  j["allreduce_inplace"] = o.allreduce_inplace;
  nlohmann::json types = nlohmann::json::array(), ops = nlohmann::json::array();
  for (auto t : o.datatypes) types.push_back(to_string(t));
  for (auto x : o.ops) ops.push_back(to_string(x));
  j["datatypes"] = types;
  j["ops"] = ops;
  j["root"] = o.root;
  j["allow_gpu_sharing"] = o.allow_gpu_sharing;
  j["expect"] = o.expect_path.empty() ? nlohmann::json() : nlohmann::json(o.expect_path);
  j["confirm"] = o.confirm;
  j["require_idle"] = o.idle_required();
  j["wait_idle_s"] = o.wait_idle_s;
  j["fail_on"] = o.fail_on;
  j["average"] = o.average;
  j["report_cputime"] = o.report_cputime;
  j["blocking"] = o.blocking;
  j["local_register"] = o.register_buffers;
  j["run_cycles"] = o.cycles;
  j["duration_s"] = o.duration_s;
  j["fault_injection"] = o.fault.kind.empty() ? nlohmann::json()
                                              : nlohmann::json{{"kind", o.fault.kind},
                                                               {"method", o.fault.method},
                                                               {"rank", o.fault.rank}};
  return j;
}

}  // namespace peerbench
