#include "core/cli/suggest.h"

#include <algorithm>

namespace peerbench {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  // Optimal string alignment: "wrtie" is one swap from "write", not two replacements.
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::string nearest_word(const std::string& given, const std::vector<std::string>& allowed) {
  // Two edits at most, and no more than a third of the word: "-Q" is not "--np", "md" not "csv".
  const std::size_t limit = std::min<std::size_t>(2, std::max<std::size_t>(1, given.size() / 3));
  std::string best;
  std::size_t best_distance = limit + 1;
  for (const auto& word : allowed) {
    if (word == given) return "";  // allowed already: nothing to suggest
    const std::size_t d = edit_distance(given, word);
    if (d < best_distance) best_distance = d, best = word;
  }
  return best;
}

std::string did_you_mean(const std::string& given, const std::vector<std::string>& allowed) {
  const std::string word = nearest_word(given, allowed);
  return word.empty() ? "" : "; did you mean " + word + "?";
}

std::string or_list(const std::vector<std::string>& words) {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i)
    out += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + words[i];
  return out;
}

}  // namespace peerbench
