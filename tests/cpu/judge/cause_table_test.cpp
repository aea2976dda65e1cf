// The cause table (core/judge/cause_table.h) is the one list of causes: docs/diagnosis.md's table
// and results/SCHEMA.md's "Cause codes:" are held to it here, each failure naming the file and the
// code; every flag a cause explains is a flag of the flag table, and every flag has a cause.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "core/base/text.h"
#include "core/judge/cause_table.h"
#include "core/model/flag_table.h"
#include "test_fixtures.h"
#include "test_text.h"

namespace peerbench {
namespace {

using test::source_file_text;
using test::trimmed;

std::string unquote(std::string s) {
  s = trimmed(s);
  if (s.size() >= 2 && s.front() == '`' && s.back() == '`') s = s.substr(1, s.size() - 2);
  std::string out;  // Markdown's \| in a cell is a |
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '|') continue;
    out += s[i];
  }
  return out;
}

// A table row's cells, split at | that Markdown does not escape.
std::vector<std::string> cells(const std::string& row) {
  std::vector<std::string> out;
  std::string cur;
  for (std::size_t i = 1; i < row.size(); ++i) {
    if (row[i] == '|' && row[i - 1] != '\\') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += row[i];
    }
  }
  return out;
}

TEST(CauseTable, EachCodeOnceWithItsWordsAndANextLine) {
  std::set<std::string> seen;
  for (const auto& c : cause_table()) {
    EXPECT_TRUE(seen.insert(c.code).second) << c.code << " twice";
    EXPECT_TRUE(std::regex_match(std::string(c.code), std::regex("[a-z0-9]+(-[a-z0-9]+)*")))
        << c.code;
    EXPECT_EQ(std::string(c.next).rfind("Next: ", 0), 0u) << c.code << ": " << c.next;
    EXPECT_FALSE(std::string(c.wording).empty()) << c.code;
    EXPECT_FALSE(std::string(c.needs).empty()) << c.code;
    EXPECT_FALSE(std::string(c.group).empty()) << c.code;
    EXPECT_EQ(find_cause(c.code), &c);
    for (const char* f : c.flags)
      EXPECT_NE(find_flag(f), nullptr) << c.code << " explains " << f << ", no such flag";
  }
  EXPECT_EQ(find_cause("no-such-cause"), nullptr);
  // Every flag of the flag table can be explained, if only by "unknown" and its measurement.
  for (const auto& f : flag_table()) EXPECT_TRUE(cause_explains("unknown", f.code)) << f.code;
}

TEST(CauseTable, FillsItsFieldsAndLeavesUnknownOnes) {
  EXPECT_EQ(
      fill_fields("links {links} of {gpu} are down", {{"links", "3 and 7"}, {"gpu", "GPU 0"}}),
      "links 3 and 7 of GPU 0 are down");
  EXPECT_EQ(fill_fields("{nope} and {", {}), "{nope} and {");
}

TEST(CauseTable, DiagnosisMdHoldsEachRow) {
  const std::string md = source_file_text("docs/diagnosis.md");
  std::map<std::string, std::vector<std::string>> rows;
  std::istringstream in(md);
  std::string line;
  bool in_table = false;
  std::vector<std::string> header;
  while (std::getline(in, line)) {
    if (line.rfind("| cause |", 0) == 0) {
      in_table = true;
      for (auto& h : cells(line)) header.push_back(trimmed(h));
      continue;
    }
    if (!in_table) continue;
    if (line.rfind("|", 0) != 0) break;
    if (line.rfind("|---", 0) == 0) continue;
    auto cs = cells(line);
    if (!cs.empty()) rows[unquote(cs[0])] = cs;
  }
  ASSERT_EQ(header, (std::vector<std::string>{"cause", "kind", "evidence it needs", "says", "Next",
                                              "flags it explains"}));
  for (const auto& c : cause_table()) {
    ASSERT_TRUE(rows.count(c.code)) << "docs/diagnosis.md has no row for " << c.code;
    const auto& r = rows[c.code];
    ASSERT_EQ(r.size(), 6u) << c.code;
    EXPECT_EQ(trimmed(r[1]), to_string(c.kind)) << c.code;
    EXPECT_EQ(unquote(r[2]), c.needs) << c.code;
    EXPECT_EQ(unquote(r[3]), c.wording) << c.code;
    EXPECT_EQ(unquote(r[4]), c.next) << c.code;
    std::set<std::string> listed;
    const std::regex code("`([a-z0-9-]+)`");
    for (std::sregex_iterator i(r[5].begin(), r[5].end(), code), end; i != end; ++i)
      listed.insert((*i)[1]);
    EXPECT_EQ(listed, std::set<std::string>(c.flags.begin(), c.flags.end())) << c.code;
    rows.erase(c.code);
  }
  for (const auto& [code, r] : rows)
    ADD_FAILURE() << "docs/diagnosis.md lists " << code << ", no such cause";
}

TEST(CauseTable, SchemaMdListsTheCodes) {
  const std::string md = source_file_text("results/SCHEMA.md");
  const auto at = md.find("Cause codes:");
  ASSERT_NE(at, std::string::npos) << "results/SCHEMA.md has no 'Cause codes:' list";
  const std::string list = md.substr(at, md.find("\n\n", at) - at);
  std::set<std::string> listed;
  const std::regex code("`([a-z0-9-]+)`");
  for (std::sregex_iterator i(list.begin(), list.end(), code), end; i != end; ++i)
    listed.insert((*i)[1]);
  std::set<std::string> want;
  for (const auto& c : cause_table()) want.insert(c.code);
  for (const auto& w : want)
    EXPECT_TRUE(listed.count(w)) << "results/SCHEMA.md's 'Cause codes:' lacks " << w;
  for (const auto& l : listed)
    EXPECT_TRUE(want.count(l)) << "results/SCHEMA.md lists " << l << ", no such cause";
}

}  // namespace
}  // namespace peerbench
