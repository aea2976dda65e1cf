#pragma once
// What the reporting commands (report, compare, fleet) share: plots to embed or link, and where
// the rendered text goes.
#include <string>
#include <vector>

#include "core/report.h"

namespace peerbench::app {

// PNG files in `dir` (from scripts/plot.py or scripts/plot_fleet.py), read and base64-encoded
// when `embed` (HTML), else linked by path (Markdown). "" gives none; an unreadable folder is an
// InputError.
std::vector<PlotFile> find_plots(const std::string& dir, bool embed);

// To stdout when `path` is "", else to the file, atomically.
void emit(const std::string& text, const std::string& path);

}  // namespace peerbench::app
