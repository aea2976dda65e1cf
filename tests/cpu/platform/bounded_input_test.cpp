// Issue 20: every input through one bounded reader (core/input_file), results files read
// element by element within a memory budget, the values a run cannot have written refused, and
// outputs that cannot destroy inputs. tests/e2e/hostile_inputs.py runs the same classes against
// the executable by the thousand; these pin the core's behaviour, and run under the sanitizers.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <functional>

#include "core/base/errors.h"
#include "core/fleet/fleet.h"
#include "core/judge/expectations_keys.h"
#include "core/judge/verdict.h"
#include "core/model/json_in.h"
#include "core/model/method_catalog.h"
#include "core/model/schema.h"
#include "core/platform/atomic_file.h"
#include "core/platform/input_file.h"
#include "test_fixtures.h"
#include "test_text.h"
#include "test_time.h"

namespace peerbench {
namespace {

using nlohmann::json;
using test::contains;

// A fresh folder per test; a hang (a FIFO waited on) ends the test by SIGALRM instead of CI.
class BoundedInput : public ::testing::Test {
 public:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/pb_bounded_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    ASSERT_EQ(std::system(("rm -rf '" + dir_ + "' && mkdir -p '" + dir_ + "'").c_str()), 0);
    ::alarm(static_cast<unsigned>(test::time_bound(60)));
  }
  void TearDown() override {
    ::alarm(0);
    std::system(("chmod -R u+rwx '" + dir_ + "' 2>/dev/null; rm -rf '" + dir_ + "'").c_str());
  }
  std::string at(const std::string& name) const { return dir_ + "/" + name; }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(at(name), std::ios::binary) << text;
    return at(name);
  }
  std::string dir_;
};

// The message of what `f` throws, "" when it throws nothing.
std::string message_thrown(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST_F(BoundedInput, SpecialFilesAreRefusedWithoutBlocking) {
  ASSERT_EQ(::mkfifo(at("fifo").c_str(), 0600), 0);
  ASSERT_EQ(::symlink(at("fifo").c_str(), at("link").c_str()), 0);
  ASSERT_EQ(::symlink(at("none").c_str(), at("dangling").c_str()), 0);
  ASSERT_EQ(::symlink(at("loop2").c_str(), at("loop1").c_str()), 0);
  ASSERT_EQ(::symlink(at("loop1").c_str(), at("loop2").c_str()), 0);
  ::mkdir(at("folder").c_str(), 0755);
  const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string sock = at("sock");
  ASSERT_LT(sock.size(), sizeof(addr.sun_path));
  std::snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", sock.c_str());
  ASSERT_EQ(::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  const struct {
    std::string path, says;
  } cases[] = {{at("fifo"), "is a FIFO"},
               {at("link"), "is a symbolic link to a FIFO"},
               {"/dev/zero", "is a character device"},
               {at("sock"), "is a socket"},
               {at("folder"), "is a folder"},
               {at("dangling"), "dangling"},
               {at("loop1"), "loop of symbolic links"},
               {at("missing"), "does not exist"}};
  for (const auto& c : cases) {
    for (auto kind : {InputKind::kResults, InputKind::kExpect, InputKind::kHosts, InputKind::kPlot,
                      InputKind::kNcclLog}) {
      const std::string e = message_thrown([&] { read_input_file(c.path, kind); });
      EXPECT_TRUE(contains(e, c.path) && contains(e, c.says) && contains(e, input_label(kind)))
          << e;
    }
  }
  EXPECT_TRUE(
      contains(message_thrown([&] { load_run_file(at("fifo")); }), "results file is a FIFO"));
  EXPECT_TRUE(
      contains(message_thrown([&] { load_host_list(at("fifo")); }), "--hosts file is a FIFO"));
  EXPECT_TRUE(
      contains(message_thrown([&] { load_expectations(at("fifo")); }), "--expect file is a FIFO"));
  EXPECT_TRUE(
      contains(message_thrown([&] { read_input_file("", InputKind::kExpect); }), "path is empty"));
  ::close(s);
}

TEST_F(BoundedInput, SizesAreCheckedBeforeReading) {
  const struct {
    InputKind kind;
    const char* limit;
  } kinds[] = {{InputKind::kResults, "256 MiB"},
               {InputKind::kExpect, "1 MiB"},
               {InputKind::kHosts, "64 MiB"},
               {InputKind::kPlot, "16 MiB"}};
  for (const auto& k : kinds) {
    const std::string p = at("sparse");
    ASSERT_EQ(
        ::truncate(write("sparse", "").c_str(), static_cast<off_t>(input_size_limit(k.kind) + 1)),
        0);
    const std::string e = message_thrown([&] { read_input_file(p, k.kind); });
    EXPECT_TRUE(contains(e, k.limit)) << e;
    ASSERT_EQ(::truncate(p.c_str(), static_cast<off_t>(input_size_limit(k.kind))), 0);
    if (k.kind != InputKind::kResults) {  // at the limit: read whole
      EXPECT_EQ(read_input_file(p, k.kind).size(), input_size_limit(k.kind));
    }
  }
  write("log", "0123456789");
  EXPECT_EQ(read_input_file_from(at("log"), InputKind::kNcclLog, 4), "456789");
  EXPECT_EQ(read_input_file_from(at("log"), InputKind::kNcclLog, 99), "");
}

// The streaming reader gives what the whole-document reader gives, for every real run.
TEST_F(BoundedInput, StreamedReadingEqualsTheDocumentReader) {
  for (const char* name :
       {"h200x2/default.json", "h200x2/rounds.json", "h200x2/nccl-large.json",
        "h200x2/p2p-disabled.json", "h200x2/derived/link-health-v2.json",
        "h200x2/derived/socket-cross-host.json", "h200x1-shared-simulated-two-hosts.json"}) {
    std::ifstream in(test::run_fixture_path(name));
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const RunDocument streamed = load_run_file(test::run_fixture_path(name));
    const RunDocument whole = run_document_from_json(parse_json_text(text, name), name);
    EXPECT_FALSE(streamed.results.empty()) << name;
    EXPECT_EQ(to_json(streamed).dump(), to_json(whole).dump()) << name;
  }
}

json default_run_json() {
  return load_json_file(test::run_fixture_path("h200x2/default.json"));
}

// The error load_run_file gives `j` written as edited.json, "" when it loads.
std::string edited_run_error(const BoundedInput& t, const json& j) {
  const std::string p = t.write("edited.json", j.dump());
  return message_thrown([&] { load_run_file(p); });
}

// Errors in streamed sections are reported in the reader's order: a newer file says so first.
TEST_F(BoundedInput, StreamedErrorsComeInTheReadersOrder) {
  json j = default_run_json();
  j["results"][3]["bytes"] = 1.5;
  EXPECT_TRUE(contains(edited_run_error(*this, j), "field 'results[3].bytes'"));
  j["system"]["ranks"][0]["gpu"]["compute_capability"] = "9";
  EXPECT_TRUE(contains(edited_run_error(*this, j), "system.ranks[0].gpu.compute_capability"));
  j["schema_version"] = 99;
  EXPECT_TRUE(contains(edited_run_error(*this, j), "unsupported schema_version 99"));
}

// Millions of tiny results are refused within the budget, naming where; a few read.
TEST_F(BoundedInput, TinyValuesAreBoundedByTheFilesSize) {
  json j = default_run_json();
  const json tiny = {
      {"method", "ce-write"}, {"src", 0}, {"dst", 1}, {"bytes", 1}, {"status", "skipped"}};
  j["results"] = json::array();
  for (int i = 0; i < 1000; ++i) {  // distinct cases: a case is recorded once
    j["results"].push_back(tiny);
    j["results"].back()["bytes"] = i + 1;
  }
  EXPECT_EQ(load_run_file(write("few.json", j.dump())).results.size(), 1000u);
  // Past the budget, 3x the file plus 64 MiB: a result kept costs ~1 KB, 65 bytes of text.
  const std::string one = tiny.dump();
  std::string text = j.dump();
  std::string many;
  many.reserve(150000 * (one.size() + 1));
  for (int i = 0; i < 150000; ++i) many += (i ? "," : "") + one;
  const auto open = text.find("\"results\":[");
  const auto close = text.find(']', open);
  text.replace(open, close - open + 1, "\"results\":[" + many + "]");
  const std::string e = message_thrown([&] { load_run_file(write("many.json", text)); });
  EXPECT_TRUE(contains(e, "field 'results[") && contains(e, "too many small values")) << e;
}

TEST_F(BoundedInput, ValuesNoRunWritesAreRefusedNamingTheField) {
  const json base = default_run_json();
  std::size_t ok = 0;
  while (base["results"][ok]["status"] != "ok") ++ok;
  const std::string r = "results[" + std::to_string(ok) + "]";
  const struct {
    std::function<void(json&)> edit;
    std::string says;
  } cases[] = {
      {[&](json& j) { j["results"][ok]["time_us"]["min"] = 1e-300; }, r + ".time_us.min"},
      {[&](json& j) { j["results"][ok]["algbw_gbps"]["max"] = 1e-300; }, r + ".algbw_gbps"},
      {[&](json& j) {
         for (auto* k : {"min", "median", "max", "mean"}) j["results"][ok]["algbw_gbps"][k] = 7.0;
       },
       r + ".algbw_gbps.max': 7 GB/s is impossible"},
      {[&](json& j) {
         auto& b = j["results"][ok]["busbw_gbps"];
         for (auto* k : {"min", "median", "max", "mean"}) b[k] = b[k].get<double>() * 2;
       },
       r + ".busbw_gbps.min"},
      {[&](json& j) { j["results"][ok]["time_us"]["mean"] = 1e9; }, "mean outside min..max"},
      {[&](json& j) { j["results"][ok]["method"] = "ce-wrote"; },
       r + ".method': 'ce-wrote' is not in the file's methods"},
      {[&](json& j) { j["methods"].push_back(j["methods"][0]); }, "is listed twice"},
      {[&](json& j) { j["results"].push_back(j["results"][ok]); },
       "repeats " + r + " (same method, ranks, planned size"},
      {[&](json& j) { j["system"]["hosts"].push_back("ghost"); },
       "system.hosts[1]': 'ghost' is the host of no rank"},
      {[&](json& j) { j["system"]["hosts"].push_back("vm"); }, "'vm' is listed twice"},
      {[&](json& j) { j["topology"]["hosts"][0]["host"] = "elsewhere"; },
       "topology.hosts[0].host': 'elsewhere' is not in system.hosts"},
      {[&](json& j) { j["system"]["ranks"][1]["host"] = "vm2"; },
       "system.ranks[1].host': 'vm2' is not in system.hosts"},
      {[&](json& j) { j["system"]["ranks"][0]["gpu"]["compute_capability"] = "9.0.1"; },
       "not a compute capability"},
      {[&](json& j) { j["system"]["ranks"][0]["gpu"]["compute_capability"] = "+9.0"; },
       "not a compute capability"},
      {[&](json& j) { j["system"]["ranks"][0]["gpu"]["compute_capability"] = "9"; },
       "not a compute capability"},
  };
  for (const auto& c : cases) {
    json j = base;
    c.edit(j);
    const std::string e = edited_run_error(*this, j);
    EXPECT_TRUE(contains(e, "edited.json") && contains(e, c.says)) << c.says << " <- " << e;
  }
  EXPECT_EQ(edited_run_error(*this, base), "");
  // Two planned sizes a collective rounds down to one size are two cases, as a run writes them.
  json rounded = base;
  json again = base["results"][ok];
  again["requested_bytes"] = again["bytes"].get<std::uint64_t>() + 4;
  rounded["results"].push_back(again);
  EXPECT_EQ(edited_run_error(*this, rounded), "");
}

TEST_F(BoundedInput, FleetWalksEachFolderOnceAndListsWhatItCannotRead) {
  ::mkdir(at("runs").c_str(), 0755);
  ::mkdir(at("runs/a").c_str(), 0755);
  write("runs/a/n1.json", "{}");
  for (int i = 0; i < 6; ++i) {  // 6^8 visits if followed blindly
    ::symlink(".", at("runs/self" + std::to_string(i)).c_str());
    ::symlink("..", at("runs/a/up" + std::to_string(i)).c_str());
  }
  ::mkfifo(at("runs/fifo.json").c_str(), 0600);
  const ResultFiles found = collect_result_files({at("runs")});
  EXPECT_EQ(found.files, (std::vector<std::string>{at("runs/a/n1.json"), at("runs/fifo.json")}));
  EXPECT_TRUE(found.unreadable.empty());
  std::string deep = at("deep");
  for (int i = 0; i <= kMaxFolderDepth + 1; ++i) deep += "/d";
  ASSERT_EQ(std::system(("mkdir -p '" + deep + "'").c_str()), 0);
  write(deep.substr(dir_.size() + 1) + "/x.json", "{}");
  const ResultFiles deep_found = collect_result_files({at("deep")});
  EXPECT_TRUE(deep_found.files.empty());
  ASSERT_EQ(deep_found.unreadable.size(), 1u);
  EXPECT_TRUE(contains(deep_found.unreadable[0].second, "deeper than 8"));
}

TEST_F(BoundedInput, HostListsAreStrictAndLinear) {
  EXPECT_EQ(load_host_list(write("h", "\xEF\xBB\xBFnode1\r\n  node2 # two\n\n#x\nnode3")),
            (std::vector<std::string>{"node1", "node2", "node3"}));
  for (const std::string bad : {std::string(""), std::string("# only\n \n"), std::string(256, 'h'),
                                std::string("a\x1b[2Jb\n"), std::string("a\0b\n", 4)}) {
    const std::string e = message_thrown([&] { load_host_list(write("h", bad)); });
    EXPECT_TRUE(contains(e, at("h"))) << e;
  }
  // Two names on a line were read as one host no run names (an audit).
  EXPECT_TRUE(contains(message_thrown([&] { load_host_list(write("h", "node1\nn0 n1\n")); }),
                       "line 2: 'n0 n1' holds a space or comma; one host name per line"));
  EXPECT_TRUE(contains(message_thrown([&] { load_host_list(write("h", "n0,n1\n")); }),
                       "holds a space or comma"));
  std::string many;  // at their limit (input_limits.h; past it: InputLimits.HostListsStopAt...)
  for (std::size_t i = 0; i < kMaxHosts; ++i) many += "node" + std::to_string(i) + "\n";
  EXPECT_EQ(load_host_list(write("h", many)).size(), kMaxHosts);
}

TEST_F(BoundedInput, OutputsThatAreInputsAreRefused) {
  const std::string in = write("run.json", "x");
  ::symlink(in.c_str(), at("link.json").c_str());
  ::link(in.c_str(), at("hard.json").c_str());
  for (const std::string out : {in, at("link.json"), at("hard.json"), dir_ + "/./run.json"}) {
    EXPECT_THROW(refuse_output_over_inputs(out, "-o", {at("other.json"), in}), UsageError) << out;
  }
  write("other.json", "y");
  EXPECT_NO_THROW(refuse_output_over_inputs(at("other.json"), "-o", {in}));
  EXPECT_NO_THROW(refuse_output_over_inputs(at("new.json"), "-o", {in}));
}

TEST_F(BoundedInput, LongOutputNamesFitTheirTemporaryNames) {
  for (std::size_t n : {247u, 248u, 250u, 255u}) {
    const std::string p = at(std::string(n, 'r'));
    write_file_atomically(p, "report\n");
    std::ifstream f(p);
    std::string line;
    EXPECT_TRUE(std::getline(f, line) && line == "report") << n;
    ::unlink(p.c_str());
  }
  EXPECT_THROW(write_file_atomically(at(std::string(256, 'r')), "x"), WriteError);
}

// One rule for one key: what fleet refuses, run and report refuse too.
TEST_F(BoundedInput, ExpectFileValuesHaveOneRuleEverywhere) {
  for (const char* bad :
       {R"({"fleet_outlier_tolerance": 2})", R"({"fleet_outlier_tolerance": -0.1})",
        R"({"fleet_outlier_tolerance": "0.1"})", R"({"fleet_outlier_tolerance": null})",
        R"({"judge_min_bytes": 0})", R"({"small_message_max_bytes": 0})",
        R"({"latency_us": {"nvlink": 0}})", R"({"max_latency_us": {"ce-latency": 0}})"}) {
    EXPECT_THROW(expectations_from_json(json::parse(bad), "e.json", method_catalog()), InputError)
        << bad;
  }
  EXPECT_EQ(fleet_outlier_tolerance(
                JsonIn(json::parse(R"({"fleet_outlier_tolerance": 0.05})"), "e.json")),
            0.05);
  EXPECT_FALSE(fleet_outlier_tolerance(JsonIn(json::parse("{}"), "e.json")));
}

}  // namespace
}  // namespace peerbench
