// The flag table (core/model/flag_table.h) is the one list of flag codes: the code's lists derive
// from it, and the copies outside the code (results/SCHEMA.md, scripts/completion.bash,
// docs/verdicts.md) are held to it here, each failure naming the file and the code.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/base/text.h"
#include "core/judge/verdict.h"
#include "core/model/flag_table.h"
#include "test_fixtures.h"
#include "test_text.h"

namespace peerbench {
namespace {

using test::source_file_text;
using test::trimmed;

std::set<std::string> table_codes() {
  std::set<std::string> codes;
  for (const auto& f : flag_table()) codes.insert(f.code);
  return codes;
}

// What --fail-on accepts besides "all" and "none": the run's flag codes and the states.
std::set<std::string> fail_on_items() {
  std::set<std::string> items;
  for (const auto& c : known_flag_codes()) items.insert(c);
  for (const auto& s : failing_states()) items.insert(s);
  for (const auto& s : opt_in_failing_states()) items.insert(s);
  return items;
}

// The words of `want` missing from `have`, and those of `have` that `want` lacks.
void expect_same(const std::set<std::string>& have, const std::set<std::string>& want,
                 const std::string& where) {
  for (const auto& w : want) EXPECT_TRUE(have.count(w)) << where << " lacks " << w;
  for (const auto& h : have) EXPECT_TRUE(want.count(h)) << where << " has " << h << ", no such";
}

TEST(FlagTable, EachCodeOnceWithItsWords) {
  std::set<std::string> seen;
  for (const auto& f : flag_table()) {
    EXPECT_TRUE(seen.insert(f.code).second) << f.code << " twice";
    EXPECT_TRUE(std::regex_match(std::string(f.code), std::regex("[a-z0-9]+(-[a-z0-9]+)*")))
        << f.code;
    const std::string summary = f.summary;
    EXPECT_FALSE(summary.empty()) << f.code;
    EXPECT_LE(summary.size(), 60u) << f.code << ": a summary is a few words";
    EXPECT_EQ(find_flag(f.code), &f);
  }
  EXPECT_EQ(find_flag("no-such-flag"), nullptr);
}

TEST(FlagTable, TheVerdictsCodesAreTheRunsRows) {
  std::vector<std::string> run;
  for (const auto& f : flag_table()) {
    if (f.family != FlagFamily::kFleet) run.emplace_back(f.code);
  }
  EXPECT_EQ(known_flag_codes(), run);
  EXPECT_EQ(find_flag("fleet-outlier")->family, FlagFamily::kFleet);
  // A GPU's own flags stand on every pair of the GPU (counted once): its links' health.
  for (const auto& f : flag_table())
    EXPECT_EQ(f.scope == FlagScope::kGpu, f.family == FlagFamily::kHealth) << f.code;
}

TEST(FlagTable, SchemaMdNamesEveryCode) {
  const std::string md = source_file_text("results/SCHEMA.md");
  for (const auto& c : table_codes())
    EXPECT_NE(md.find("`" + c + "`"), std::string::npos) << "results/SCHEMA.md does not name " << c;
  // Its list of a results file's codes is the run's rows, no more.
  const auto at = md.find("Flag codes:");
  ASSERT_NE(at, std::string::npos) << "results/SCHEMA.md has no 'Flag codes:' list";
  const std::string list = md.substr(at, md.find('(', at) - at);
  std::set<std::string> listed;
  const std::regex code("`([a-z0-9-]+)`");
  for (std::sregex_iterator i(list.begin(), list.end(), code), end; i != end; ++i)
    listed.insert((*i)[1]);
  const auto run = known_flag_codes();
  expect_same(listed, {run.begin(), run.end()}, "results/SCHEMA.md's 'Flag codes:'");
}

TEST(FlagTable, CompletionOffersWhatFailOnTakes) {
  const std::string sh = source_file_text("scripts/completion.bash");
  const auto at = sh.find("report:--fail-on | run:--fail-on)");
  ASSERT_NE(at, std::string::npos) << "scripts/completion.bash completes no run/report --fail-on";
  const std::string block = sh.substr(at, sh.find(";;", at) - at);
  std::set<std::string> offered;
  const std::regex words("words\\+?=\"([^\"]*)\"");
  for (std::sregex_iterator i(block.begin(), block.end(), words), end; i != end; ++i) {
    for (const auto& w : split(trimmed((*i)[1].str()), ' ')) {
      if (!w.empty()) offered.insert(w);
    }
  }
  auto want = fail_on_items();
  want.insert({"all", "none"});
  expect_same(offered, want, "scripts/completion.bash's --fail-on values");
}

// docs/verdicts.md's flag table (the one whose header starts "| flag |"): its rows
// "| `CODE` | ... |", cells by the header's column names. The page's other tables (states, the
// --expect keys) are not flags.
std::map<std::string, std::vector<std::map<std::string, std::string>>> doc_rows(
    const std::string& md) {
  std::map<std::string, std::vector<std::map<std::string, std::string>>> rows;
  std::vector<std::string> header;
  std::istringstream in(md);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| flag |", 0) == 0) {
      header.clear();
      for (const auto& c : split(line, '|')) header.push_back(trimmed(c));
      continue;
    }
    if (line.rfind("|", 0) != 0) header.clear();  // the table ended
    if (header.empty() || line.rfind("| `", 0) != 0) continue;
    const auto cells = split(line, '|');
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < cells.size() && i < header.size(); ++i)
      row[header[i]] = trimmed(cells[i]);
    const std::string first = trimmed(cells[1]);
    rows[first.substr(1, first.find('`', 1) - 1)].push_back(row);
  }
  return rows;
}

TEST(FlagTable, VerdictsMdHasOneRowPerCode) {
  const auto rows = doc_rows(source_file_text("docs/verdicts.md"));
  for (const auto& f : flag_table()) {
    const auto it = rows.find(f.code);
    if (it == rows.end()) {
      ADD_FAILURE() << "docs/verdicts.md has no row \"| `" << f.code << "` |\"";
      continue;
    }
    ASSERT_EQ(it->second.size(), 1u) << "docs/verdicts.md has " << f.code << " more than once";
    const auto& row = it->second.front();
    EXPECT_EQ(row.count("stands on") ? row.at("stands on") : "?", scope_words(f.scope))
        << "docs/verdicts.md, " << f.code << ": where it stands";
    EXPECT_EQ(row.count("fails by default") ? row.at("fails by default") : "?",
              f.fails_by_default ? "yes" : "no")
        << "docs/verdicts.md, " << f.code << ": whether it fails by default";
    if (row.count("family"))
      EXPECT_EQ(row.at("family"), to_string(f.family)) << "docs/verdicts.md, " << f.code;
  }
  for (const auto& [code, r] : rows)
    EXPECT_NE(find_flag(code), nullptr) << "docs/verdicts.md has a row for " << code << ", no flag";
}

}  // namespace
}  // namespace peerbench
