#pragma once
// What people read, format-neutral: a document of sections (a heading, lines, charts, a table),
// rendered as aligned text that fits a terminal, Markdown, one self-contained HTML page, or CSV.
// Every command that shows results (report, compare, history, fleet) builds one; a format is one
// renderer of it, which owns the layout and the escaping.
//
// Cells are typed, as nvbench's summaries are: a column says its unit and which way is better,
// a cell carries its number beside its rounded text and whether a flag marks it.
#include <optional>
#include <string>
#include <vector>

#include "core/present/svg_chart.h"

namespace peerbench {

struct PlotFile {
  std::string name;  // file name in the plots folder
  std::string caption;
  std::string data_uri;  // for HTML embedding ("" to link by path)
  std::string path;      // where it is read from
  std::string link;      // as the Markdown links it: relative to the .md file's folder
};

// Which way a number is better: bandwidth higher, time lower; kNone for counts and labels.
enum class Better { kNone, kHigher, kLower };

struct Column {
  std::string name;
  std::string unit;  // "GB/s", "us", "busbw GB/s"; "" for labels and ratios
  Better better = Better::kNone;
  bool numeric = false;  // right-aligned
  Column() = default;
  Column(const char* n) : name(n) {}  // NOLINT: a label column from its name
  Column(std::string n, std::string u = "", Better b = Better::kNone, bool num = false)
      : name(std::move(n)), unit(std::move(u)), better(b), numeric(num) {}
  static Column number(std::string n, std::string u = "", Better b = Better::kNone) {
    return Column(std::move(n), std::move(u), b, true);
  }
};

// How a cell reads at a glance where a format colours it (HTML): a verdict state's tone. Only a
// pass is good; nothing unmeasured looks like it.
enum class Tone { kNone, kGood, kBad, kWarn, kNeutral };

struct Cell {
  std::string text;             // as people read it: rounded, with its marks
  std::optional<double> value;  // the number behind it, unrounded, where it is one
  bool flagged = false;         // a flag marks this figure: every format shows it apart
  Tone tone = Tone::kNone;
  Cell() = default;
  Cell(std::string t) : text(std::move(t)) {}  // NOLINT: a text cell
  Cell(const char* t) : text(t) {}             // NOLINT
  Cell(std::string t, double v, bool f = false) : text(std::move(t)), value(v), flagged(f) {}
};

struct Table {
  std::vector<Column> columns;
  std::vector<std::vector<Cell>> rows;
  std::vector<int> marked;  // rows to emphasize (regressions, outliers, flagged pairs)
  // Columns that name a row (pair, method): a text table too wide for the terminal is split into
  // parts of columns, each repeating these first.
  std::size_t key_columns = 1;
  bool empty() const { return columns.empty(); }
  // Per row, whether it is marked: looked up once per table, not scanned per row (a fleet of a
  // million missing nodes marks a million rows).
  std::vector<bool> marked_mask() const {
    std::vector<bool> mask(rows.size(), false);
    for (int r : marked)
      if (r >= 0 && static_cast<std::size_t>(r) < mask.size())
        mask[static_cast<std::size_t>(r)] = true;
    return mask;
  }
  void add_row(std::vector<Cell> cells, bool mark = false) {
    if (mark) marked.push_back(static_cast<int>(rows.size()));
    rows.push_back(std::move(cells));
  }
};

// Who a section is for. A CSV holds the data tables alone; people read the rest.
enum class Shown { kEverywhere, kPeople, kData };

struct Section {
  std::string title;
  std::vector<std::string> lines;
  Table table;
  std::vector<svg::Chart> charts;    // drawn in HTML only, before the table
  std::vector<std::string> notes{};  // said under the table (a total, where the figures came from)
  int depth = 0;                     // 0 a section; 1 a part of the section before it
  Shown shown = Shown::kEverywhere;
  // A small table that may stand beside its neighbours (a GPU x GPU matrix): the text places
  // consecutive tiles side by side while they fit its width, HTML in a row that wraps.
  bool tile = false;
};

struct SectionDocument {
  std::string title;
  std::string verdict;  // one line; "" for none
  // Under the verdict, on the first screen: what it rests on, one line each (the flagged pairs,
  // the fleet's nodes that do not pass, and why).
  std::vector<std::string> digest;
  bool failed =
      false;  // the HTML headline is not green: the exit code is 1, or only --fail-on kept it 0
  // Where it is not green: amber (kWarn) when nothing was flagged (a run cut short, figures
  // beside another job), else red.
  Tone failed_tone = Tone::kBad;
  std::vector<Section> sections;
  std::vector<PlotFile> plots;
  std::string no_plots_note;  // said where there are no plots
};

// The width a text rendering keeps to: lines wrap and wide tables split to fit it.
inline constexpr std::size_t kTextWidth = 120;

std::string render_sections_text(const SectionDocument& d);
std::string render_sections_markdown(const SectionDocument& d);
std::string render_sections_html(const SectionDocument& d);
// The data sections' tables as one CSV: the first one's header, then every row.
std::string render_sections_csv(const SectionDocument& d);

// Escapes |, and flattens line breaks, for a Markdown table cell.
std::string markdown_cell(const std::string& s);
// `text` broken at spaces into lines of at most `width` display columns (a word longer than
// that stands alone on its line).
std::vector<std::string> wrap_text(const std::string& text, std::size_t width);

}  // namespace peerbench
