#pragma once
// Checks on a burn-in read from a file that the field-by-field reader cannot make alone: an
// ending that does not fit the run, cycle records out of order or not matching cycles_done,
// series of cases the run never measured or of values no measurement makes, and cycles that
// counted errors no series names. Each would make a report show a burn-in that did not happen,
// or pass one that failed.
#include <string>

#include "core/model/results.h"

namespace peerbench {

// Refuses with an InputError naming `file` and the burn_in field. Does nothing without a burn-in.
void validate_burn_in(const RunDocument& d, const std::string& file);

}  // namespace peerbench
