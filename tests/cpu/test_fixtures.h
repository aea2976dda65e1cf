#pragma once
// Where the CPU tests' files are in the source tree, and the runs read from them: the real runs
// of tests/fixtures/runs/ (tests/fixtures/README.md says which machine gave each), the other
// tools' outputs of tests/fixtures/imports/, the committed example runs of results/examples/.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "core/model/schema.h"

namespace peerbench::test {

// `rel` (a path from the top of the source tree) as an absolute path.
inline std::string source_path(const std::string& rel) {
  return std::string(PEERBENCH_SOURCE_DIR) + "/" + rel;
}

// The whole file at `path`; "" when it cannot be read.
inline std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The file `rel` of the source tree (docs, scripts, tables), a test failure when it is missing.
inline std::string source_file_text(const std::string& rel) {
  std::ifstream in(source_path(rel));
  EXPECT_TRUE(in) << rel << " missing";
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A run of tests/fixtures/runs/ ("h200x2/default.json", "h200x1-shared-serial.json").
inline std::string run_fixture_path(const std::string& name) {
  return source_path("tests/fixtures/runs/" + name);
}

// Another tool's output of tests/fixtures/imports/.
inline std::string import_fixture_path(const std::string& name) {
  return source_path("tests/fixtures/imports/" + name);
}

// A committed example run of results/examples/ ("h200x2-default.json").
inline std::string example_path(const std::string& name) {
  return source_path("results/examples/" + name);
}

inline RunDocument example_run(const std::string& name) {
  return load_run_file(example_path(name));
}

// A real 2 x H200 run of tests/fixtures/runs/h200x2/ ("default.json", "p2p-disabled.json").
inline RunDocument h200x2_run(const std::string& name) {
  return load_run_file(run_fixture_path("h200x2/" + name));
}

// h200x2/default.json (every pair passing), read once for the tests that copy it many times.
inline const RunDocument& h200x2_default_run() {
  static const RunDocument d = h200x2_run("default.json");
  return d;
}

}  // namespace peerbench::test
