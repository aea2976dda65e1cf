#pragma once
// The two string helpers several parts of the core need: exact splitting and fixed-point numbers.
#include <string>
#include <vector>

namespace peerbench {

// Splits at every `sep`, keeping empty fields ("a,,b," -> "a", "", "b", ""), so callers can
// refuse empty names instead of skipping them silently. "" gives one empty field.
std::vector<std::string> split(const std::string& s, char sep);

// 395.1 with decimals = 1.
std::string format_fixed(double v, int decimals);

}  // namespace peerbench
