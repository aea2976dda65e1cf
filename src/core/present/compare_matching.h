#pragma once
// How compare matches two runs' cases: by method, type/op, GPU pair (as --match identifies a GPU)
// and size. Internal to the compare files (compare.cpp, compare_matching.cpp, compare_rows.cpp);
// compare.h is the public side.
#include <cstdint>
#include <string>
#include <tuple>

#include "core/present/compare.h"

namespace peerbench::compare_detail {

// One case of either run, as the two runs' results are matched.
struct CaseKey {
  std::string method, src, dst;
  std::uint64_t bytes;
  std::string variant;         // collectives' type/op ("" for other methods)
  bool bidirectional = false;  // src and dst in order of their names (follows from the method)
  bool operator<(const CaseKey& o) const {
    return std::tie(method, variant, src, dst, bytes) <
           std::tie(o.method, o.variant, o.src, o.dst, o.bytes);
  }
};

// "host0:X->host0:Y" for a pair of GPUs, "host0:X<->host" for one GPU and its host, "all ranks"
// for a collective over all of them. Decided by the result's ranks, not the key: two ranks
// sharing one GPU have one card at both ends.
std::string gpu_pair_text(const CaseKey& k, const Result* r);

// Every method, pair and size of either run: compared where both measured it (c.rows), else
// listed as lost in B, only in A, only in B or in neither.
void match_results(const RunDocument& a, const RunDocument& b, const CompareOptions& o,
                   Comparison& c);

}  // namespace peerbench::compare_detail
