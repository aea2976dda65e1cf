// The GPU layer's registry against the core's method catalogue (core/model/method_catalog.def):
// every entry has its implementation, every implementation its entry, in the catalogue's order,
// and what an entry says of its implementation's behaviour (workers, start gate) holds. Building
// the methods touches no GPU, so this runs wherever the GPU layer builds (CI included).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/model/method_catalog.h"
#include "gpu/method.h"

namespace peerbench {
namespace {

std::vector<std::string> names(const std::vector<MethodInfo>& c) {
  std::vector<std::string> out;
  for (const auto& m : c) out.push_back(m.name);
  return out;
}

bool has_line(const std::vector<std::string>& lines, const std::string& text) {
  return std::find(lines.begin(), lines.end(), text) != lines.end();
}

TEST(MethodRegistry, ImplementsTheCatalogue) {
  const auto methods = gpu::make_methods();
  EXPECT_EQ(gpu::catalogue_mismatches(method_catalog(), methods), std::vector<std::string>{});
  std::vector<std::string> built;
  for (const auto& m : methods) built.push_back(m->info().name);
  EXPECT_EQ(built, names(method_catalog()));
  EXPECT_EQ(names(gpu::method_catalog()), names(method_catalog()));
  for (const auto& m : methods) {
    // The implementation carries its entry, field for field.
    const MethodInfo& e = *find_method(method_catalog(), m->info().name);
    EXPECT_EQ(m->info().summary, e.summary);
    EXPECT_EQ(gpu::described(*m).workers, e.workers) << e.name;
    EXPECT_EQ(gpu::described(*m).start_gated, e.start_gated) << e.name;
  }
}

TEST(MethodRegistry, NamesAnEntryWithoutImplementationAndTheReverse) {
  const auto methods = gpu::make_methods();
  auto fewer = method_catalog();
  fewer.erase(std::remove_if(fewer.begin(), fewer.end(),
                             [](const MethodInfo& m) { return m.name == "staged"; }),
              fewer.end());
  EXPECT_TRUE(has_line(gpu::catalogue_mismatches(fewer, methods),
                       "implementation staged has no catalogue entry"));
  auto more = method_catalog();
  more.push_back(more.front());
  more.back().name = "ce-wrtie";
  EXPECT_TRUE(has_line(gpu::catalogue_mismatches(more, methods),
                       "catalogue entry ce-wrtie has no implementation"));
  auto swapped = method_catalog();
  std::swap(swapped[0], swapped[1]);
  ASSERT_EQ(gpu::catalogue_mismatches(swapped, methods).size(), 1u);
  EXPECT_NE(gpu::catalogue_mismatches(swapped, methods)[0].find("another order"),
            std::string::npos);
}

TEST(MethodRegistry, NamesAnEntryItsImplementationContradicts) {
  const auto methods = gpu::make_methods();
  auto wrong = method_catalog();
  for (auto& m : wrong) {
    if (m.name == "sm-latency") m.workers = 1;
    if (m.name == "staged") m.start_gated = true;
  }
  const auto lines = gpu::catalogue_mismatches(wrong, methods);
  EXPECT_TRUE(
      has_line(lines, "sm-latency: the catalogue says workers 1, its implementation has 2"));
  EXPECT_TRUE(has_line(lines,
                       "staged: the catalogue says start_gated true, its implementation skips the "
                       "start gate"));
  EXPECT_EQ(lines.size(), 2u);
}

// A method file whose factory no catalogue entry calls would build and never run.
TEST(MethodRegistry, EveryFactoryUnderMethodsIsRegistered) {
  const std::regex factory(R"(std::unique_ptr<Method>\s+make_(\w+)\(\)\s*\{)");
  std::set<std::string> defined;
  for (const auto& f : std::filesystem::directory_iterator(std::string(PEERBENCH_SOURCE_DIR) +
                                                           "/src/gpu/methods")) {
    if (f.path().extension() != ".cpp") continue;
    std::ifstream in(f.path());
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    for (std::sregex_iterator i(text.begin(), text.end(), factory), end; i != end; ++i)
      defined.insert((*i)[1]);
  }
  const auto registered = gpu::registered_factories();
  EXPECT_EQ(defined, std::set<std::string>(registered.begin(), registered.end()))
      << "a make_<id>() under src/gpu/methods/ without its entry in core/model/method_catalog.def, "
         "or the reverse";
  EXPECT_EQ(registered.size(), method_catalog().size());
}

}  // namespace
}  // namespace peerbench
