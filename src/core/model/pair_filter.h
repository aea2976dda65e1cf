#pragma once
// Which pairs of ranks a run measures (--pairs), as the plan uses it and the results record it.
#include <string>
#include <utility>
#include <vector>

namespace peerbench {

// --pairs: which ordered pairs of ranks the pair methods cover.
struct PairFilter {
  enum class Kind { kAll, kIntraHost, kInterHost, kExplicit } kind = Kind::kAll;
  // For kExplicit: ordered pairs (src, dst). "a-b" adds both directions, "a>b" one.
  std::vector<std::pair<int, int>> pairs;
  std::string text = "all";
  // Whether host<->GPU methods measure rank r's GPU: an explicit list measures the GPUs it
  // names; the other filters concern links between GPUs and keep every GPU.
  bool measures_gpu(int r) const;
};
PairFilter parse_pair_filter(const std::string& text);

}  // namespace peerbench
