#pragma once
// Other tools' outputs as peerbench runs: nccl-tests (text and -J JSON), nvbandwidth (text and
// -j JSON), p2pBandwidthLatencyTest and `nvidia-smi topo -m`, recognised by their content (never
// their file name) and turned into a RunDocument that compute_verdicts, report, compare and fleet
// take as they take a run of peerbench's own (docs/import.md).
//
// What the document says of its source: tool.name and tool.version are the other tool's, and
// config.imported holds the format, the file, what was read and what was not (the figures of
// tests that have no peerbench method, in-place figures, what the output leaves unknown). What
// the output does not say (driver, link type, sizes it does not print) stays empty: the
// verdicts then say what is missing rather than guess.
#include <string>
#include <vector>

#include "core/model/results.h"

namespace peerbench {

// `peerbench import FILE... [-J OUT | --out-dir DIR]`.
struct ImportOptions {
  std::vector<std::string> inputs;  // outputs to import, and topo -m files to judge them by
  std::string json_path;            // -J: the one run's results file
  std::string out_dir;              // --out-dir: DIR/<name>.json per input
};

enum class ImportFormat {
  kUnknown,
  kPeerbenchRun,  // a results file of peerbench's own (run -J): not imported, read as it is
  kNcclTestsText,
  kNcclTestsJson,
  kNvbandwidthText,
  kNvbandwidthJson,
  kP2pBandwidthLatency,
  kTopoMatrix,  // nvidia-smi topo -m alone: a topology, not a run
};

// "nccl-tests text output", ...
std::string format_name(ImportFormat f);

// What `text` is, by its content (the first kImportSniffBytes are enough for every format).
inline constexpr std::size_t kImportSniffBytes = 64u << 10;
ImportFormat detect_format(const std::string& text);

// The document of one output. `file` names it in errors and in config.imported. Throws InputError
// (file, line and why, one line) for text that is no output of a known tool, binary data or a line
// over kMaxImportLineBytes, and for a topo -m alone (a topology, not a run).
RunDocument import_text(const std::string& text, const std::string& file);

// `topology` (from a topo -m) put into `d` for the host it describes: each log's host when the
// run has one host, so that links are judged per pair. Throws InputError where the run spans
// several hosts or its GPU indices are not in the matrix.
void attach_topology(RunDocument& d, const TopologyReport& topology, const std::string& topo_file);
// The topology of a topo -m output (InputError where `text` holds none).
TopologyReport import_topology(const std::string& text, const std::string& file);

// A run named on the command line or found in a folder: peerbench's own results file as
// load_run_file reads it, or another tool's output imported, told apart by content. Throws
// InputError as load_run_file does, or as import_text does.
RunDocument load_run_or_import(const std::string& path);
// What the file at `path` holds, from its first kImportSniffBytes (kUnknown where it cannot be
// read): fleet's folder walk takes the outputs of other tools beside *.json files.
ImportFormat sniff_file(const std::string& path);

}  // namespace peerbench
