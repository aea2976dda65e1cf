#pragma once
// A plan as people read it: the table of a dry run.
#include <ostream>
#include <string>

#include "core/plan/plan.h"

namespace peerbench {

// The plan as a table (at most 32 rows per method unless `verbose`; then every step and why
// pairs are not applicable).
std::string format_plan(const Plan& plan, const PlanInput& in, bool verbose);
// The same table, written while the steps are generated: a dry run of any size in bounded memory.
void write_plan(std::ostream& out, const PlanInput& in, bool verbose);
// What the plan holds that will not be measured, one "# note:" line each: sizes too small for a
// collective's element type (core/plan/element_fit.h).
void write_plan_notes(std::ostream& out, const PlanInput& in);

}  // namespace peerbench
