// Every real run this repository keeps (results/examples/, tests/fixtures/runs/ and its h200x2/
// copies of shared/runs/h200x2, and the derived fixtures): its report opens with a diagnosis
// where anything is flagged, one Next line per cause; a passing report has none. The diagnosis
// reads back from the JSON as written.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/judge/diagnosis.h"
#include "core/judge/verdict.h"
#include "core/model/schema.h"
#include "core/present/report.h"

namespace peerbench {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> real_runs() {
  std::vector<std::string> out;
  const std::string root = PEERBENCH_SOURCE_DIR;
  for (const char* dir : {"/results/examples", "/tests/fixtures/runs",
                          "/tests/fixtures/runs/h200x2", "/tests/fixtures/runs/h200x2/derived"}) {
    for (const auto& e : fs::directory_iterator(root + dir)) {
      const std::string p = e.path().string();
      // Runs only: not the topology, not the --expect files beside the derived runs.
      const std::string name = e.path().filename().string();
      if (e.path().extension() == ".json" && name != "topo.json" && name.rfind("expect-", 0) != 0)
        out.push_back(p);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string text_report_of_file(const RunDocument& d, const std::string& path) {
  ReportInput in;
  in.path = path;
  in.doc = &d;
  in.verdicts = compute_verdicts(d, {});
  in.failing = run_failing(d, in.verdicts, "all");
  return make_reporter(ReportFormat::kText)->render({in}, {});
}

int count_of(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(DiagnosisOfRealRuns, EveryFlaggedReportHasANextLinePerCauseAndNoPassingOneHasAny) {
  const auto files = real_runs();
  ASSERT_GE(files.size(), 20u);
  int flagged = 0;
  for (const auto& path : files) {
    SCOPED_TRACE(path);
    const RunDocument d = load_run_file(path);
    const auto verdicts = compute_verdicts(d, {});
    const auto causes = diagnose(d, verdicts);
    const std::string text = text_report_of_file(d, path);
    const bool any_flag = std::any_of(verdicts.begin(), verdicts.end(),
                                      [](const PairVerdict& v) { return !v.flags.empty(); });
    if (any_flag) {
      ++flagged;
      ASSERT_FALSE(causes.empty());
      EXPECT_NE(text.find("\nDiagnosis: why, and what to do next:\n"), std::string::npos);
      for (const auto& c : causes) {
        EXPECT_EQ(c.next.rfind("Next: ", 0), 0u) << c.code;
        EXPECT_EQ(c.summary.find('{'), std::string::npos) << c.code << ": " << c.summary;
        EXPECT_EQ(c.next.find('{'), std::string::npos) << c.code << ": " << c.next;
      }
      EXPECT_EQ(count_of(text, "\n  Next: "), static_cast<int>(causes.size()));
      // The diagnosis keeps the text report within a terminal's 120 columns.
      std::size_t start = 0;
      for (auto nl = text.find('\n'); nl != std::string::npos;
           start = nl + 1, nl = text.find('\n', start))
        EXPECT_LE(nl - start, 120u) << text.substr(start, nl - start);
    }
    if (text.find("\nPASS: ") != std::string::npos ||
        text.find("\nNOT JUDGED: ") != std::string::npos) {
      EXPECT_TRUE(causes.empty());
      EXPECT_EQ(text.find("Next:"), std::string::npos);
    }
  }
  EXPECT_GE(flagged, 6);  // nccl-shm, nccl-net (examples and shared runs), socket, slowed pair, ...
}

TEST(DiagnosisOfRealRuns, TheJsonHoldsTheDiagnosisAsWritten) {
  RunDocument d = load_run_file(std::string(PEERBENCH_SOURCE_DIR) +
                                "/tests/fixtures/runs/h200x2/p2p-shm-disabled.json");
  d.diagnosis = diagnose(d, compute_verdicts(d, {}));
  d.nccl.reasons = {"NCCL_P2P_DISABLE set by environment to 1"};
  ASSERT_EQ(d.diagnosis.size(), 2u);
  const nlohmann::json j = to_json(d);
  EXPECT_EQ(j["schema_version"], kSchemaVersion);
  EXPECT_EQ(j["diagnosis"][0]["code"], "nccl-p2p-disabled-by-env");
  EXPECT_EQ(j["diagnosis"][1]["next"],
            "Next: unset NCCL_SHM_DISABLE (and NCCL_P2P_DISABLE) and run again");
  const RunDocument back = run_document_from_json(j, "round trip");
  ASSERT_EQ(back.diagnosis.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(back.diagnosis[i].code, d.diagnosis[i].code);
    EXPECT_EQ(back.diagnosis[i].pairs, d.diagnosis[i].pairs);
    EXPECT_EQ(back.diagnosis[i].next, d.diagnosis[i].next);
    EXPECT_EQ(back.diagnosis[i].evidence.size(), d.diagnosis[i].evidence.size());
  }
  EXPECT_EQ(back.nccl.reasons, d.nccl.reasons);
  // A file without them (every file before) reads as none.
  EXPECT_TRUE(
      load_run_file(std::string(PEERBENCH_SOURCE_DIR) + "/results/examples/h200x2-default.json")
          .diagnosis.empty());
}

}  // namespace
}  // namespace peerbench
