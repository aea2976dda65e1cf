#pragma once
// A node's evidence as people read it: `peerbench doctor`'s page, at most kDoctorMaxLines lines
// whatever the node holds (8 GPUs with bridges and links, long command lines), then its findings
// (causes of the cause table, core/judge/doctor_findings.h) with their Next lines. The JSON
// (--json) keeps everything the page leaves out.
#include <string>
#include <vector>

#include "core/model/diagnosis.h"
#include "core/model/node_evidence.h"

namespace peerbench {

inline constexpr std::size_t kDoctorMaxLines = 40;

std::vector<std::string> node_evidence_lines(const NodeEvidence& e);
std::vector<std::string> doctor_finding_lines(const std::vector<DiagnosedCause>& findings);
// The page: evidence, then findings, within kDoctorMaxLines (each line ending in '\n').
std::string format_doctor_page(const NodeEvidence& e, const std::vector<DiagnosedCause>& findings);

}  // namespace peerbench
