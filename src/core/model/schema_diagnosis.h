#pragma once
// JSON form of a run's diagnosis (`diagnosis`: diagnosis.h): its causes with their codes, what
// they explain, their evidence and their Next line. results/SCHEMA.md documents the fields.
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/diagnosis.h"
#include "core/model/json_in.h"

namespace peerbench {

nlohmann::json to_json(const DiagnosedCause& c);
DiagnosedCause diagnosed_cause_from(const JsonIn& in);
nlohmann::json diagnosis_json(const std::vector<DiagnosedCause>& causes);

}  // namespace peerbench
