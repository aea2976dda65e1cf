#include "core/model/pair_filter.h"

#include <algorithm>
#include <set>
#include <utility>

#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/model/sizes.h"

namespace peerbench {

bool PairFilter::measures_gpu(int r) const {
  if (kind != Kind::kExplicit) return true;
  return std::any_of(pairs.begin(), pairs.end(),
                     [&](const std::pair<int, int>& p) { return p.first == r || p.second == r; });
}

PairFilter parse_pair_filter(const std::string& text) {
  PairFilter f;
  f.text = text;
  if (text == "all") return f;
  if (text == "intra-host") {
    f.kind = PairFilter::Kind::kIntraHost;
    return f;
  }
  if (text == "inter-host") {
    f.kind = PairFilter::Kind::kInterHost;
    return f;
  }
  f.kind = PairFilter::Kind::kExplicit;
  const std::string allowed = "; use all, intra-host, inter-host or a list like 0-1,2>3";
  if (text.empty()) throw UsageError("--pairs: empty" + allowed);
  std::set<std::pair<int, int>> seen;
  for (const auto& item : split(text, ',')) {
    const auto sep = item.find_first_of("->");
    if (sep == std::string::npos || sep == 0 || sep + 1 >= item.size()) {
      throw UsageError("--pairs: '" + item + "' is not a pair" + allowed);
    }
    const int a = static_cast<int>(parse_integer(item.substr(0, sep), "--pairs", 0, 1 << 20));
    const int b = static_cast<int>(parse_integer(item.substr(sep + 1), "--pairs", 0, 1 << 20));
    if (a == b) throw UsageError("--pairs: '" + item + "' pairs a rank with itself");
    auto add = [&](int s, int d) {
      if (seen.insert({s, d}).second) f.pairs.emplace_back(s, d);
    };
    add(a, b);
    if (item[sep] == '-') add(b, a);
  }
  return f;
}

}  // namespace peerbench
