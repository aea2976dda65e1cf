#pragma once
// What the tests look for in the text they are given: phrases, lines, sections and cells.
#include <sstream>
#include <string>
#include <vector>

#include "core/present/sections.h"

namespace peerbench::test {

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The lines of `text`, without their line breaks; no empty last line for a closing break.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// `s` without the spaces and tabs that start and end it.
inline std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// Text reports wrap to the terminal's width (core/present/sections.h: kTextWidth), so a phrase
// may break across lines. flat() gives the text as one line, every run of spaces and line breaks
// one space, so a test finds a phrase wherever the renderer broke it.
inline std::string flat(const std::string& s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == ' ' || c == '\n') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

// The first section of a document whose title starts with `prefix`; nullptr when none.
inline const Section* section_of(const SectionDocument& d, const std::string& prefix) {
  for (const auto& s : d.sections)
    if (s.title.rfind(prefix, 0) == 0) return &s;
  return nullptr;
}

// A table's cell as text, "" past its end.
inline std::string cell_text(const Table& t, std::size_t row, std::size_t column) {
  if (row >= t.rows.size() || column >= t.rows[row].size()) return "";
  return t.rows[row][column].text;
}

}  // namespace peerbench::test
