#pragma once
// nvbandwidth's outputs (github.com/NVIDIA/nvbandwidth): text, and the JSON of -j. Internal to
// core/import.
#include <optional>
#include <string>
#include <vector>

#include "core/model/results.h"

namespace peerbench::import_detail {

RunDocument read_nvbandwidth_text(const std::string& text, const std::string& file);
RunDocument read_nvbandwidth_json(const nlohmann::json& j, const std::string& file);

// One test's matrix as printed: its description line and its values (nullopt for N/A).
struct NvbMatrix {
  std::string test;
  std::string description;  // "memcpy CE GPU(row) <- GPU(column) bandwidth (GB/s)"
  std::vector<std::vector<std::optional<double>>> values;
};
// "Device 0: NVIDIA H100 80GB HBM3 (00000000:19:00)" (after "N: " in JSON) as a rank.
void add_nvb_device(RunDocument& d, const std::string& host, const std::string& line);
// The results of a matrix mapped to its method (method_map.h), or its test noted unmapped.
void add_nvb_matrix(RunDocument& d, const NvbMatrix& m);
// A device-to-device test nvbandwidth waived ("Waiving device_to_device_...", status Waived): it
// waives a peer test where no pair can enable peer access, so every pair it would have measured
// has none.
void note_nvb_waived(RunDocument& d, const std::string& test);
// "Invalid value when checking the pattern" during `test`: its copy delivered wrong data (how
// many elements nvbandwidth does not say: at least one), as a failed result over all GPUs.
void note_nvb_wrong_data(RunDocument& d, const std::string& test, const std::string& line);
// The copy size: nvbandwidth prints none; its default (-b) by version: 64 MiB to v0.6, 512 MiB
// from v0.7. 0 where the version is unknown.
std::uint64_t nvb_default_bytes(const std::string& version);

}  // namespace peerbench::import_detail
