// Issue 42: every input ends in bounded time as well as memory, at a limit of
// core/platform/input_limits.h that the refusal names; and a file named on the command line that
// is no run is refused, not left out with a note.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <sstream>

#include "core/base/errors.h"
#include "core/fleet/fleet.h"
#include "core/model/method_catalog.h"
#include "core/plan/plan.h"
#include "core/platform/input_file.h"
#include "core/platform/input_limits.h"
#include "core/present/plan_text.h"
#include "test_fixtures.h"
#include "test_text.h"
#include "test_time.h"

namespace peerbench {
namespace {

using test::contains;
using test::run_fixture_path;

// A fresh folder per test.
class InputLimits : public ::testing::Test {
 public:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/pb_limits_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    ASSERT_EQ(std::system(("rm -rf '" + dir_ + "' && mkdir -p '" + dir_ + "'").c_str()), 0);
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }
  std::string at(const std::string& name) const { return dir_ + "/" + name; }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(at(name), std::ios::binary) << text;
    return at(name);
  }
  std::string dir_;
};

// The message of what `f` throws as `E`; a failure when it throws nothing or something else.
template <typename E>
std::string message_thrown_as(const std::function<void()>& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("another exception: ") + e.what();
  }
  return "nothing thrown";
}

// "--expect file is 1048577 bytes; at most 1 MiB is read" left the reader to guess whether the
// first MiB had been read; a file whose size said less when it was opened (one still being
// written, or of /proc) read "grew past 1 MiB" with no size at all.
TEST_F(InputLimits, AFileOverItsLimitIsRefusedWithItsRoleSizeAndLimit) {
  const std::string big = write("big.json", "");
  ASSERT_EQ(::truncate(big.c_str(), static_cast<off_t>(kMaxExpectFileBytes + 1)), 0);
  const std::string e =
      message_thrown_as<InputError>([&] { read_input_file(big, InputKind::kExpect); });
  for (const char* part :
       {"big.json", "--expect file", "1048577 bytes", "over its limit of 1 MiB (1048576 bytes)"})
    EXPECT_TRUE(contains(e, part)) << part << " not in: " << e;

  const std::string growing = write("growing.json", "{}");
  InputFile f(growing, InputKind::kExpect);
  std::ofstream(growing, std::ios::binary | std::ios::app) << std::string(2 << 20, ' ');
  const std::string g = message_thrown_as<InputError>([&] { f.read_rest(); });
  for (const char* part : {"growing.json", "--expect file holds more than its limit of 1 MiB",
                           "bytes read, where its size was 2 bytes when opened"})
    EXPECT_TRUE(contains(g, part)) << part << " not in: " << g;
}

// `fleet topo.json node-b.json` exited 0, the topology "not counted" in a note, and the fleet
// passed on one node. Named, a file that is no run is refused; found in a folder, it is still
// left out with a note; a named run that is damaged is still an unreadable node.
TEST_F(InputLimits, FleetRefusesAFileNamedThatIsNoRun) {
  const std::string run = run_fixture_path("h200x2/default.json");
  const std::string baseline = write("base.json", R"({"baseline": {"entries": []}})");
  const struct {
    std::string file, says;
  } named[] = {
      {run_fixture_path("h200x2/topo.json"), "is a topology file (topo --json), not a run"},
      {baseline, "is a site baseline"},
      {write("kind.json", R"({"kind": "peerbench-other"})"), "of kind 'peerbench-other'"},
      {write("array.json", "[1, 2]"), "is a JSON array, not a run"},
      {write("plain.json", R"({"a": 1})"), "neither 'kind' nor 'schema_version'"}};
  for (const auto& n : named) {
    FleetOptions o;
    o.paths = {n.file, run};
    const std::string e = message_thrown_as<UsageError>([&] { build_fleet(o, method_catalog()); });
    EXPECT_TRUE(contains(e, n.file) && contains(e, n.says) && contains(e, "give results files"))
        << e;
  }
  // In a folder given, the topology is left out with a note, as before.
  ASSERT_EQ(::mkdir(at("runs").c_str(), 0755), 0);
  ASSERT_EQ(::symlink(run.c_str(), at("runs/node.json").c_str()), 0);
  ASSERT_EQ(::symlink(run_fixture_path("h200x2/topo.json").c_str(), at("runs/topo.json").c_str()),
            0);
  FleetOptions folder;
  folder.paths = {at("runs")};
  const FleetReport r = build_fleet(folder, method_catalog());
  EXPECT_EQ(r.nodes.size(), 1u);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_TRUE(contains(r.notes[0], "not a run: not counted")) << r.notes[0];
  // The same topology named, and found in the folder too: named wins.
  folder.paths = {at("runs"), at("runs/topo.json")};
  EXPECT_TRUE(
      contains(message_thrown_as<UsageError>([&] { build_fleet(folder, method_catalog()); }),
               "topo.json' is a topology file"));
  // A run cut short is a run that cannot be read: its node is listed, the fleet fails (exit 1).
  FleetOptions damaged;
  damaged.paths = {write("cut.json", R"({"schema_version": 3, "kind": "peerbench-ru)"), run};
  const FleetReport d = build_fleet(damaged, method_catalog());
  EXPECT_EQ(d.nodes.size(), 2u);
  EXPECT_EQ(fleet_exit_code(d), kExitFlagged);
}

// `fleet /proc/self` walked the whole file system through /proc/self/root for 31-39 s. Every
// name the walk reads counts against one limit, for all the paths given together.
TEST_F(InputLimits, FleetWalkStopsAtItsEntryLimit) {
  static_assert(kMaxFolderEntries == 100'000, "docs/limits.md says 100,000 entries");
  ASSERT_EQ(::mkdir(at("runs").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir(at("runs/a").c_str(), 0755), 0);
  for (int i = 0; i < 30; ++i) write("runs/a/n" + std::to_string(i) + ".txt", "");
  EXPECT_EQ(collect_result_files({at("runs")}, 31).files.size(), 0u);  // "a" and its 30
  const std::string e = message_thrown_as<UsageError>([&] {
    collect_result_files({at("runs"), at("runs/a")}, 30);
  });
  for (const char* part : {"runs'", "more than 30 entries", "looks at 30 at most",
                           "give the folders that hold the results files"})
    EXPECT_TRUE(contains(e, part)) << part << " not in: " << e;
  const test::CpuStopwatch cpu;
  const std::string proc =
      message_thrown_as<UsageError>([&] { collect_result_files({"/proc/self"}); });
  EXPECT_LT(cpu.seconds(), test::time_bound(10.0));
  EXPECT_TRUE(contains(proc, "more than 100000 entries")) << proc;
}

// A million --hosts names took 13-16 s and 1.5 GB (each a node of the report); 100,000 is the
// limit, and the refusal says it and what to do instead.
TEST_F(InputLimits, HostListsStopAtTheirLimit) {
  static_assert(kMaxHosts == 100'000, "docs/limits.md says 100,000 names");
  std::string names;
  for (std::size_t i = 0; i < kMaxHosts; ++i) names += "node" + std::to_string(i) + "\n";
  EXPECT_EQ(load_host_list(write("hosts", names)).size(), kMaxHosts);
  names += "one-more\n";
  const std::string e =
      message_thrown_as<InputError>([&] { load_host_list(write("hosts", names)); });
  for (const char* part : {"hosts: --hosts file, line 100001", "more than 100000 host names",
                           "a --hosts file and a fleet for each part"})
    EXPECT_TRUE(contains(e, part)) << part << " not in: " << e;
}

PlanInput ranks_on_nodes(int nodes, int gpus_per_node) {
  PlanInput in;
  in.world_size = nodes * gpus_per_node;
  for (int r = 0; r < in.world_size; ++r) in.host_of_rank.push_back("n" + std::to_string(r / 8));
  in.methods = method_catalog();
  in.sizes = {1 << 20, 1 << 30};
  return in;
}

// `run --dry-run --np 1024 -v` listed 10 million rows (675 MB) in 12-21 s. -v lists pairs up to
// its limit, then summarises as without it and says so; a plan within the limit is listed whole.
TEST_F(InputLimits, AVerboseDryRunListsAtMostItsLimit) {
  const test::CpuStopwatch cpu;
  std::ostringstream out;
  write_plan(out, ranks_on_nodes(32, 8), true);
  EXPECT_LT(cpu.seconds(), test::time_bound(10.0));
  const std::string text = out.str();
  EXPECT_LT(text.size(), 20u << 20) << "listed past its limit";
  EXPECT_TRUE(contains(text,
                       "# note: -v lists at most 100000 pairs; the rest are summarised per "
                       "method (...): give -m, --pairs or a smaller --np to list every step"))
      << text.substr(text.size() - 400);
  EXPECT_TRUE(contains(text, "more steps")) << "the rest summarised";
  EXPECT_FALSE(contains(text, "(-v lists them)")) << "-v was given";
  std::ostringstream small;
  write_plan(small, ranks_on_nodes(1, 8), true);
  EXPECT_FALSE(contains(small.str(), "more steps")) << small.str();
  EXPECT_FALSE(contains(small.str(), "-v lists at most"));
}

}  // namespace
}  // namespace peerbench
