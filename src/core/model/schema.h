#pragma once
// The versioned JSON form of a run (results/SCHEMA.md documents it field by field).
// Bump kSchemaVersion on any change that an older reader would misread.
#include <string>

#include <nlohmann/json.hpp>

#include "core/model/results.h"
#include "core/model/topology.h"

namespace peerbench {

// 2: link_health, GPU serials, per-method verdicts with cards, NCCL NET paths and GDRDMA.
// 3: verdict states contended, throttled and noisy; confirmation repeats; per-case interference,
//    per-iteration statistics, enqueue facts and requested sizes; GPU activity; NVLink speed and
//    fabric state. A version-2 reader would misread the new states.
// 4: a burn-in series has a unit: at latency sizes it holds the time per operation in us, where
//    version 3 held GB/s (a version-3 reader would read microseconds as GB/s).
// Versions 1 to 3 still read (the new fields are then empty), so old runs report and compare.
inline constexpr int kSchemaVersion = 4;
inline constexpr int kOldestReadableSchemaVersion = 1;
inline constexpr const char* kRunKind = "peerbench-run";
inline constexpr const char* kTopologyKind = "peerbench-topology";

nlohmann::json to_json(const RunDocument& d);
nlohmann::json to_json(const Result& r);
nlohmann::json to_json(const TopologyReport& t);
nlohmann::json to_json(const Stats& s);
nlohmann::json to_json(const MethodInfo& m);
nlohmann::json to_json(const PairVerdict& v);
nlohmann::json to_json(const RankInfo& r);
nlohmann::json to_json(const GpuLinkHealth& h);
// One GPU's link health, as exchanged between ranks before rank 0 puts it in the document.
GpuLinkHealth gpu_link_health_from_json(const nlohmann::json& j, const std::string& file,
                                        const std::string& path);
// What one rank parsed of NCCL's log, as exchanged between ranks before rank 0 merges it.
nlohmann::json to_json(const NcclLogParse& p);

// Strict readers; `file` labels errors. Throw InputError naming file and field.
RunDocument run_document_from_json(const nlohmann::json& j, const std::string& file);
TopologyReport topology_from_json(const nlohmann::json& j, const std::string& file,
                                  const std::string& path = "topology");

RankInfo rank_info_from_json(const nlohmann::json& j, const std::string& file,
                             const std::string& path);
NcclLogParse nccl_log_parse_from_json(const nlohmann::json& j, const std::string& file);

// load_json_file + run_document_from_json.
RunDocument load_run_file(const std::string& path);

// A topology-only document ("peerbench topo --json").
nlohmann::json topology_document(const TopologyReport& t, const ToolInfo& tool);

}  // namespace peerbench
