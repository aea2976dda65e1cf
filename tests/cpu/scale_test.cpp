// Reports must grow with the number of results, not its square (issue 12): 100k results report
// in under 3 s, in memory under 5x the file's size. The ratio test catches a quadratic scan on
// any machine; the absolute bound holds where no sanitizer slows the code down. Times are the
// process's CPU time: build machines are shared, and wall time there measures the neighbours.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>

#include "core/judge/burn_in.h"
#include "core/judge/verdict.h"
#include "core/model/json_in.h"
#include "core/model/schema.h"
#include "core/present/report.h"
#include "test_docs.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PEERBENCH_SLOW_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define PEERBENCH_SLOW_BUILD 1
#endif
#endif

namespace peerbench {
namespace {

// A node of `gpus` GPUs with ce-write, sm-write and nccl-sendrecv at `sizes` sizes per pair.
std::string big_run(int gpus, int sizes) {
  test::NodeSpec spec;
  spec.gpus = gpus;
  auto d = test::make_doc(spec);
  for (int a = 0; a < gpus; ++a) {
    for (int b = 0; b < gpus; ++b) {
      if (a == b) continue;
      for (const char* m : {"ce-write", "sm-write", "nccl-sendrecv"}) {
        for (int s = 0; s < sizes; ++s) {
          d.results.push_back(test::bw_result(m, a, b, (1ull << 20) << s, 300 + s));
        }
      }
    }
  }
  return to_json(d).dump();
}

// The file `report` would be given: `text` written to a temporary path.
std::string written_run_path(const std::string& text, const std::string& name) {
  // The process id in the name: two test processes at once (a CI run beside a local one) removed
  // each other's file ("scale-small.json: results file does not exist").
  const std::string path = ::testing::TempDir() + "/" + std::to_string(::getpid()) + "-" + name;
  std::ofstream(path) << text;
  return path;
}

// Load, judge and render in `formats`: what `report` does with a file (one format a call),
// through the same streamed reader. CPU seconds.
double report_seconds(const std::string& path, std::size_t file_bytes,
                      std::vector<ReportFormat> formats = {
                          ReportFormat::kText, ReportFormat::kMarkdown, ReportFormat::kHtml,
                          ReportFormat::kCsv}) {
  const std::clock_t t0 = std::clock();
  const RunDocument d = load_run_file(path);
  ReportInput in;
  in.path = path;
  in.doc = &d;
  in.verdicts = compute_verdicts(d, {});
  std::size_t out = 0;
  for (auto f : formats) out += make_reporter(f)->render({in}, {}).size();
  EXPECT_GT(out, file_bytes / (40 * (5 - formats.size())));
  return static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC;
}

// In a sanitizer build the reports are rendered once at a small size, for AddressSanitizer to
// watch, and the time bounds are left to the plain build of the same tests: at 5-30 times the
// plain time the large runs took 5 of CI's 15 minutes and bounded nothing. True there.
bool rendered_once_for_the_sanitizer() {
#ifdef PEERBENCH_SLOW_BUILD
  const std::string small = big_run(8, 4);  // 56 pairs x 3 x 4 = 672 results
  const std::string path = written_run_path(small, "scale-sanitized.json");
  report_seconds(path, small.size());
  std::remove(path.c_str());
  return true;
#else
  return false;
#endif
}

TEST(Scale, ReportTimeGrowsLinearlyWithResults) {
  if (rendered_once_for_the_sanitizer())
    GTEST_SKIP() << "sanitizer build: 672 results rendered once; the plain build holds the bound";
  const std::string small = big_run(16, 7);  // 240 pairs x 3 methods x 7 sizes = 5,040
  const std::string large = big_run(36, 9);  // 1260 pairs x 3 x 9 = 34,020
  const std::string small_path = written_run_path(small, "scale-small.json");
  const std::string large_path = written_run_path(large, "scale-large.json");
  // Best of 3 each: one CI run read 0.12 s and 1.87 s (15.5x), with the other suite's build
  // beside it on two cores; a single short timing is at the mercy of the machine.
  double ts = 1e9, tl = 1e9;
  for (int k = 0; k < 3; ++k) {
    ts = std::min(ts, report_seconds(small_path, small.size()));
    tl = std::min(tl, report_seconds(large_path, large.size()));
  }
  std::printf("report: 5,040 results %.3f s, 34,020 %.3f s (%.1fx)\n", ts, tl, tl / ts);
  std::remove(small_path.c_str());  // 24 MB that would stay in /tmp
  std::remove(large_path.c_str());
  // 6.75x the results: linear ~6.75x, quadratic ~45x.
  EXPECT_LT(tl / ts, 15.0) << "small " << ts << " s, large " << tl << " s";
}

// A burn-in's series, as `report` reads, judges and shows them (text). CPU seconds, best of 3.
double burn_in_report_seconds(int series) {
  RunDocument d = test::clean_h200_pair();
  BurnIn b;
  b.cycles_done = 4;
  for (int c = 1; c <= 4; ++c) b.cycles.push_back({c, 10.0 * c, 10.0, 0, 0, {}});
  for (int i = 0; i < series; ++i) {
    BurnInSeries s;
    s.method = "ce-write";
    s.src = i % 2;
    s.dst = 1 - i % 2;
    s.bytes = (1ull << 20) + static_cast<std::uint64_t>(i);
    s.values = {396.0, 395.0, 397.0, 396.0};
    b.series.push_back(std::move(s));
  }
  d.burn_in = std::move(b);
  double best = 1e9;
  for (int k = 0; k < 3; ++k) {
    const std::clock_t t0 = std::clock();
    ReportInput in;
    in.path = "burn.json";
    in.doc = &d;
    in.verdicts = compute_verdicts(d, {});
    EXPECT_GT(make_reporter(ReportFormat::kText)->render({in}, {}).size(),
              static_cast<std::size_t>(series) * 40);
    best = std::min(best, static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC);
  }
  return best;
}

// Each series is looked at once (an audit's 100,000-series file took 44 s: every row searched
// every series).
TEST(Scale, BurnInReportTimeGrowsLinearlyWithSeries) {
  const double small = burn_in_report_seconds(5000);
  const double large = burn_in_report_seconds(20000);
  // 4x the series: linear ~4x, quadratic ~16x.
  std::printf("burn-in report: 5,000 series %.4f s, 20,000 %.4f s\n", small, large);
  EXPECT_LT(large / small, 9.0) << "5,000 series " << small << " s, 20,000 " << large << " s";
}

// A burn-in cycle of `cases` results folded into the series, as every rank does after each
// cycle. CPU seconds for 3 cycles, best of 3.
double burn_in_record_seconds(int cases) {
  const auto catalog = method_catalog();
  const MethodInfo* m = find_method(catalog, "ce-write");
  std::vector<Result> cycle;
  for (int i = 0; i < cases; ++i)
    cycle.push_back(test::bw_result("ce-write", i % 2, 1 - i % 2, (1ull << 20) + i, 396.0));
  double best = 1e9;
  for (int k = 0; k < 3; ++k) {
    BurnIn b;
    BurnInRecorder rec;
    const std::clock_t t0 = std::clock();
    for (int c = 1; c <= 3; ++c) {
      for (const auto& r : cycle) rec.record(b, c, r, m);
    }
    best = std::min(best, static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC);
    EXPECT_EQ(b.series.size(), static_cast<std::size_t>(cases));
    EXPECT_EQ(b.series.back().values.size(), 3u);
  }
  return best;
}

// A case finds its series through an index: each result searched every series before, so a
// cycle of n cases cost n^2 (an 8-GPU plan of all methods and sizes has thousands).
TEST(Scale, BurnInRecordingGrowsLinearlyWithCases) {
  const double small = burn_in_record_seconds(5000);
  const double large = burn_in_record_seconds(20000);
  std::printf("burn-in record: 5,000 cases %.4f s, 20,000 %.4f s\n", small, large);
  // 4x the cases: n log n ~4.6x, quadratic ~16x.
  EXPECT_LT(large / small, 9.0) << "5,000 cases " << small << " s, 20,000 " << large << " s";
}

TEST(Scale, HundredThousandResultsReportInThreeSeconds) {
  if (rendered_once_for_the_sanitizer())
    GTEST_SKIP() << "sanitizer build: 672 results rendered once; the plain build holds the bound";
  const std::string text = big_run(58, 10);  // 3306 pairs x 3 x 10 = 99,180 results
  const std::string path = written_run_path(text, "scale-100k.json");
  // `peerbench report FILE` as a user runs it: load, judge, one text report. The fastest of three
  // runs: a shared build machine only ever adds time.
  double t = 1e9;
  for (int i = 0; i < 3; ++i)
    t = std::min(t, report_seconds(path, text.size(), {ReportFormat::kText}));
  // The same machine's pace, from parsing the file's JSON alone: the 2-core build machine's CPU
  // ran this at 0.8 s at its best and 1.5 s at its slowest in one hour, so 3 s holds at the best
  // pace and scales with a slower one (what the report adds to parsing is what is bounded).
  // Measured here `report` took 2.4-2.5 s where parsing took 0.92-0.95 s (a text report builds
  // neither the CSV table of every result nor the HTML charts: with them it took 2.9-3.0 s).
  auto parse_seconds = [&] {
    const std::clock_t t0 = std::clock();
    const auto parsed = nlohmann::json::parse(text);
    static_cast<void>(parsed);
    return static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC;
  };
  const double parse = std::min(parse_seconds(), parse_seconds());
  const double pace = std::max(1.0, parse / 0.9);
  std::remove(path.c_str());
  std::printf("report: 99,180 results %.2f s; parsing the file's JSON %.2f s\n", t, parse);
  EXPECT_LT(t, 3.0 * pace) << text.size() / 1e6 << " MB file; this machine parses JSON at " << pace
                           << "x the reference time";
}

long status_kib(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) return std::atol(line.c_str() + std::strlen(key));
  }
  return -1;
}

TEST(Scale, MemoryStaysUnderFiveTimesTheFile) {
#ifdef PEERBENCH_SLOW_BUILD
  // AddressSanitizer keeps freed memory in its quarantine (256 MB) instead of reusing it, so the
  // peak RSS there counts every temporary string ever made; CI's plain build holds the bound.
  GTEST_SKIP() << "sanitizer build: its quarantine holds freed memory (the bound is for plain "
                  "builds)";
#endif
  const std::string path =
      ::testing::TempDir() + "/peerbench-big-" + std::to_string(::getpid()) + ".json";
  std::size_t file_bytes = 0;
  {
    const std::string text = big_run(40, 10);  // 46,800 results
    std::ofstream(path) << text;
    file_bytes = text.size();
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    // Child: reset the peak, then load, judge and render as `report` does.
    std::ofstream("/proc/self/clear_refs") << "5";
    const long base = status_kib("VmRSS:");
    if (base < 0 || status_kib("VmHWM:") > base + 1024) _exit(77);  // peak not resettable
    const RunDocument d = load_run_file(path);
    ReportInput in;
    in.path = path;
    in.doc = &d;
    in.verdicts = compute_verdicts(d, {});
    const auto text = make_reporter(ReportFormat::kHtml)->render({in}, {});
    const double used = (status_kib("VmHWM:") - base) * 1024.0;
    _exit(used < 5.0 * static_cast<double>(file_bytes) ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  std::remove(path.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) GTEST_SKIP() << "this kernel cannot reset the peak RSS";
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "peak memory over 5x the file's " << file_bytes / 1e6 << " MB";
}

}  // namespace
}  // namespace peerbench
