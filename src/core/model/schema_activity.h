#pragma once
// JSON form of what schema 3 added to a run: per-iteration statistics, how the host fed the GPU,
// other processes and throttled clocks seen on the GPUs (per case and per GPU), the NVLink fabric,
// and the confirmation repeats. Used by schema.cpp; results/SCHEMA.md documents the fields.
#include <nlohmann/json.hpp>

#include "core/model/json_in.h"
#include "core/model/results.h"
#include "core/model/topology.h"

namespace peerbench {

nlohmann::json to_json(const IterationStats& s);
IterationStats iteration_stats_from(const JsonIn& in);

nlohmann::json to_json(const EnqueueInfo& e);
EnqueueInfo enqueue_info_from(const JsonIn& in);

nlohmann::json to_json(const ForeignProcess& p);
ForeignProcess foreign_process_from(const JsonIn& in);

nlohmann::json to_json(const GpuInterference& g);
GpuInterference gpu_interference_from(const JsonIn& in);

nlohmann::json to_json(const IdleCheck& c);
IdleCheck idle_check_from(const JsonIn& in);

nlohmann::json to_json(const GpuActivityLog& g);
GpuActivityLog gpu_activity_from(const JsonIn& in);

nlohmann::json to_json(const BurnIn& b);
// `methods`: the file's catalog; `version`: its schema (before 4 a series holds headline figures
// and has no unit).
BurnIn burn_in_from(const JsonIn& in, const std::vector<MethodInfo>& methods, int version);

nlohmann::json to_json(const FabricInfo& f);
FabricInfo fabric_info_from(const JsonIn& in);

// The schema-3 fields of one result (per_iteration, enqueue, interference, requested_bytes,
// attempt), added to / read from the result's object.
void add_result_activity(const Result& r, nlohmann::json& j);
void read_result_activity(const JsonIn& in, Result& r);

}  // namespace peerbench
