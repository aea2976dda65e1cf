#pragma once
// What the readers of core/import share: the lines of a text checked once, the document they
// fill, ranks, results and the NCCL log, and the finishing step that makes it a run the verdicts
// read. Internal to core/import; import.h is the public side.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/nccl_log.h"
#include "core/model/results.h"

namespace peerbench::import_detail {

// One line of the text and its number (from 1), '\r' dropped.
struct Line {
  std::string_view text;
  int number = 0;
};

// The text's lines. Throws InputError naming the file and the line for a NUL byte or a line over
// kMaxImportLineBytes: binary data, not a tool's output.
std::vector<Line> text_lines(const std::string& text, const std::string& file);
std::string_view trim(std::string_view s);
bool starts_with(std::string_view s, std::string_view prefix);
bool contains(std::string_view s, std::string_view part);
std::vector<std::string> words(std::string_view s);
// A number, or nullopt where `s` is none (N/A, -, text).
std::optional<double> number(std::string_view s);

// [[noreturn]] one-line refusal: "FILE: line N: why".
[[noreturn]] void refuse(const std::string& file, int line, const std::string& why);

// A new document of `tool` (version where the output says it), format and file in
// config.imported.
RunDocument new_document(const std::string& tool, const std::string& version,
                         const std::string& format, const std::string& file);
// A rank for a GPU (its device index on `host`, its name as the tool printed it, its PCI bus id
// where printed); returns its rank number.
int add_rank(RunDocument& d, const std::string& host, int device, const std::string& gpu_name,
             const std::string& pci_bus_id);
// A figure measured once (the tool printed one value): a result with every statistic that value.
Result figure_result(const std::string& method, int src, int dst, std::uint64_t bytes);
void set_bandwidth(Result& r, double gbps);  // algbw (GB/s)
void set_time(Result& r, double us);
// A figure of the output that no peerbench method measures, kept in config.imported.unmapped.
void note_unmapped(RunDocument& d, const std::string& test, const std::string& why);
// Something the output does not say that a verdict may need, in config.imported.unknown.
void note_unknown(RunDocument& d, const std::string& what);
// NCCL's INFO lines read from the output: the transport of each pair, the graphs, the version.
void add_nccl_log(RunDocument& d, const NcclLogParse& log);
// Marks the run complete or cut short, names the methods read (config.methods, d.methods from
// the catalogue, in catalogue order) and the hosts, and leaves verdicts to compute_verdicts.
void finish_document(RunDocument& d, bool complete, const std::string& why_incomplete);

// board_links.cpp: the topology of hosts whose output names 8 GPUs of one NVSwitch-board model
// (HGX A100, H100, H200, H800, H20, B200) and no topology: every pair NV12 or NV18 (NV8 on
// H800). Left unset for anything else.
void infer_board_topology(RunDocument& d);

// The GPU model's facts a verdict needs and an output does not print (compute capability for the
// NVLink rate), by the name CUDA prints; nullopt for a model the table does not know.
std::optional<int> compute_capability_major(const std::string& gpu_name);

}  // namespace peerbench::import_detail
