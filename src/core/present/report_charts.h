#pragma once
// The charts of a run's HTML report, as chart descriptions (core/svg_chart.h): the pair matrix as
// a heat map coloured by each figure's ratio to its known-good figure, bandwidth against size per
// method, and the bus bandwidth of every collective on one chart.
#include <optional>
#include <vector>

#include "core/model/result_index.h"
#include "core/present/report.h"
#include "core/present/svg_chart.h"

namespace peerbench {

// Pairs (rows) by pair methods (columns) at the largest size; nullopt without pair methods.
std::optional<svg::HeatMap> pair_heat_map(const ReportInput& in, const ResultIndex& idx);

// One chart per pair or host<->GPU method measured at more than one size: its figure against
// size, a line per pair (or, past kMaxPairLines pairs, their median, slowest and fastest), and
// the known-good curve of each model and link among them (`known_good`: known_good_marks).
inline constexpr std::size_t kMaxPairLines = 8;
std::vector<svg::LineChart> size_charts(const RunDocument& d, MethodScope scope,
                                        const std::vector<KnownGoodMark>& known_good);

// Every collective over all ranks on one chart, busbw against size (each method's first type/op
// variant), with each one's known-good curve; nullopt where none was measured at two sizes.
std::optional<svg::LineChart> collectives_chart(const RunDocument& d,
                                                const std::vector<KnownGoodMark>& known_good);

}  // namespace peerbench
