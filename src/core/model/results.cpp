#include "core/model/results.h"

namespace peerbench {

std::string to_string(ResultStatus s) {
  switch (s) {
    case ResultStatus::kOk:
      return "ok";
    case ResultStatus::kSkipped:
      return "skipped";
    case ResultStatus::kNotApplicable:
      return "not-applicable";
    case ResultStatus::kError:
      return "error";
    case ResultStatus::kTimeout:
      return "timeout";
    case ResultStatus::kNotRun:
      return "not-run";
  }
  return "not-run";
}

std::optional<ResultStatus> result_status_from_string(const std::string& s) {
  for (auto st : {ResultStatus::kOk, ResultStatus::kSkipped, ResultStatus::kNotApplicable,
                  ResultStatus::kError, ResultStatus::kTimeout, ResultStatus::kNotRun}) {
    if (to_string(st) == s) return st;
  }
  return std::nullopt;
}

std::string host_of(const RunDocument& d, int rank) {
  const auto* r = rank_info(d, rank);
  return r ? r->host : "";
}

const RankInfo* rank_info(const RunDocument& d, int rank) {
  for (const auto& r : d.system.ranks) {
    if (r.rank == rank) return &r;
  }
  return nullptr;
}

std::string rank_label(const RunDocument& d, int rank) {
  if (rank < 0) return "all ranks";
  const auto* r = rank_info(d, rank);
  if (!r) return "rank " + std::to_string(rank);
  return "rank " + std::to_string(rank) + " (GPU " + std::to_string(r->gpu.index) + " on " +
         r->host + ")";
}

}  // namespace peerbench
