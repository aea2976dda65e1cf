#pragma once
// The step a run was in when its file was last written (`in_progress` in the JSON), in words, so
// that `report` on a cut-short run says what was running instead of printing the raw record.
#include <nlohmann/json.hpp>
#include <string>

namespace peerbench {

// "sm-write, round 3, pairs 0->1, 1->0, sizes 1M-1G (6)". Tolerant of any JSON (older or
// hand-edited files): fields it does not know are shown as name=value, wrong types are skipped.
std::string describe_in_progress(const nlohmann::json& record);

}  // namespace peerbench
