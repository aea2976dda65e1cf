#pragma once
// "Did you mean": the nearest of the allowed words to a mistyped one, for every word the command
// line takes from a fixed set (commands, flags, methods, formats, reductions). One measure for all.
#include <cstddef>
#include <string>
#include <vector>

namespace peerbench {

// Edits (insert, delete, replace, swap of two neighbours) between two short words.
std::size_t edit_distance(const std::string& a, const std::string& b);

// The allowed word nearest to `given`, or "" when none is near: a typo or two (at most a third
// of the word's length, so a short word is not "corrected" into another word).
std::string nearest_word(const std::string& given, const std::vector<std::string>& allowed);

// "; did you mean WORD?" with the nearest word, or "" when none is near.
std::string did_you_mean(const std::string& given, const std::vector<std::string>& allowed);

// "a, b or c": the words allowed, as the refusals list them.
std::string or_list(const std::vector<std::string>& words);

}  // namespace peerbench
