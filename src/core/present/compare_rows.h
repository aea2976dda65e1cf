#pragma once
// Comparing one case both runs measured (compare_rows.cpp). Internal to the compare files.
#include "core/present/compare_matching.h"

namespace peerbench::compare_detail {

// The row of a case both runs measured (`ra`, `rb`: the plan's measurements), its figures those
// of the measurement that settled each run's verdict; counts its change in `c`.
CompareRow compare_row(const CaseKey& key, const Result& ra, const Result& rb, const RunDocument& a,
                       const RunDocument& b, const CompareOptions& o, Comparison& c);

}  // namespace peerbench::compare_detail
