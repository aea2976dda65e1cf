#pragma once
// JSON form of a node's evidence (node_evidence.h): the results' `node_evidence` array (one per
// host) and `peerbench doctor --json`. results/SCHEMA.md documents the fields. Read back with
// every field checked: a wrong type or a value out of range is an InputError naming the field.
#include <nlohmann/json.hpp>

#include "core/model/json_in.h"
#include "core/model/node_evidence.h"

namespace peerbench {

nlohmann::json to_json(const NodeEvidence& e);
NodeEvidence node_evidence_from(const JsonIn& in);

}  // namespace peerbench
