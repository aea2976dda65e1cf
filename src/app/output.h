#pragma once
// What the reporting commands (report, compare, fleet) share: the runs named on the command line,
// plots to embed or link, and where the rendered text goes.
#include <cstdint>
#include <string>
#include <vector>

#include "core/platform/input_limits.h"
#include "core/present/report.h"

namespace peerbench::app {

// A run named on the command line (report, compare), read by load_run_file. A file that is JSON
// but no run (a topology, a site baseline, JSON of another kind) is refused saying what it is,
// in the words fleet uses for one (core/fleet/fleet.h, not_a_run); any other refusal is the
// reader's, naming the field.
RunDocument load_named_run(const std::string& path);

// PNG files in `dir` (from scripts/plot.py or scripts/plot_fleet.py), read and base64-encoded
// when `embed` (HTML), else linked (Markdown) by a path relative to the folder of `output` (the
// document's file; "" for standard output: the working directory). "" gives none. A folder that
// cannot be read, an image that is not a regular file or is over its limit, or images over
// kMaxEmbeddedPlotBytes together (core/platform/input_limits.h) are refused naming --plots.
std::vector<PlotFile> find_plots(const std::string& dir, bool embed, const std::string& output);

// Where an output the user named goes (report, compare and fleet -o, topo --json): a character
// device or a FIFO (/dev/null, a pipe's /dev/fd/N) is written as it is; anything else is a
// regular file, written atomically (core/platform/atomic_file.h), its missing folders made as
// run -J makes them. Throws UsageError naming `flag` where it cannot be written.
void write_output(const std::string& path, const std::string& text, const std::string& flag);
// Whether write_output could write `path`, checked before the work that fills it and leaving
// nothing behind: "" or the reason.
std::string output_refusal(const std::string& path);

// To stdout when `path` is "", else to write_output; refused (UsageError) when `path` is one of
// the files read: `inputs` or the `plots`.
void emit(const std::string& text, const std::string& path, const std::vector<std::string>& inputs,
          const std::vector<PlotFile>& plots);

// The one line for standard output that failed, with errno's reason (0: none known).
std::string stdout_write_failed(int why);

}  // namespace peerbench::app
