#pragma once
// A report as a list of sections (a heading, lines, a table), rendered as aligned text, Markdown
// or one self-contained HTML page. The fleet and history reporters build sections; these
// renderers own the layout and the escaping.
#include <string>
#include <vector>

#include "core/present/report.h"
#include "core/present/svg_chart.h"

namespace peerbench {

struct Table {
  std::vector<std::string> head;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> numeric;  // per column: right-aligned
  std::vector<int> marked;    // rows to emphasize (regressions, outliers)
};

struct Section {
  std::string title;
  std::vector<std::string> lines;
  Table table;
  std::vector<svg::Chart> charts;  // drawn in HTML only, before the table
};

struct SectionDocument {
  std::string title;
  std::string verdict;  // one line; "" for none
  // Under the verdict, on the first screen: what it rests on, one line each (the fleet's nodes
  // that do not pass and why).
  std::vector<std::string> digest;
  bool failed =
      false;  // the HTML headline is not green: the exit code is 1, or only --fail-on kept it 0
  std::vector<Section> sections;
  std::vector<PlotFile> plots;
  std::string no_plots_note;  // said where there are no plots
};

std::string render_sections_text(const SectionDocument& d);
std::string render_sections_markdown(const SectionDocument& d);
std::string render_sections_html(const SectionDocument& d);

// Escapes |, and flattens line breaks, for a Markdown table cell.
std::string markdown_cell(const std::string& s);

}  // namespace peerbench
