#include "core/cli/flags.h"

#include <algorithm>

#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/judge/verdict.h"

namespace peerbench {

void reject_positionals(const cxxopts::ParseResult& r, const std::string& command) {
  if (!r.unmatched().empty()) {
    throw UsageError(command + ": unexpected argument '" + r.unmatched().front() +
                     "'; options start with - (see peerbench " + command + " --help)");
  }
}

std::string get(const cxxopts::ParseResult& r, const std::string& key) {
  return r[key].as<std::string>();
}

void check_fail_on(const std::string& fail_on) {
  if (fail_on == "all" || fail_on == "none") return;
  auto codes = known_flag_codes();
  for (const auto& s : failing_states()) codes.push_back(s);
  for (const auto& c : split(fail_on, ',')) {
    if (std::find(codes.begin(), codes.end(), c) == codes.end()) {
      throw UsageError("--fail-on: unknown flag or state '" + c +
                       "'; use all, none or: " + join(codes));
    }
  }
}

}  // namespace peerbench
