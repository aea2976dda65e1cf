#pragma once
// Text reports wrap to the terminal's width (core/present/sections.h: kTextWidth), so a phrase
// may break across lines. flat() gives the text as one line, every run of spaces and line breaks
// one space, so a test finds a phrase wherever the renderer broke it.
#include <string>

namespace peerbench::test {

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

}  // namespace peerbench::test
