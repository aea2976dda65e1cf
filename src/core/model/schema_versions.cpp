// Which results files this peerbench reads: the schema versions from kOldestReadableSchemaVersion
// to kSchemaVersion (schema.h), of the run kind. What an older version lacks is read as unknown by
// the readers of each element (schema 1, for one, kept no NET paths: schema_read_parts.cpp).
#include "core/model/schema_readers.h"

namespace peerbench {

// The version and kind come first: a file this peerbench cannot read fails on them, not on a field.
int read_schema_version(const JsonIn& in) {
  const auto version = in.at("schema_version").integer(0, 1 << 20);
  if (version < kOldestReadableSchemaVersion || version > kSchemaVersion) {
    in.at("schema_version")
        .fail("unsupported schema_version " + std::to_string(version) + "; this peerbench reads " +
              std::to_string(kOldestReadableSchemaVersion) + " to " +
              std::to_string(kSchemaVersion) +
              (version > kSchemaVersion ? " (file is newer)" : ""));
  }
  return static_cast<int>(version);
}

void require_run_kind(const JsonIn& in) {
  const auto kind = in.at("kind").str();
  if (kind != kRunKind) {
    in.at("kind").fail("'" + kind + "' is not a run (expected '" + std::string(kRunKind) + "')");
  }
}

}  // namespace peerbench
