#pragma once
// Readers of a results file's elements and its version, shared by the files that read it
// (schema_read.cpp, schema_read_parts.cpp, schema_versions.cpp). Internal to core/model.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/model/json_in.h"
#include "core/model/results.h"
#include "core/model/schema.h"

namespace peerbench {

// Bounds of what a results file may hold: beyond them a value is no measurement.
inline constexpr double kMaxBytes = 1e15;  // 1 PB: no transfer size is larger
inline constexpr long long kMaxRank = 1 << 20;
inline constexpr std::size_t kMaxResults = 5'000'000;
inline constexpr std::size_t kMaxItems = 1'000'000;

Stats stats_from(const JsonIn& in);

std::optional<Stats> opt_stats(const JsonIn& in, const std::string& key);

int rank_field(const JsonIn& in, const std::string& key);

PairTransport pair_transport_from(const JsonIn& in);

MethodInfo method_from(const JsonIn& in);

std::vector<GraphObservation> graphs_from(const JsonIn& in);

CardId card_from(const JsonIn& in);

MethodVerdict method_verdict_from(const JsonIn& in);

// The version and kind come first: a file this peerbench cannot read fails on them, not on a field.
int read_schema_version(const JsonIn& in);

void require_run_kind(const JsonIn& in);

}  // namespace peerbench
