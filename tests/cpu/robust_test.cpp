// Inputs a hostile or careless user gives (issue 12): bounded work, safe writes, strict reading,
// terminal-safe output. Each case failed once; these keep it from coming back.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <functional>
#include <sstream>

#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/judge/verdict.h"
#include "core/model/json_in.h"
#include "core/model/method_catalog.h"
#include "core/model/results_file.h"
#include "core/model/schema.h"
#include "core/model/sizes.h"
#include "core/plan/plan.h"
#include "core/platform/atomic_file.h"
#include "core/present/plan_text.h"
#include "core/present/report.h"
#include "test_fixtures.h"
#include "test_time.h"

namespace peerbench {
namespace {

using test::file_text;

// The folder pb_`name`_<pid> under gtest's temporary folder, made when missing.
std::string pid_temp_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/pb_" + name + "_" + std::to_string(::getpid());
  ::mkdir(dir.c_str(), 0755);
  return dir;
}

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (n != "." && n != "..") names.push_back(n);
    }
    ::closedir(d);
  }
  return names;
}

// ---- 1. Bounded work

TEST(Robust, SweepSizesAreCountedNotBuilt) {
  for (const SweepSpec s : {SweepSpec{1 << 20, 1 << 30, 4, 0}, SweepSpec{8, 100, 2, 0},
                            SweepSpec{8, 8, 2, 0}, SweepSpec{10, 35, 4, 10},
                            SweepSpec{1ull << 62, ~0ull, 1 << 20, 0}, SweepSpec{1, 1024, 0, 1}}) {
    EXPECT_EQ(count_sweep_sizes(s), make_sweep(s).size()) << s.min_bytes << ".." << s.max_bytes;
  }
  EXPECT_EQ(count_sweep_sizes({1, 1ull << 40, 2, 0}), 41u);
}

PlanInput cluster(int nodes, int gpus_per_node, Schedule s) {
  PlanInput in;
  in.world_size = nodes * gpus_per_node;
  for (int r = 0; r < in.world_size; ++r) {
    in.host_of_rank.push_back("node" + std::to_string(r / gpus_per_node));
  }
  in.methods = method_catalog();
  in.schedule = s;
  in.sizes = make_sweep({1 << 20, 1 << 30, 4, 0});
  return in;
}

TEST(Robust, PlanOfThousandRanksIsSummarizedInBoundedTime) {
  for (const auto s : {Schedule::kSerial, Schedule::kRounds}) {
    const auto in = cluster(128, 8, s);
    const test::CpuStopwatch cpu;
    std::ostringstream out;
    write_plan(out, in, false);
    EXPECT_LT(cpu.seconds(), test::time_bound(30.0)) << "(2 s in a release build)";
    // 6 one-way methods x n(n-1) pairs and 3 bidirectional x n(n-1)/2 at 6 sizes, the two
    // latency methods at one size, the 4 host<->GPU methods x n GPUs and the 7 collectives over
    // all ranks at 6.
    const std::int64_t n = 1024, ordered = n * (n - 1);
    const std::int64_t expect =
        6 * 6 * ordered + 3 * 6 * ordered / 2 + 2 * ordered + 4 * 6 * n + 7 * 6;
    EXPECT_NE(out.str().find(std::to_string(expect) + " cases"), std::string::npos)
        << out.str().substr(0, 200);
    EXPECT_LT(out.str().size(), 200000u) << "rows per method are capped without -v";
  }
}

TEST(Robust, PlanColumnsStayAlignedAtLargeRankCounts) {
  const auto in = cluster(128, 8, Schedule::kSerial);
  std::ostringstream out;
  write_plan(out, in, false);
  std::istringstream lines(out.str());
  std::string line;
  std::size_t sizes_at = std::string::npos;
  int rows = 0;
  while (std::getline(lines, line)) {
    const auto at = line.find(" 1M..1G (6)");
    if (line.rfind("  ", 0) != 0 || at == std::string::npos) continue;
    if (sizes_at == std::string::npos) sizes_at = at;
    EXPECT_EQ(at, sizes_at) << line;
    ++rows;
  }
  EXPECT_GT(rows, 100);
  const auto summary = out.str().find("more steps");
  EXPECT_NE(summary, std::string::npos);
}

TEST(Robust, StreamedPlanEqualsTheMaterializedOne) {
  for (const auto s : {Schedule::kSerial, Schedule::kRounds}) {
    auto in = cluster(2, 3, s);
    for (const auto verbose : {false, true}) {
      std::ostringstream streamed;
      write_plan(streamed, in, verbose);
      EXPECT_EQ(streamed.str(), format_plan(make_plan(in), in, verbose));
    }
    const Plan full = make_plan(in);
    const Plan sum = summarize_plan(in);
    EXPECT_EQ(sum.cases, full.cases);
    EXPECT_EQ(sum.step_count, static_cast<std::int64_t>(full.steps.size()));
    EXPECT_DOUBLE_EQ(sum.estimate_s, full.estimate_s);
    EXPECT_TRUE(sum.steps.empty());
  }
}

// ---- 3. Safe writes

TEST(Robust, WritesRefuseSymlinksDevicesFifosAndFolders) {
  const std::string dir = pid_temp_dir("safe");
  const std::string real = dir + "/real.txt";
  write_file_atomically(real, "keep me");
  const std::string link = dir + "/link.txt";
  ASSERT_EQ(::symlink(real.c_str(), link.c_str()), 0);
  const std::string fifo = dir + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& target : {link, fifo, std::string("/dev/null"), dir}) {
    try {
      write_file_atomically(target, "replaced");
      ADD_FAILURE() << "wrote " << target;
    } catch (const WriteError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("cannot write " + target + ": ", 0), 0u) << e.what();
    }
    EXPECT_NE(check_writable(target, true), "") << target;
  }
  struct stat st {};
  ASSERT_EQ(::lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(file_text(real), "keep me");
  for (const auto& n : {"link.txt", "fifo", "real.txt"}) ::unlink((dir + "/" + n).c_str());
  EXPECT_TRUE(entries(dir).empty()) << "no temporary file left behind";
  ::rmdir(dir.c_str());
}

TEST(Robust, WritesKeepTheModeAndIgnorePlantedTemporaryNames) {
  const std::string dir = pid_temp_dir("mode");
  const std::string path = dir + "/r.json";
  write_file_atomically(path, "one");
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  // Symlinks planted at the old predictable temporary names must not redirect the write.
  const std::string victim = dir + "/victim";
  write_file_atomically(victim, "victim");
  for (int pid = ::getpid(); pid < ::getpid() + 3; ++pid) {
    ::symlink(victim.c_str(), (path + ".tmp." + std::to_string(pid)).c_str());
  }
  write_file_atomically(path, "two");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(file_text(path), "two");
  EXPECT_EQ(file_text(victim), "victim");
  for (const auto& n : entries(dir)) ::unlink((dir + "/" + n).c_str());
  ::rmdir(dir.c_str());
}

TEST(Robust, WriteErrorsNameTheUsersPathNotATemporaryOne) {
  const std::string dir = pid_temp_dir("err");
  const std::string path = dir + "/missing/out.md";
  try {
    write_file_atomically(path, "x");
    ADD_FAILURE();
  } catch (const WriteError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("cannot write " + path + ": ", 0), 0u) << m;
    EXPECT_EQ(m.find(".out.md."), std::string::npos) << m;
  }
  ::rmdir(dir.c_str());
}

TEST(Robust, CheckingAPathLeavesNoFoldersAndTheFirstWriteMakesThem) {
  const std::string dir = pid_temp_dir("dirs");
  const std::string path = dir + "/a/b/r.json";
  EXPECT_EQ(check_writable(path, true), "");
  EXPECT_TRUE(entries(dir).empty()) << "a run that fails before writing leaves no folders";
  std::ostringstream warn;
  ResultsFile f(path, &warn);
  RunDocument d;
  d.schema_version = kSchemaVersion;
  d.status = "incomplete";
  EXPECT_TRUE(f.write(d)) << warn.str();
  EXPECT_EQ(load_json_file(path)["status"], "incomplete");
  ::unlink(path.c_str());
  ::rmdir((dir + "/a/b").c_str());
  ::rmdir((dir + "/a").c_str());
  ::rmdir(dir.c_str());
}

// ---- 5. Files that are not files

TEST(Robust, AFolderGivenAsAFileSaysSo) {
  try {
    load_json_file("/tmp");
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("is a folder"), std::string::npos) << e.what();
  }
}

// ---- 8. Terminal control codes

TEST(Robust, SanitizeEscapesControlsAndKeepsText) {
  EXPECT_EQ(sanitize_for_terminal("H200\x1b[2J"), "H200\\x1b[2J");
  EXPECT_EQ(sanitize_for_terminal("a\nb\rc\td\x7f"), "a\\x0ab\\x0dc\\x09d\\x7f");
  EXPECT_EQ(sanitize_for_terminal("Gr\xc3\xbc\xc3\x9f\x65 \xe2\x9c\x93"),
            "Gr\xc3\xbc\xc3\x9f\x65 \xe2\x9c\x93");
  EXPECT_EQ(sanitize_for_terminal("\xc2\x9b"
                                  "2J"),
            "\\xc2\\x9b2J");                                   // C1 CSI in UTF-8
  EXPECT_EQ(sanitize_for_terminal("\x9b"), "\\x9b");           // a lone C1 byte
  EXPECT_EQ(sanitize_for_terminal("\xc0\x80"), "\\xc0\\x80");  // overlong
  EXPECT_EQ(sanitize_for_terminal("\xe2\x9c"), "\\xe2\\x9c");  // truncated
  EXPECT_EQ(sanitize_lines_for_terminal("one\x1b]0;x\x07\ntwo\n"), "one\\x1b]0;x\\x07\ntwo\n");
}

// An audit: U+202E (right-to-left override) and U+2028 (line separator) in -m reached the
// terminal raw, and a 100 KB -b value came back as a 100 KB error line.
TEST(Robust, ErrorLinesEscapeReorderingCharactersAndCutLongWords) {
  EXPECT_EQ(sanitize_for_terminal("x\u202ey"), "x\\xe2\\x80\\xaey");
  EXPECT_EQ(sanitize_for_terminal("x\u2028y\u2066z\u200f"),
            "x\\xe2\\x80\\xa8y\\xe2\\x81\\xa6z\\xe2\\x80\\x8f");
  EXPECT_EQ(sanitize_for_terminal("\u2192 \u00fc"), "\u2192 \u00fc") << "other text passes";
  const std::string e = error_line("-b/--minbytes: '" + std::string(100000, 'x') +
                                   "' is not a size; use a number with K/M/G");
  EXPECT_LT(e.size(), 400u) << e;
  EXPECT_EQ(e.rfind("-b/--minbytes: '" + std::string(199, 'x') + "[... 99742 bytes ...]" +
                        std::string(59, 'x') + "' is not a size",
                    0),
            0u)
      << e;
  EXPECT_NE(e.find("use a number with K/M/G"), std::string::npos) << "the rule is kept";
  EXPECT_EQ(error_line("short words stay"), "short words stay");
  // A long CI path is named whole (a review: 160 bytes cut them, and their ':').
  const std::string path = "/builds/group/project/" + std::string(400, 'p') + "/run.json:";
  EXPECT_EQ(error_line(path + " no such file"), path + " no such file");
  // Cut on a character's boundary ('ü' is two bytes) and never inside an escape.
  const std::string u = error_line(std::string(199, 'a') + "\u00fc" + std::string(2000, 'b'));
  EXPECT_EQ(u.rfind(std::string(199, 'a') + "[... ", 0), 0u) << u.substr(0, 230);
  const std::string esc = error_line(std::string(198, 'a') + "\x1b" + std::string(2000, 'b'));
  EXPECT_EQ(esc.rfind(std::string(198, 'a') + "[... ", 0), 0u) << esc.substr(0, 230);
}

// ---- 6. Results files that no run could have written

// The real run of two ranks on one H200 (tests/fixtures/runs/h200x1-shared-serial.json).
nlohmann::json shared_serial_json() {
  return load_json_file(test::run_fixture_path("h200x1-shared-serial.json"));
}

// Error of load_run_file on `j` written to a file, or "" when it loads.
std::string written_run_error(const nlohmann::json& j, const std::string& raw = "") {
  const std::string path = ::testing::TempDir() + "/pb_bad_" + std::to_string(::getpid()) + ".json";
  write_file_atomically(path, raw.empty() ? j.dump() : raw);
  std::string e;
  try {
    load_run_file(path);
  } catch (const InputError& x) {
    e = x.what();
  }
  ::unlink(path.c_str());
  return e;
}

TEST(Robust, RealRunsLoad) {
  EXPECT_EQ(written_run_error(shared_serial_json()), "");
}

TEST(Robust, ValuesNoMeasurementMakesAreRefusedNamingTheField) {
  struct Case {
    std::function<void(nlohmann::json&)> edit;
    std::string field;
  };
  const auto ok_result = [](nlohmann::json& j) -> nlohmann::json& {
    for (auto& r : j["results"]) {
      if (r["status"] == "ok") return r;
    }
    throw std::runtime_error("no ok result in the fixture");
  };
  const std::vector<Case> cases = {
      {[&](auto& j) { ok_result(j)["time_us"]["min"] = 0; }, "time_us.min"},
      {[&](auto& j) { ok_result(j)["time_us"]["min"] = -5; }, "time_us.min"},
      {[&](auto& j) {
         auto& r = ok_result(j);
         r["time_us"]["max"] = 1e300;
       },
       "time_us.max"},
      {[&](auto& j) {
         auto& r = ok_result(j);
         r["algbw_gbps"] = {{"min", 0}, {"median", 0}, {"max", 0}};
       },
       "algbw_gbps.min"},
      {[&](auto& j) {
         auto& r = ok_result(j);
         r["algbw_gbps"] = {{"min", 1e299}, {"median", 1e299}, {"max", 1e300}};
       },
       "algbw_gbps.min"},
      {[&](auto& j) { ok_result(j)["bytes"] = 0; }, "bytes"},
      {[&](auto& j) { ok_result(j)["bytes"] = 1.5; }, "bytes"},
      {[&](auto& j) {
         ok_result(j)["sample_time_us"] = {1.0, 0.0};
       },
       "sample_time_us[1]"},
      {[&](auto& j) { j["in_progress"] = 5; }, "in_progress"},
      {[&](auto& j) {
         j["in_progress"] = {{"method", 3}};
       },
       "in_progress.method"},
      {[&](auto& j) { ok_result(j)["src"] = 7; }, "src"},
      {[&](auto& j) {
         auto& r = ok_result(j);
         r["dst"] = r["src"];
       },
       "dst"},
      {[&](auto& j) { j["system"]["ranks"] = nlohmann::json::array(); }, "system.ranks"},
      {[&](auto& j) { j["methods"] = nlohmann::json::array(); }, "methods"},
      {[&](auto& j) { j["system"]["ranks"][1]["rank"] = 0; }, "system.ranks[1].rank"},
      {[&](auto& j) { j["pairs"][0]["dst"] = j["pairs"][0]["src"]; }, "pairs[0].dst"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    auto j = shared_serial_json();
    cases[i].edit(j);
    const std::string e = written_run_error(j);
    EXPECT_NE(e.find("pb_bad_"), std::string::npos) << "case " << i << ": " << e;
    EXPECT_NE(e.find(cases[i].field + "'"), std::string::npos) << "case " << i << ": " << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
}

TEST(Robust, DuplicateKeysAreRefusedNamingTheField) {
  const std::string text = shared_serial_json().dump();
  // A second schema_version would win silently in nlohmann's reader.
  const std::string dup = "{\"schema_version\": 99, " + text.substr(1);
  const std::string e = written_run_error({}, dup);
  EXPECT_NE(e.find("field 'schema_version'"), std::string::npos) << e;
  EXPECT_NE(e.find("duplicate key"), std::string::npos) << e;
  try {
    parse_json_text(R"({"a": [1, {"b": 1, "c": {"d": 1}, "c": 2}]})", "x.json");
    ADD_FAILURE();
  } catch (const InputError& x) {
    EXPECT_NE(std::string(x.what()).find("field 'a[1].c'"), std::string::npos) << x.what();
  }
  EXPECT_NO_THROW(
      parse_json_text(R"({"a": {"k": 1}, "b": {"k": 1}, "c": [{"k": 1}, {"k": 2}]})", "x.json"));
}

TEST(Robust, ReportsEscapeControlCodesFromTheFile) {
  auto j = shared_serial_json();
  j["system"]["ranks"][0]["gpu"]["name"] = "NVIDIA H200\x1b[2J\x1b]0;pwned\x07";
  j["tool"]["version"] = "0.4\xc2\x9b";  // C1 CSI
  const std::string path = ::testing::TempDir() + "/pb_esc_" + std::to_string(::getpid()) + ".json";
  write_file_atomically(path, j.dump());
  const RunDocument d = load_run_file(path);
  ::unlink(path.c_str());
  ReportInput in;
  in.path = "run\x1b[31m.json";
  in.doc = &d;
  in.verdicts = compute_verdicts(d, {});
  for (const auto f : {ReportFormat::kText, ReportFormat::kMarkdown}) {
    const std::string out = make_reporter(f)->render({in}, {});
    EXPECT_EQ(out.find('\x1b'), std::string::npos) << to_string(f);
    EXPECT_EQ(out.find('\x07'), std::string::npos) << to_string(f);
    EXPECT_NE(out.find("\\x1b"), std::string::npos) << to_string(f);  // visible, not acted on
  }
}

}  // namespace
}  // namespace peerbench

// ---- Text that is not UTF-8 (found by fuzz_options in CI: `--expect $'s\xd9-'`). nlohmann's
// writer throws on such strings, so a path, host name or process name in another encoding lost
// the whole results file at the end of a run. They are written with U+FFFD for the bad bytes.
#include "core/cli/command_line.h"
#include "core/model/json_text.h"
#include "core/plan/run_options.h"
#include "test_docs.h"

namespace peerbench {
namespace {

TEST(Robust, TextThatIsNotUtf8IsWrittenNotThrown) {
  const char* argv[] = {"peerbench", "run", "--expect", "s\xd9-"};
  const CommandLine cl = parse_command_line(4, argv, method_catalog());
  ASSERT_EQ(cl.command, Command::kRun);
  RunDocument d = test::clean_h200_pair();
  d.config = run_options_to_json(cl.run);
  const std::string host = std::string("n\xff") + "de";
  for (auto& r : d.system.ranks) r.host = host;
  d.system.hosts = {host};
  if (d.topology) {
    for (auto& h : d.topology->hosts) h.host = host;
  }
  GpuInterference g;
  g.rank = 0;
  g.gpu_index = 0;
  g.host = "node0";
  g.pci_bus_id = "0000:01:00.0";
  g.processes.push_back({99,
                         "tr\xc3"
                         "ain",
                         0, 0});
  for (auto& r : d.results) r.interference = std::vector<GpuInterference>{g};
  EXPECT_THROW((void)to_json(d).dump(), nlohmann::json::type_error) << "what the writer did";
  const std::string path =
      ::testing::TempDir() + "/pb-not-utf8-" + std::to_string(::getpid()) + ".json";
  std::ostringstream warn;
  ResultsFile f(path, &warn);
  ASSERT_TRUE(f.write(d)) << warn.str();
  const RunDocument back = load_run_file(path);
  EXPECT_EQ(back.config["expect"], "s\xef\xbf\xbd-");
  EXPECT_EQ(back.system.hosts[0], back.system.ranks[1].host);
  EXPECT_EQ(back.system.ranks[1].host,
            "n\xef\xbf\xbd"
            "de");
  EXPECT_EQ(back.results[0].interference->at(0).processes[0].name,
            "tr\xef\xbf\xbd"
            "ain");
  // Reports of such a run render (the evidence is JSON text too).
  ReportInput in;
  in.path = path;
  in.doc = &d;
  in.verdicts = compute_verdicts(d, {});
  for (auto fmt : {ReportFormat::kText, ReportFormat::kMarkdown, ReportFormat::kHtml})
    EXPECT_FALSE(make_reporter(fmt)->render({in}, {}).empty());
  std::remove(path.c_str());
}

}  // namespace
}  // namespace peerbench
