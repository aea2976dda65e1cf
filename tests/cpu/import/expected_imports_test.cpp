// Every row of tests/data/imports/expected.tsv (real outputs people posted, each with its source
// and the verdict a careful engineer gives it): the file imports, and its verdict and flags are
// the expected ones. The table grows while the corpus is collected; the test holds whatever rows
// it has. PEERBENCH_IMPORTS_DIR points it at another copy of the folder.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/base/text.h"
#include "core/import/import.h"
#include "core/judge/verdict.h"
#include "core/model/results.h"
#include "core/platform/input_file.h"
#include "test_verdicts.h"

namespace peerbench {
namespace {

std::string imports_dir() {
  const char* over = std::getenv("PEERBENCH_IMPORTS_DIR");
  return over ? over : std::string(PEERBENCH_SOURCE_DIR) + "/tests/data/imports";
}

struct Row {
  std::string file, tool, verdict, flags, why, source;
};

std::vector<Row> expected_rows() {
  std::vector<Row> rows;
  std::ifstream in(imports_dir() + "/expected.tsv");
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (header) {
      header = false;
      continue;
    }
    if (line.empty()) continue;
    const auto f = split(line, '\t');
    if (f.size() < 6) {
      ADD_FAILURE() << "expected.tsv row without its six columns: " << line;
      continue;
    }
    rows.push_back({f[0], f[1], f[2], f[3], f[4], f[5]});
  }
  return rows;
}

// The verdict of a whole output: flagged where any pair or flag is; else incomplete where a
// method or the run is; else pass where a figure passed; else not judged.
std::string overall_verdict(const RunDocument& d, const std::vector<PairVerdict>& vs) {
  const auto c = count_verdicts(vs);
  if (c.flagged > 0) return "flagged";
  if (c.incomplete > 0 || c.incomplete_methods > 0 || d.status != "complete") return "incomplete";
  if (c.pass > 0) return "pass";
  return "not-judged";
}

// Each verdict's state, flags and the reasons of its methods, for a failure's message.
std::string what_was_judged(const std::vector<PairVerdict>& vs) {
  std::string s;
  for (const auto& v : vs) {
    s += "\n  " + std::to_string(v.src) + "->" + std::to_string(v.dst) + " " + v.link + " " +
         v.verdict;
    for (const auto& f : v.flags) s += " [" + f.code + "]";
    for (const auto& m : v.methods) s += "\n    " + m.method + " " + m.state + ": " + m.reason;
  }
  return s.empty() ? "no verdict" : s;
}

}  // namespace

TEST(ExpectedImports, EveryRowImportsWithItsVerdict) {
  const auto rows = expected_rows();
  if (rows.empty()) GTEST_SKIP() << "no expected.tsv rows yet under " << imports_dir();
  for (const auto& row : rows) {
    SCOPED_TRACE(row.file + " (" + row.why + ")");
    EXPECT_FALSE(row.source.empty()) << "every output cites its source";
    const std::string path = imports_dir() + "/" + row.file;
    const std::string text = read_input_file(path, InputKind::kImport);
    if (detect_format(text) == ImportFormat::kTopoMatrix) {
      const auto t = import_topology(text, path);
      EXPECT_FALSE(t.hosts.front().pairs.empty());
      // Every GPU pair's cell is a link (NV#, PIX, ...): columns run together after the GPUs'
      // (NIC7NIC8) must not shift them.
      for (const auto& p : t.hosts.front().pairs)
        EXPECT_NE(classify_link(p).label, "?") << "GPU" << p.gpu_a << "-GPU" << p.gpu_b;
      EXPECT_EQ(row.verdict, "not-judged") << "a topology alone has no figure to judge";
      continue;
    }
    RunDocument d;
    try {
      d = import_text(text, path);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "does not import: " << e.what();
      continue;
    }
    const auto vs = compute_verdicts(d, Expectations{});
    EXPECT_EQ(overall_verdict(d, vs), row.verdict) << what_was_judged(vs);
    const auto codes = test::flag_code_set(vs);
    if (row.flags != "-") {
      for (const auto& f : split(row.flags, ',')) EXPECT_TRUE(codes.count(f)) << "flag " << f;
    }
    if (row.verdict == "pass") EXPECT_TRUE(codes.empty()) << "a healthy output raises no flag";
  }
}

}  // namespace peerbench
