// Fleet acceptance and history on nodes derived from the real 2 x H200 run
// (tests/fixtures/runs/h200x2/default.json): renamed hosts, some slowed, cut short, unreadable,
// missing, or on another driver.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/base/errors.h"
#include "core/cli/command_line.h"
#include "core/fleet/fleet.h"
#include "core/fleet/fleet_baseline.h"
#include "core/fleet/fleet_report.h"
#include "core/judge/verdict.h"
#include "core/model/schema.h"
#include "core/platform/atomic_file.h"
#include "core/present/compare.h"
#include "core/present/history.h"
#include "fleet_nodes.h"
#include "test_command_line.h"
#include "test_docs.h"
#include "test_fixtures.h"

namespace peerbench {
namespace {

using test::as_node;
using test::command_line_of;
using test::h200x2_default_run;
using test::run_fixture_path;
using test::write_run;

// Removes the test's folders when the test process ends (ctest runs each test in its own).
struct TempDirs {
  std::vector<std::string> made;
  ~TempDirs() {
    std::error_code ec;
    for (const auto& d : made) std::filesystem::remove_all(d, ec);
  }
};

// A new folder of its own, removed when the test process ends.
std::string fresh_temp_dir() {
  static TempDirs dirs;
  std::string t = ::testing::TempDir() + "/pb_fleet_XXXXXX";
  if (!::mkdtemp(t.data())) throw std::runtime_error("mkdtemp");
  dirs.made.push_back(t);
  return t;
}

void scale(std::optional<Stats>& s, double f) {
  if (!s) return;
  s->min *= f;
  s->median *= f;
  s->max *= f;
  s->mean *= f;
}

// `method` from rank 0 (or over all ranks) delivers `f` of what it did.
void slow(RunDocument& d, const std::string& method, double f) {
  for (auto& r : d.results) {
    if (r.method != method || r.status != ResultStatus::kOk || r.src > 0) continue;
    scale(r.algbw_gbps, f);
    scale(r.busbw_gbps, f);
    scale(r.time_us, 1 / f);
  }
}

// A fleet of `count` healthy nodes, copies of `d` named n0, n1, ..., in a new folder.
std::string healthy_fleet(const RunDocument& d, int count) {
  const std::string dir = fresh_temp_dir();
  for (int i = 0; i < count; ++i)
    write_run(dir, "n" + std::to_string(i), as_node(d, "n" + std::to_string(i)));
  return dir;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

const FleetNode& node(const FleetReport& r, const std::string& host) {
  for (const auto& n : r.nodes) {
    if (n.host == host) return n;
  }
  throw std::runtime_error("no node " + host);
}

bool has_flag(const FleetNode& n, const std::string& code, const std::string& method) {
  for (const auto& p : n.pairs) {
    for (const auto& f : p.flags) {
      if (f.code == code && f.method == method) return true;
    }
  }
  return false;
}

// What rank 0's GPU of `host` saw beside `method`'s cases from rank 0: `g` with its place.
void seen_beside(RunDocument& d, const std::string& method, GpuInterference g) {
  g.rank = 0;
  g.host = d.system.hosts.front();
  g.gpu_index = 0;
  for (auto& r : d.results) {
    if (r.method == method && r.src == 0) r.interference->push_back(g);
  }
}

// A copy loop (pid 4242) on rank 0's GPU while `method` ran from rank 0 at `bytes`.
void copy_loop_beside(RunDocument& d, const std::string& method, std::uint64_t bytes) {
  GpuInterference g;
  g.rank = 0;
  g.host = d.system.hosts.front();
  g.gpu_index = 0;
  g.processes.push_back({4242, "copyloop", 2568ull << 20, 99});
  for (auto& r : d.results)
    if (r.method == method && r.src == 0 && r.bytes == bytes) r.interference->push_back(g);
}

FleetReport fleet_of(const std::string& path) {
  FleetOptions o;
  o.paths = {path};
  return build_fleet(o, method_catalog());
}

// The site baseline of the fleet in `dir`, written beside its runs as base.json.
std::string write_baseline(const std::string& dir, double tolerance) {
  const std::string path = dir + "/base.json";
  write_text(path, make_baseline(fleet_of(dir), tolerance, "now").dump(2));
  return path;
}

// Ten healthy nodes, one slowed, one cut short, one unreadable, one expected but absent.
struct DerivedFleet {
  std::string dir = fresh_temp_dir();
  FleetOptions options;
  DerivedFleet() {
    std::string hosts;
    for (int i = 0; i < 10; ++i) {
      const std::string host = "node" + std::to_string(i);
      RunDocument d = as_node(h200x2_default_run(), host);
      slow(d, "sm-write", 1 + 0.002 * i);  // a little spread, as real nodes have
      if (host == "node3") slow(d, "ce-write", 0.8);
      if (host == "node5") {
        d.results.resize(d.results.size() / 3);
        d.status = "incomplete";
        d.in_progress = {{"method", "ce-write"}};  // killed: the job never cleared it
      }
      write_run(dir, host, d);
      hosts += host + "\n";
    }
    write_text(dir + "/node8.json", "{\"schema_version\": 1, \"kind\": \"peerb");
    write_text(dir + "/hosts.txt", hosts + "# rack 2\nnode10\n");
    options.paths = {dir};
    options.hosts_file = dir + "/hosts.txt";
  }
};

TEST(Fleet, FindsTheSlowedTheCutTheUnreadableAndTheMissing) {
  DerivedFleet f;
  const FleetReport r = build_fleet(f.options, method_catalog());
  ASSERT_EQ(r.nodes.size(), 11u);
  EXPECT_EQ(fleet_exit_code(r), kExitFlagged);

  const auto& slowed = node(r, "node3");
  EXPECT_EQ(slowed.state, NodeState::kFlagged);
  EXPECT_TRUE(has_flag(slowed, "fleet-outlier", "ce-write"));
  EXPECT_FALSE(has_flag(slowed, "fleet-outlier", "ce-read"));
  EXPECT_NEAR(slowed.worst_ratio, 0.8, 0.01);
  EXPECT_EQ(r.nodes.front().host, "node3") << "worst first";

  EXPECT_EQ(node(r, "node5").state, NodeState::kIncomplete);
  const auto& unreadable = node(r, "node8");
  EXPECT_EQ(unreadable.state, NodeState::kIncomplete);
  ASSERT_FALSE(unreadable.problems.empty());
  EXPECT_NE(unreadable.problems.front().find("unreadable"), std::string::npos);
  EXPECT_EQ(node(r, "node10").state, NodeState::kMissing);
  EXPECT_EQ(node(r, "node0").state, NodeState::kPass);
  EXPECT_EQ(r.count(NodeState::kPass), 7);
}

// Files from before a fix wrote status "incomplete" over a burn-in a SIGINT ended between cycles
// 1 and 2: `report` passed them and `fleet` called the node incomplete. A job killed in its
// confirmation repeats left every case measured: `report` passed it too.
TEST(Fleet, AStatusAloneIsNoProblemAndAJobThatNeverEndedIs) {
  const std::string dir = healthy_fleet(h200x2_default_run(), 3);
  RunDocument old = as_node(h200x2_default_run(), "old");
  old.status = "incomplete";
  write_run(dir, "old", old);
  RunDocument killed = as_node(h200x2_default_run(), "killed");
  killed.status = "incomplete";
  killed.in_progress = {{"method", "confirmation repeats"}};
  write_run(dir, "killed", killed);
  const FleetReport r = fleet_of(dir);
  EXPECT_EQ(node(r, "old").state, NodeState::kPass);
  const auto& k = node(r, "killed");
  EXPECT_EQ(k.state, NodeState::kIncomplete);
  ASSERT_EQ(k.problems.size(), 1u);
  EXPECT_EQ(k.problems.front(),
            "the run has no end recorded: it stopped while running confirmation repeats (killed, "
            "or still running)");

  const auto old_verdicts = compute_verdicts(old, {});
  EXPECT_EQ(run_exit_code(old, old_verdicts, "all"), kExitOk);
  const auto verdicts = compute_verdicts(killed, {});
  EXPECT_EQ(run_exit_code(killed, verdicts, "all"), kExitFlagged);
  EXPECT_EQ(run_exit_code(killed, verdicts, "below-link"), kExitOk);
  EXPECT_EQ(run_headline(killed, verdicts).rfind("the run has no end recorded: it stopped ", 0), 0u)
      << run_headline(killed, verdicts);
}

// From an audit: with NCCL P2P off, send/recv at 64 MiB ran at 0.11 of known-good over SHM and
// read "not judged: largest size 64 MiB < 256 MiB" as if that were all, and JUnit passed it.
TEST(FleetReport, JunitSkipsAFigureNotJudgedAndSaysWhy) {
  const RunDocument off = load_run_file(run_fixture_path("h200x2/p2p-disabled.json"));
  const std::string dir = fresh_temp_dir();
  for (const char* h : {"n1", "n2", "n3"}) write_run(dir, h, as_node(off, h));
  const std::string xml = make_fleet_reporter(FleetFormat::kJunit)->render(fleet_of(dir), {});
  const std::string why =
      "not judged: largest size 64 MiB &lt; 256 MiB; its known-good figure is of NV18, and NCCL "
      "went through host memory (SHM) between these ranks: see the pair&#39;s transport flag";
  EXPECT_NE(xml.find("<testcase classname=\"peerbench.fleet.n1\" name=\"nccl-sendrecv 0000:00:06.0"
                     "-&gt;0000:00:07.0 [NV18]\""),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<skipped message=\"" + why + "\"/>"), std::string::npos) << xml;
  EXPECT_EQ(xml.find("skipped=\"0\""), std::string::npos) << "each suite counts its skips";
  // A host's own dots are no package levels: CI tools split a classname at its last dot.
  const std::string fqdn = fresh_temp_dir();
  for (const char* h : {"gpu1.rack7.example.com", "gpu2.rack7.example.com", "gpu3.rack7.x"})
    write_run(fqdn, h, as_node(off, h));
  const std::string named = make_fleet_reporter(FleetFormat::kJunit)->render(fleet_of(fqdn), {});
  EXPECT_NE(named.find("classname=\"peerbench.fleet.gpu1_rack7_example_com\""), std::string::npos);
  EXPECT_NE(named.find("<testsuite name=\"gpu1.rack7.example.com\""), std::string::npos);
}

TEST(Fleet, GroupMedianIsTheHealthyNodesFigure) {
  DerivedFleet f;
  const FleetReport r = build_fleet(f.options, method_catalog());
  const Result* ce = nullptr;
  for (const auto& x : h200x2_default_run().results) {
    if (x.method == "ce-write" && x.src == 0 && x.status == ResultStatus::kOk &&
        (!ce || x.bytes > ce->bytes))
      ce = &x;
  }
  ASSERT_NE(ce, nullptr);
  bool found = false;
  for (const auto& g : r.groups) {
    if (g.method != "ce-write") continue;
    found = true;
    EXPECT_EQ(g.link, "NV18");
    EXPECT_EQ(g.gpu_model, "NVIDIA H200");
    EXPECT_EQ(g.bytes, ce->bytes);
    EXPECT_TRUE(g.judged);
    EXPECT_LT(std::abs(g.median / ce->algbw_gbps->median - 1), 0.01);
  }
  EXPECT_TRUE(found);
}

TEST(Fleet, ToleranceComesFromTheExpectFile) {
  DerivedFleet f;
  write_text(f.dir + "/../fleet-expect-" + std::to_string(::getpid()),
             "{\"fleet_outlier_tolerance\": 0.25, \"asymmetry_tolerance\": 0.5}");
  f.options.expect_path = f.dir + "/../fleet-expect-" + std::to_string(::getpid());
  const FleetReport r = build_fleet(f.options, method_catalog());
  EXPECT_DOUBLE_EQ(r.outlier_tolerance, 0.25);
  EXPECT_FALSE(has_flag(node(r, "node3"), "fleet-outlier", "ce-write"));
  // At 0, a pair under the median by less than the ratio's last digit shown is no outlier (an
  // audit: identical nodes were flagged "1.000 of the fleet median").
  write_text(f.options.expect_path, "{\"fleet_outlier_tolerance\": 0}");
  FleetOptions same;
  same.paths = {healthy_fleet(h200x2_default_run(), 3)};
  same.expect_path = f.options.expect_path;
  RunDocument hair = as_node(h200x2_default_run(), "hair");
  slow(hair, "ce-write", 0.99995);
  write_run(same.paths[0], "hair", hair);
  RunDocument tenth = as_node(h200x2_default_run(), "tenth");
  slow(tenth, "ce-write", 0.999);
  write_run(same.paths[0], "tenth", tenth);
  const FleetReport strict = build_fleet(same, method_catalog());
  EXPECT_FALSE(has_flag(node(strict, "hair"), "fleet-outlier", "ce-write"));
  EXPECT_TRUE(has_flag(node(strict, "tenth"), "fleet-outlier", "ce-write"));
  write_text(f.options.expect_path, "{\"fleet_outlier_tolerance\": 2}");
  EXPECT_THROW(build_fleet(f.options, method_catalog()), InputError);
  write_text(f.options.expect_path, "{\"fleet_tolerance\": 0.2}");
  EXPECT_THROW(build_fleet(f.options, method_catalog()), InputError) << "a misspelt key is refused";
  ::unlink(f.options.expect_path.c_str());
}

TEST(Fleet, MixedVersionsAreCountedAndTheOddNodesNamed) {
  const std::string dir = fresh_temp_dir();
  for (int i = 0; i < 4; ++i) {
    RunDocument d = as_node(h200x2_default_run(), "n" + std::to_string(i));
    if (i == 2) {
      d.system.driver_version = "570.86.10";
      for (auto& h : d.topology->hosts) h.driver_version = "570.86.10";
    }
    write_run(dir, "n" + std::to_string(i), d);
  }
  const FleetReport r = fleet_of(dir);
  ASSERT_FALSE(r.versions.empty());
  EXPECT_EQ(r.versions[0].what, "driver");
  EXPECT_TRUE(r.versions[0].mixed());
  EXPECT_EQ(r.versions[0].nodes_by_value.at("570.86.10"), std::vector<std::string>{"n2"});
  EXPECT_EQ(r.versions[0].nodes_by_value.at(h200x2_default_run().system.driver_version).size(), 3u);
  EXPECT_FALSE(r.versions[2].mixed()) << "one NCCL version";
  const auto text = make_fleet_reporter(FleetFormat::kText)->render(r, {});
  EXPECT_NE(text.find("570.86.10: 1 node (n2)"), std::string::npos);
  EXPECT_NE(text.find("MIXED"), std::string::npos);
  // A 2-2 split has no majority: one side's nodes are named (before: neither side's).
  const std::string tie = fresh_temp_dir();
  for (int i = 0; i < 4; ++i) {
    RunDocument d = as_node(h200x2_default_run(), "t" + std::to_string(i));
    if (i >= 2) d.system.driver_version = d.topology->hosts[0].driver_version = "590.10.01";
    write_run(tie, "t" + std::to_string(i), d);
  }
  const auto tied = make_fleet_reporter(FleetFormat::kText)->render(fleet_of(tie), {});
  EXPECT_NE(tied.find("590.10.01: 2 nodes (t2, t3)"), std::string::npos) << tied.substr(0, 400);
}

TEST(Fleet, ARerunReplacesTheEarlierRunAndSaysSo) {
  const std::string dir = fresh_temp_dir();
  RunDocument early = as_node(h200x2_default_run(), "a");
  slow(early, "ce-write", 0.5);
  early.started_at = "2026-01-01T00:00:00Z";
  RunDocument late = as_node(h200x2_default_run(), "a");
  late.started_at = "2026-02-01T00:00:00Z";
  write_run(dir, "a-first", early);
  write_run(dir, "a-second", late);
  const FleetReport r = fleet_of(dir);
  ASSERT_EQ(r.nodes.size(), 1u);
  EXPECT_NE(r.nodes[0].file.find("a-second"), std::string::npos);
  // Said once, in the section of earlier runs: a note per step had read "the later run (B)
  // counts" above the run C that did (an audit).
  EXPECT_TRUE(r.notes.empty());
  ASSERT_EQ(r.earlier_runs.count("a"), 1u);
  ASSERT_EQ(r.earlier_runs.at("a").size(), 1u);
  EXPECT_NE(r.earlier_runs.at("a")[0].file.find("a-first"), std::string::npos);
  const auto text = test::flat(make_fleet_reporter(FleetFormat::kText)->render(r, {}));
  EXPECT_NE(text.find(test::flat("a: 2 runs; counted: " + dir +
                                 "/a-second.json (the latest); not counted: " + dir +
                                 "/a-first.json (2 flags)")),
            std::string::npos)
      << text;
}

TEST(Fleet, EachHostOfAMultiHostRunIsANode) {
  const FleetReport r = fleet_of(run_fixture_path("h200x2/derived/socket-cross-host.json"));
  ASSERT_EQ(r.nodes.size(), 2u);
  std::vector<std::string> hosts{r.nodes[0].host, r.nodes[1].host};
  std::sort(hosts.begin(), hosts.end());
  EXPECT_EQ(hosts, (std::vector<std::string>{"vm", "vm2"}));
  int between = 0;
  for (const auto& n : r.nodes) {
    for (const auto& p : n.pairs) {
      if (p.src_pci == "all") continue;
      EXPECT_EQ(p.link, "NET");
      ++between;
    }
  }
  EXPECT_GT(between, 0);
  // One GPU under two host names (one UUID) is two nodes still, but its pairs are no link.
  const FleetReport one = fleet_of(run_fixture_path("h200x1-shared-simulated-two-hosts.json"));
  ASSERT_EQ(one.nodes.size(), 2u);
  for (const auto& n : one.nodes) {
    for (const auto& p : n.pairs)
      if (p.src_pci != "all") EXPECT_EQ(p.link, "X");
  }
}

// Two ranks on one GPU: their pairs have one PCI bus id at both ends, yet are no host<->GPU row.
TEST(Fleet, APairOfRanksOnOneGpuIsNotNamedAHostLink) {
  const FleetReport r = fleet_of(run_fixture_path("h200x1-shared-serial.json"));
  ASSERT_EQ(r.nodes.size(), 1u);
  ASSERT_FALSE(r.nodes[0].pairs.empty());
  for (const auto& p : r.nodes[0].pairs) {
    EXPECT_EQ(p.name().find("<->host"), std::string::npos) << p.name();
  }
  const FleetReport h =
      fleet_of(std::string(PEERBENCH_SOURCE_DIR) + "/results/examples/h200x2-host.json");
  ASSERT_EQ(h.nodes.size(), 1u);
  ASSERT_FALSE(h.nodes[0].pairs.empty());
  EXPECT_EQ(h.nodes[0].pairs[0].name(), "0000:00:06.0<->host");
}

// From an audit: a node of one GPU driven by two ranks passed the fleet, its GPU-local copies
// (1952 GB/s) formed a fleet group, and OpenMetrics wrote two samples with one label set. Its
// pairs are no link: they join no group, and a node that showed nothing is incomplete.
TEST(Fleet, ANodeOfOneSharedGpuShowsNothingAndDoesNotPass) {
  const std::string dir = healthy_fleet(h200x2_default_run(), 3);
  write_run(dir, "one",
            as_node(load_run_file(run_fixture_path("h200x1-shared-serial.json")), "one"));
  const FleetReport r = fleet_of(dir);
  const FleetNode& one = node(r, "one");
  EXPECT_EQ(one.state, NodeState::kIncomplete);
  ASSERT_FALSE(one.problems.empty());
  EXPECT_NE(one.problems.back().find("nothing on this node was judged"), std::string::npos);
  for (const auto& p : one.pairs) EXPECT_TRUE(p.measurements.empty()) << p.name();
  for (const auto& g : r.groups) EXPECT_NE(g.link, "X") << g.method;
  EXPECT_EQ(node(r, "n0").state, NodeState::kPass);
  EXPECT_EQ(fleet_exit_code(r), kExitFlagged);
}

TEST(Fleet, PcieLinksAreGroupedByGenerationAndWidth) {
  const std::string dir = fresh_temp_dir();
  test::NodeSpec spec;
  spec.nvlinks = 0;
  spec.pcie_path = "PIX";
  auto d = test::make_doc(spec);
  d.results = {test::bw_result("ce-write", 0, 1, 1 << 30, 50),
               test::bw_result("ce-write", 1, 0, 1 << 30, 50)};
  write_run(dir, "pcie", d);
  const FleetReport r = fleet_of(dir);
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].link, "PCIe Gen5 x16 PIX");
  EXPECT_FALSE(r.groups[0].judged) << "two pairs are too few to call one an outlier";
}

TEST(Fleet, BadInputIsRefused) {
  EXPECT_THROW(fleet_of("/nonexistent/fleet"), UsageError);
  const std::string empty = fresh_temp_dir();
  EXPECT_THROW(fleet_of(empty), UsageError);
  DerivedFleet f;
  f.options.hosts_file = f.dir + "/no-such-hosts";
  EXPECT_THROW(build_fleet(f.options, method_catalog()), InputError);
  EXPECT_THROW(parse_fleet_format("xml"), UsageError);
  // A device or FIFO holds no run: refused, not an unreadable node (an audit).
  EXPECT_THROW(fleet_of("/dev/null"), UsageError);
  const std::string fifo = empty + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THROW(fleet_of(fifo), UsageError);
}

// A CSV line's fields, quotes kept in mind ("a, b" is one field).
std::size_t csv_fields(const std::string& line) {
  std::size_t n = 1;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    if (c == ',' && !quoted) ++n;
  }
  return n;
}

// A row per placed figure, per pair whose state is not a pass (its reason), per problem of a
// node; a node with none of them still has one.
TEST(FleetReport, CsvHasOneRowPerPositionAndEveryNode) {
  DerivedFleet f;
  const FleetReport r = build_fleet(f.options, method_catalog());
  const auto csv = make_fleet_reporter(FleetFormat::kCsv)->render(r, {});
  std::size_t rows = 0;
  for (const auto& n : r.nodes) {
    std::size_t here = n.problems.size();
    for (const auto& p : n.pairs)
      here += p.positions.size() + p.short_positions.size() +
              (!p.note_by_method.empty() ? p.note_by_method.size()
               : p.unsettled()           ? 1
                                         : 0);
    rows += std::max<std::size_t>(here, 1);
  }
  const auto lines = split(csv, '\n');
  EXPECT_EQ(lines.size(), rows + 2) << "the header, and the empty string after the last newline";
  for (const auto& l : lines) {
    if (!l.empty()) EXPECT_EQ(csv_fields(l), 23u) << l;
  }
  EXPECT_NE(csv.find("node3,flagged,"), std::string::npos);
  EXPECT_NE(csv.find("node10,missing,,"), std::string::npos);
  const auto cut = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.rfind("node5,incomplete,", 0) == 0 && l.find(",,,,,,,,,,,,,,") != std::string::npos;
  });
  EXPECT_NE(cut, lines.end()) << "the cut-short node's problem has a row";
}

// From an audit: the CSV and OpenMetrics gave a latency 10 % slower than the fleet's a ratio of
// 1.1, where the text gives 0.909 (under 1 worse).
TEST(FleetReport, EveryFormatGivesALatencyRatioUnderOneWhenWorse) {
  const std::string dir = healthy_fleet(h200x2_default_run(), 3);
  RunDocument late = as_node(h200x2_default_run(), "late");
  slow(late, "ce-latency", 1 / 1.1);
  write_run(dir, "late", late);
  const FleetReport r = fleet_of(dir);
  bool seen = false;
  for (const auto& p : node(r, "late").pairs) {
    for (const auto& pos : p.positions) {
      if (pos.method != "ce-latency" || pos.ratio < 1.05) continue;
      EXPECT_NEAR(pos.goodness(), 1 / 1.1, 0.01);
      seen = true;
    }
  }
  EXPECT_TRUE(seen);
  const auto csv = make_fleet_reporter(FleetFormat::kCsv)->render(r, {});
  EXPECT_NE(csv.find(",ce-latency,8,"), std::string::npos) << csv;
  for (const auto& l : split(csv, '\n')) {
    if (l.rfind("late,", 0) != 0 || l.find(",ce-latency,") == std::string::npos) continue;
    const auto f = split(l, ',');
    ASSERT_GT(f.size(), 12u);
    if (f[3] == "0000:00:06.0") EXPECT_LT(std::stod(f[12]), 0.95) << l;
  }
  const auto om = make_fleet_reporter(FleetFormat::kOpenMetrics)->render(r, {});
  EXPECT_NE(
      om.find("peerbench_link_fleet_ratio{host=\"late\",src_pci=\"0000:00:06.0\","
              "dst_pci=\"0000:00:07.0\",method=\"ce-latency\",bytes=\"8\",link=\"NV18\"} 0.9"),
      std::string::npos)
      << om;
}

TEST(FleetReport, HtmlEscapesHostNamesAndMarksFailure) {
  const std::string dir = fresh_temp_dir();
  write_run(dir, "x", as_node(h200x2_default_run(), "<script>x</script>"));
  const FleetReport r = fleet_of(dir);
  const auto html = make_fleet_reporter(FleetFormat::kHtml)->render(r, {});
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;"), std::string::npos);
  // The fleet's chart is drawn in the page (no PNG plots needed), the host name escaped in it.
  EXPECT_NE(html.find("<svg class=\"chart\""), std::string::npos);
  EXPECT_NE(html.find("Every pair against its group&#39;s fleet median"), std::string::npos);
  const auto om = make_fleet_reporter(FleetFormat::kOpenMetrics)->render(r, {});
  EXPECT_EQ(om.substr(om.size() - 6), "# EOF\n");
}

TEST(FleetOptions, CommandLine) {
  const auto cl = command_line_of({"fleet", "a", "b/", "--hosts", "h.txt", "--expect", "e.json",
                                   "--format", "junit", "-o", "out.xml"});
  EXPECT_EQ(cl.command, Command::kFleet);
  EXPECT_EQ(cl.fleet.paths, (std::vector<std::string>{"a", "b/"}));
  EXPECT_EQ(cl.fleet.hosts_file, "h.txt");
  EXPECT_EQ(cl.fleet.expect_path, "e.json");
  EXPECT_EQ(cl.fleet.format, FleetFormat::kJunit);
  EXPECT_EQ(cl.fleet.output_path, "out.xml");
  EXPECT_EQ(command_line_of({"fleet", "--help"}).command, Command::kHelp);
  EXPECT_THROW(command_line_of({"fleet"}), UsageError);
  EXPECT_THROW(command_line_of({"fleet", "a", "--format", "xml"}), UsageError);
  EXPECT_THROW(command_line_of({"fleet", "a", "--hosts"}), UsageError);
  // compare: two files as before, more than two a history; both render HTML.
  EXPECT_EQ(command_line_of({"compare", "a", "b"}).compare.runs.size(), 2u);
  EXPECT_EQ(command_line_of({"compare", "a", "b", "--format", "html"}).compare.format,
            ReportFormat::kHtml);
  const auto h = command_line_of({"compare", "a", "b", "c", "--format", "html", "--plots", "p"});
  EXPECT_EQ(h.compare.runs, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(h.compare.plots_dir, "p");
  // --plots where nothing shows plots is refused, not dropped (an audit).
  EXPECT_THROW(command_line_of({"compare", "a", "b", "--format", "html", "--plots", "p"}),
               UsageError);
  EXPECT_THROW(command_line_of({"compare", "a", "b", "c", "--plots", "p"}), UsageError);
  EXPECT_THROW(command_line_of({"report", "a", "--format", "csv", "--plots", "p"}), UsageError);
  EXPECT_THROW(command_line_of({"fleet", "a", "--format", "junit", "--plots", "p"}), UsageError);
  EXPECT_EQ(command_line_of({"fleet", "a", "--format", "markdown", "--plots", "p"}).fleet.plots_dir,
            "p");
}

// History: the real run, the same run slower on ce-write, and again on another driver.
TEST(History, ThreeRunsSideBySideWithChangesToTheFirst) {
  RunDocument b = h200x2_default_run();
  slow(b, "ce-write", 0.8);
  RunDocument c = h200x2_default_run();
  c.system.driver_version = "590.1";
  CompareOptions o;
  o.format = ReportFormat::kMarkdown;
  const History h = build_history({h200x2_default_run(), b, c}, {"a.json", "b.json", "c.json"}, o);
  EXPECT_GT(h.regressions[1], 0);
  EXPECT_EQ(h.regressions[2], 0);
  EXPECT_EQ(h.exit_code, kExitFlagged);
  EXPECT_NE(h.headings[2].find("driver 590.1"), std::string::npos);
  EXPECT_NE(
      h.headings[0].find("1: a.json (driver " + h200x2_default_run().system.driver_version + ")"),
      std::string::npos);
  for (const auto& row : h.rows) {
    ASSERT_EQ(row.cells.size(), 3u);
    if (row.method == "ce-write" && row.pair == "0->1")
      EXPECT_EQ(row.cells[1].change, "regression");
    if (row.method == "ce-read") EXPECT_NE(row.cells[1].change, "regression");
  }
  const auto md = render_history(h, o, {});
  EXPECT_NE(md.find("## ce-write"), std::string::npos);
  EXPECT_NE(md.find("3: c.json (driver 590.1)"), std::string::npos);
  o.format = ReportFormat::kCsv;
  const auto csv = render_history(h, o, {});
  std::size_t cells = 0;
  for (const auto& row : h.rows) {
    for (const auto& c2 : row.cells) cells += c2.present;
  }
  EXPECT_EQ(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')), cells + 1);
  // Each row says which versions its run ran (a driver history's CSV did not).
  const auto lines = split(csv, '\n');
  EXPECT_EQ(lines[0].substr(lines[0].rfind(",status,")), ",status,driver,cuda,nccl,hosts");
  // ... and which node it measured, as compare's a_hosts/b_hosts.
  const std::string hosts = "," + join(h200x2_default_run().system.hosts, " ");
  ASSERT_GT(hosts.size(), 1u);
  std::size_t on_new = 0;
  for (const auto& l : lines)
    on_new += l.find(",3,c.json,") != std::string::npos && l.find(",590.1,") != std::string::npos &&
              l.size() > hosts.size() &&
              l.compare(l.size() - hosts.size(), hosts.size(), hosts) == 0;
  EXPECT_GT(on_new, 0u) << csv.substr(0, 600);
  // Two runs: both sides' versions on every row.
  const auto two = compare_runs(h200x2_default_run(), "a.json", c, "c.json", {});
  const auto pair_csv = render_comparison(two, "a.json", "c.json", o);
  EXPECT_NE(pair_csv.find(",a_driver,a_cuda,a_nccl,b_driver,b_cuda,b_nccl,a_file,a_hosts,b_file,"
                          "b_hosts\n"),
            std::string::npos);
  EXPECT_NE(pair_csv.find(",590.1,"), std::string::npos);
  // And which node each side is: the GPU pairs are named by position (host0:...).
  const auto row = split(pair_csv, '\n').at(1);
  EXPECT_EQ(row.substr(row.size() - std::string(",a.json,n1,c.json,n1").size()),
            ",a.json," + h200x2_default_run().system.hosts[0] + ",c.json," + c.system.hosts[0])
      << row;
}

}  // namespace
}  // namespace peerbench

namespace peerbench {
namespace {

// Issue 17: a node whose case ran beside another job is not passed, says why, and its figure is
// kept out of the fleet's medians: it is never a fleet-outlier.
TEST(FleetContention, AContendedNodeIsNotAnOutlierAndSaysWhy) {
  const std::string dir = fresh_temp_dir();
  for (int i = 0; i < 6; ++i) {
    RunDocument d = as_node(h200x2_default_run(), "node" + std::to_string(i));
    for (auto& r : d.results) r.interference.emplace();
    if (i == 4) {
      slow(d, "ce-write", 0.45);  // what another job on the GPU did to it
      GpuInterference g;
      g.processes.push_back({4242, "copyloop", 2568ull << 20, 99});
      seen_beside(d, "ce-write", g);
    }
    write_run(dir, "node" + std::to_string(i), d);
  }
  const FleetReport r = fleet_of(dir);
  const FleetNode& busy = node(r, "node4");
  EXPECT_EQ(busy.state, NodeState::kIncomplete);
  EXPECT_FALSE(has_flag(busy, "fleet-outlier", "ce-write")) << "a contended figure is no outlier";
  EXPECT_FALSE(has_flag(busy, "below-link", "ce-write"));
  bool said = false;
  for (const auto& p : busy.pairs) {
    said = said || (p.state == "contended" && p.note().find("pid 4242") != std::string::npos);
  }
  EXPECT_TRUE(said) << "the pair is contended, naming the process";
  EXPECT_EQ(node(r, "node1").state, NodeState::kPass);
  EXPECT_EQ(fleet_exit_code(r), kExitFlagged);
  // The headline tells "measure again when idle" from a node that needs fixing (audit).
  const std::string text = make_fleet_reporter(FleetFormat::kText)->render(r, {});
  EXPECT_NE(text.find("incomplete (1 beside another job: measure again when idle)"),
            std::string::npos)
      << text.substr(0, 300);
  // The CSV has the pair's state and why, though its contended figure has no row (a review).
  const std::string csv = make_fleet_reporter(FleetFormat::kCsv)->render(r, {});
  const auto lines = split(csv, '\n');
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
    return l.rfind("node4,incomplete,", 0) == 0 && l.find(",contended,,") != std::string::npos &&
           l.find("pid 4242") != std::string::npos && l.find(",ce-write,") != std::string::npos;
  })) << csv.substr(0, 600);
  // JUnit: the method's own case holds the error (it had moved to a "pair" case).
  const std::string xml = make_fleet_reporter(FleetFormat::kJunit)->render(r, {});
  const auto at = xml.find("classname=\"peerbench.fleet.node4\" name=\"ce-write ");
  ASSERT_NE(at, std::string::npos) << xml.substr(0, 2000);
  const auto end = xml.find("</testcase>", at);
  EXPECT_NE(xml.substr(at, end - at).find("<error type=\"contended\""), std::string::npos)
      << xml.substr(at, 600);
  EXPECT_EQ(xml.find("name=\"pair "), std::string::npos);
}

// Another job beside the largest size alone: the case was measured beside it, not missing. "1
// case not measured at the fleet's size" contradicted the report's own table of it (an audit).
TEST(FleetContention, ACaseMeasuredBesideAnotherJobIsNotCalledUnmeasured) {
  const std::string dir = fresh_temp_dir();
  for (int i = 0; i < 4; ++i) {
    RunDocument d = as_node(h200x2_default_run(), "node" + std::to_string(i));
    std::uint64_t largest = 0;
    for (auto& r : d.results) {
      r.interference.emplace();
      if (r.method == "ce-write") largest = std::max(largest, r.bytes);
    }
    if (i == 2) {
      copy_loop_beside(d, "ce-write", largest);
    }
    write_run(dir, "node" + std::to_string(i), d);
  }
  const FleetReport r = fleet_of(dir);
  const FleetNode& busy = node(r, "node2");
  EXPECT_EQ(busy.state, NodeState::kIncomplete);
  EXPECT_TRUE(std::any_of(busy.pairs.begin(), busy.pairs.end(),
                          [](const FleetPair& p) { return p.state == "contended"; }));
  for (const auto& problem : busy.problems)
    EXPECT_EQ(problem.find("not measured"), std::string::npos) << problem;
}

// A bidirectional outlier is both directions' sum, as the run's own flags say (a review); a
// staged figure over an unknown or PCIe link names no NVLink.
TEST(Fleet, ABidirectionalOutlierSaysBothWaysTogether) {
  const std::string dir = fresh_temp_dir();
  for (int i = 0; i < 5; ++i) {
    RunDocument d = as_node(h200x2_default_run(), "node" + std::to_string(i));
    if (i == 0) slow(d, "ce-bidir", 0.8);
    write_run(dir, "node" + std::to_string(i), d);
  }
  const FleetReport r = fleet_of(dir);
  int said = 0;
  for (const auto& p : node(r, "node0").pairs)
    for (const auto& f : p.flags)
      if (f.code == "fleet-outlier" && f.method == "ce-bidir") {
        EXPECT_NE(f.message.find("ce-bidir both ways together between " + p.src_pci + " and " +
                                 p.dst_pci + " "),
                  std::string::npos)
            << f.message;
        ++said;
      }
  EXPECT_GT(said, 0);
  EXPECT_EQ(host_path_suspect("?").find("?"), std::string::npos);
  EXPECT_NE(host_path_suspect("PIX").find("PCIe links"), std::string::npos);
  EXPECT_NE(host_path_suspect("NV18").find("not the NV18 link"), std::string::npos);
}

// Another job beside the fleet's size while the node's verdict judged a larger, clean size: the
// pair passes, so the node's problems say it (it had passed the fleet silently; a review).
TEST(FleetContention, AFigureBesideAnotherJobAtTheFleetsSizeAloneIsStillSaid) {
  const std::string dir = fresh_temp_dir();
  const std::uint64_t fleet_size = 256ull << 20;
  for (int i = 0; i < 4; ++i) {
    RunDocument d = as_node(h200x2_default_run(), "node" + std::to_string(i));
    for (auto& r : d.results) r.interference.emplace();
    if (i != 2) {  // the others stop at 256 MiB: the fleet judges ce-write there
      d.results.erase(std::remove_if(d.results.begin(), d.results.end(),
                                     [&](const Result& r) { return r.bytes > fleet_size; }),
                      d.results.end());
    } else {
      copy_loop_beside(d, "ce-write", fleet_size);
    }
    write_run(dir, "node" + std::to_string(i), d);
  }
  const FleetReport r = fleet_of(dir);
  const FleetNode& n = node(r, "node2");
  EXPECT_EQ(n.state, NodeState::kIncomplete);
  EXPECT_TRUE(std::any_of(n.problems.begin(), n.problems.end(), [](const std::string& p) {
    return p.find("1 case at the fleet's size 256 MiB (ce-write) measured beside another job") !=
           std::string::npos;
  })) << (n.problems.empty() ? "no problem" : n.problems[0]);
}

// A staged copy goes GPU -> host memory -> GPU: a node slow there is the host's memory path.
// The outlier named the pair's NV18 beside it, and a technician would have worked on the NVLink.
TEST(Fleet, AStagedOutlierNamesTheHostsMemoryPathNotTheLink) {
  const std::string dir = fresh_temp_dir();
  for (int i = 0; i < 6; ++i) {
    RunDocument d = as_node(h200x2_default_run(), "node" + std::to_string(i));
    if (i == 5) slow(d, "staged", 0.75);
    write_run(dir, "node" + std::to_string(i), d);
  }
  const FleetReport r = fleet_of(dir);
  const FleetNode& n = node(r, "node5");
  ASSERT_TRUE(has_flag(n, "fleet-outlier", "staged"));
  for (const auto& p : n.pairs) {
    for (const auto& f : p.flags) {
      // Both the fleet's outlier and the run's own asymmetry (only 0->1 was slowed).
      if (f.method != "staged") continue;
      EXPECT_NE(f.message.find("(through host memory: the host's memory path, not the " +
                               p.link_label + " link, is the suspect)"),
                std::string::npos)
          << f.message;
    }
  }
  EXPECT_FALSE(has_flag(n, "fleet-outlier", "ce-write"));
  // The pair's state says the fleet flagged it (the CSV's pair_state read "pass" beside it).
  for (const auto& p : n.pairs)
    for (const auto& f : p.flags)
      if (f.code == "fleet-outlier") EXPECT_EQ(p.state, "flagged") << f.message;
  for (const auto& p : node(r, "node5").pairs)
    for (const auto& f : p.flags)
      if (f.method != "staged") EXPECT_EQ(f.message.find("through host memory"), std::string::npos);
}

// Clocks held by the hardware on an idle node (hw-thermal) are a cooling or power fault to look
// at, not a busy node to measure again when idle (an audit); held by software, measure again.
TEST(FleetContention, ClocksHeldByTheHardwareSayCheckCoolingAndPower) {
  for (const std::string variant : {"hw-thermal", "sw-thermal", "hw-thermal+pid"}) {
    const std::string reason = variant.substr(0, 10);
    const std::string dir = fresh_temp_dir();
    for (int i = 0; i < 5; ++i) {
      RunDocument d = as_node(h200x2_default_run(), "node" + std::to_string(i));
      for (auto& r : d.results) r.interference.emplace();
      if (i == 2) {
        slow(d, "sm-write", 0.8);
        GpuInterference g;
        g.rank = 0;
        g.host = "node2";
        g.gpu_index = 0;
        g.throttle_reasons = {reason};
        // Beside another job too: the hardware's hold is still a fault (a review).
        if (variant.size() > 10) g.processes.push_back({4242, "copyloop", 1ull << 30, 50});
        for (auto& r : d.results) {
          if (r.method == "sm-write" && r.src == 0) r.interference->push_back(g);
        }
      }
      write_run(dir, "node" + std::to_string(i), d);
    }
    const FleetReport r = fleet_of(dir);
    EXPECT_EQ(node(r, "node2").state, NodeState::kIncomplete) << variant;
    const std::string text = test::flat(make_fleet_reporter(FleetFormat::kText)->render(r, {}));
    const bool hw = reason == "hw-thermal";
    EXPECT_EQ(
        text.find(test::flat("1 with clocks held by the hardware: check cooling and power")) !=
            std::string::npos,
        hw)
        << text.substr(0, 400);
    const std::string both = variant.size() > 10 ? ", beside another job too" : "";
    EXPECT_NE(text.find(test::flat(
                  hw ? "  node2: incomplete: clocks held by the hardware (thermal or power)" +
                           both + ": check the node's cooling and power, then measure again"
                     : "  node2: incomplete: clocks held; measure again when idle")),
              std::string::npos)
        << variant << "\n"
        << text.substr(0, 400);
  }
}

// The advice rests on NVML's reasons, not on the words of the note: another job whose process
// is named like a reason ("hw-thermal-probe") held no clock.
TEST(FleetContention, AProcessNamedLikeAClockReasonIsAnotherJob) {
  const std::string dir = fresh_temp_dir();
  for (int i = 0; i < 5; ++i) {
    RunDocument d = as_node(h200x2_default_run(), "node" + std::to_string(i));
    for (auto& r : d.results) r.interference.emplace();
    if (i == 2) {
      GpuInterference g;
      g.processes.push_back({4242, "hw-thermal-probe", 1ull << 30, 50});
      seen_beside(d, "sm-write", g);
    }
    write_run(dir, "node" + std::to_string(i), d);
  }
  const FleetReport r = fleet_of(dir);
  const FleetNode& n = node(r, "node2");
  EXPECT_EQ(n.state, NodeState::kIncomplete);
  const bool named = std::any_of(n.pairs.begin(), n.pairs.end(), [](const FleetPair& p) {
    return p.note().find("hw-thermal-probe") != std::string::npos;
  });
  EXPECT_TRUE(named) << "the note names the process";
  const std::string text = make_fleet_reporter(FleetFormat::kText)->render(r, {});
  EXPECT_EQ(text.find("cooling and power"), std::string::npos) << text.substr(0, 600);
  EXPECT_NE(text.find("node2: incomplete: ran beside another job; measure again when idle"),
            std::string::npos)
      << text.substr(0, 600);
}

TEST(CompareContention, AContendedFigureIsNeverARegression) {
  RunDocument a = h200x2_default_run();
  RunDocument b = h200x2_default_run();
  for (auto* d : {&a, &b}) {
    for (auto& r : d->results) r.interference.emplace();
  }
  slow(b, "ce-write", 0.45);
  GpuInterference g;
  g.rank = 0;
  g.processes.push_back({4242, "copyloop", std::nullopt, std::nullopt});
  for (auto& r : b.results) {
    if (r.method == "ce-write" && r.src == 0) r.interference->push_back(g);
  }
  CompareOptions o;
  const Comparison c = compare_runs(a, "a.json", b, "b.json", o);
  int contended_rows = 0;
  for (const auto& row : c.rows) {
    if (row.method != "ce-write" || row.pair != "0->1") continue;
    EXPECT_EQ(row.change, "contended") << row.bytes;
    ++contended_rows;
  }
  EXPECT_GT(contended_rows, 0);
  EXPECT_EQ(c.regressions, 0);
}

// Issue 18: `fleet --write-baseline` over a fleet, then the same file as --expect. The healthy
// nodes pass; a node whose NCCL fell back to shared memory (the real run of
// results/examples/h200x2-nccl-shm.json), one measured beside another job, and one slowed a
// little less than the outlier tolerance but under the site's bar do not.
TEST(SiteBaseline, WrittenFromTheHealthyNodesAndHeldToLater) {
  DerivedFleet f;  // 10 nodes: node3 slowed (outlier), node5 cut short, node8 unreadable
  const FleetReport first = build_fleet(f.options, method_catalog());
  const nlohmann::json file = make_baseline(first, 0.05, "2026-11-30T18:00:00Z");
  const auto& b = file["baseline"];
  EXPECT_EQ(b["from"]["nodes"].size(), 7u) << "only the nodes that passed";
  EXPECT_EQ(b["per_version"], false);
  bool ce_write = false;
  for (const auto& e : b["entries"]) {
    if (e["method"] != "ce-write" || e["link"] != "NV18") continue;
    ce_write = true;
    EXPECT_EQ(e["model"], "NVIDIA H200");
    EXPECT_EQ(e["nodes"], 7) << "node3's outlier figure is not in the median";
    EXPECT_NEAR(e["bar"].get<double>(), 0.95 * e["median"].get<double>(), 1e-9);
  }
  EXPECT_TRUE(ce_write);
  const std::string path = f.dir + "/baseline.json";
  write_text(path, file.dump(2));
  const Expectations e = load_expectations(path, method_catalog());
  EXPECT_FALSE(e.baseline.empty());

  const std::string later = fresh_temp_dir();
  for (int i = 0; i < 3; ++i) {
    RunDocument d = as_node(h200x2_default_run(), "new" + std::to_string(i));
    if (i == 1) slow(d, "ce-read", 0.93);  // inside the 10 % fleet tolerance, under the 5 % bar
    write_run(later, "new" + std::to_string(i), d);
  }
  RunDocument shm = as_node(
      load_run_file(std::string(PEERBENCH_SOURCE_DIR) + "/results/examples/h200x2-nccl-shm.json"),
      "p2p-off");
  write_run(later, "p2p-off", shm);
  RunDocument busy = as_node(h200x2_default_run(), "busy");
  for (auto& r : busy.results) {
    r.interference.emplace();
    if (r.method == "sm-write") r.interference->push_back({0, "busy", 0, "", {{77, "train.py"}}});
  }
  write_run(later, "busy", busy);

  FleetOptions o;
  o.paths = {later};
  o.expect_path = path;
  const FleetReport r = build_fleet(o, method_catalog());
  EXPECT_EQ(node(r, "new0").state, NodeState::kPass);
  EXPECT_EQ(node(r, "new2").state, NodeState::kPass);
  EXPECT_EQ(node(r, "new1").state, NodeState::kFlagged);
  EXPECT_TRUE(has_flag(node(r, "new1"), "off-baseline", "ce-read"));
  EXPECT_EQ(node(r, "p2p-off").state, NodeState::kFlagged);
  EXPECT_NE(node(r, "busy").state, NodeState::kPass);
  // A run judged by report with the file: the same verdict.
  const auto vs = compute_verdicts(as_node(h200x2_default_run(), "x"), e);
  EXPECT_EQ(verdict_exit_code(vs, "all"), kExitOk);
}

// From an audit: a schema-1 run whose start gate timed out in every sample is not judged, and its
// figures (launch gaps included) joined the fleet's medians all the same.
TEST(Fleet, FiguresWithLaunchGapsJoinNoGroup) {
  const RunDocument gaps = load_run_file(run_fixture_path("h200x2/nccl-small-graph.json"));
  RunDocument clean = gaps;
  for (auto& r : clean.results) r.gate_timeouts = 0;
  EXPECT_TRUE(fleet_of(healthy_fleet(gaps, 3)).groups.empty());
  EXPECT_FALSE(fleet_of(healthy_fleet(clean, 3)).groups.empty());
}

// At latency sizes the site's figure is the time per operation, as the verdict judges it there.
// Before, the baseline held 8-byte NCCL figures in GB/s (0.0014), which the verdict's time check
// ignores: a node 30 % slower at 8 B passed against its own site's baseline.
TEST(SiteBaseline, LatencySizesAreHeldAsTimePerOperation) {
  RunDocument small = load_run_file(run_fixture_path("h200x2/nccl-small-graph.json"));
  for (auto& r : small.results) r.gate_timeouts = 0;  // as a schema-2 run has them
  const std::string dir = healthy_fleet(small, 4);
  const auto file = make_baseline(fleet_of(dir), 0.1, "now");
  bool allreduce = false;
  for (const auto& e : file["baseline"]["entries"]) {
    EXPECT_EQ(e["unit"], "us") << e.dump();
    EXPECT_GT(e["median"].get<double>(), 1.0) << e.dump();
    if (e["method"] != "nccl-allreduce") continue;
    allreduce = true;
    EXPECT_NEAR(e["bar"].get<double>(), 1.1 * e["median"].get<double>(), 1e-9);
  }
  EXPECT_TRUE(allreduce);
  const std::string path = dir + "/baseline.json";
  write_text(path, file.dump(2));
  const Expectations e = load_expectations(path, method_catalog());
  EXPECT_EQ(verdict_exit_code(compute_verdicts(as_node(small, "x"), e), "all"), kExitOk);
  RunDocument slower = as_node(small, "slow");
  slow(slower, "nccl-allreduce", 1 / 1.3);
  const auto vs = compute_verdicts(slower, e);
  bool flagged = false;
  for (const auto& v : vs) {
    for (const auto& f : v.flags)
      flagged |= f.code == "off-baseline" && f.method == "nccl-allreduce";
  }
  EXPECT_TRUE(flagged);
}

// From an audit: a site baseline of another GPU model judged nothing, and every report read
// "pass" under "thresholds: <the baseline>" with no word that its entries matched no case. The
// reports now say what judged the figures, and that the baseline judged none of them.
TEST(SiteBaseline, AReportSaysWhatJudgedItsFiguresAndABaselineThatJudgedNone) {
  const std::string dir = healthy_fleet(h200x2_default_run(), 4);
  nlohmann::json file = make_baseline(fleet_of(dir), 0.1, "now");
  const std::string same = dir + "/same.json", other = dir + "/other.json";
  write_text(same, file.dump(2));
  for (auto& e : file["baseline"]["entries"]) e["model"] = "NVIDIA H100 80GB HBM3";
  write_text(other, file.dump(2));
  const RunDocument d = as_node(h200x2_default_run(), "x");

  const Expectations own = load_expectations(same, method_catalog());
  const std::string judged = bars_used_line(d, compute_verdicts(d, own), own);
  EXPECT_NE(judged.find("by site baseline"), std::string::npos) << judged;
  EXPECT_EQ(judged.find("judged none"), std::string::npos) << judged;

  const Expectations h100 = load_expectations(other, method_catalog());
  const auto vs = compute_verdicts(d, h100);
  const std::string none = bars_used_line(d, vs, h100);
  EXPECT_EQ(none.find("by site baseline"), std::string::npos) << none;
  EXPECT_NE(none.find("the site baseline (" + other + ") judged none of them"), std::string::npos)
      << none;
  EXPECT_NE(none.find("its entries are for NVIDIA H100 80GB HBM3 over 2 ranks in groups "),
            std::string::npos)
      << none;
  EXPECT_NE(none.find(", all 2 GPUs, at sizes 4 B, 8 B, 1 GiB; this run is NVIDIA H200 over 2 "
                      "ranks in groups NV18, all 2 GPUs, judged at 4 B, 8 B, 1 GiB, driver "
                      "580.159.04"),
            std::string::npos)
      << none;
  // Entries at 1 GiB against figures judged at 64 MiB: the sizes say it (the two scopes read the
  // same before; an audit).
  const auto p2p = load_run_file(run_fixture_path("h200x2/p2p-disabled.json"));
  const auto small = bars_used_line(p2p, compute_verdicts(p2p, h100), h100);
  EXPECT_NE(small.find("judged at 4 B, 8 B, 64 MiB"), std::string::npos) << small;
  int sourced = 0;
  for (const auto& v : vs)
    for (const auto& m : v.methods) {
      if (!m.bar) continue;
      EXPECT_NE(m.bar_source, kBarSiteBaseline) << m.method;
      sourced += !m.bar_source.empty();
    }
  EXPECT_GT(sourced, 0) << "every bar says what kind it is";

  const std::string built_in = bars_used_line(d, compute_verdicts(d, Expectations{}), {});
  EXPECT_NE(built_in.find("by known-good figures (85 %)"), std::string::npos) << built_in;
  EXPECT_EQ(built_in.find("baseline"), std::string::npos) << built_in;
}

// A fleet of one version writes entries that name none, and they judge a run on any version:
// a run on another driver that fails one says which versions the fleet ran (audit).
TEST(SiteBaseline, AFailureOnOtherVersionsSaysWhichTheFleetRan) {
  const std::string dir = healthy_fleet(h200x2_default_run(), 4);
  const std::string path = write_baseline(dir, 0.05);
  const Expectations e = load_expectations(path, method_catalog());
  RunDocument later = as_node(h200x2_default_run(), "later");
  later.system.driver_version = "590.10.01";
  slow(later, "ce-write", 0.8);
  bool said = false;
  for (const auto& v : compute_verdicts(later, e))
    for (const auto& f : v.flags) {
      if (f.code != "off-baseline" || f.method != "ce-write") continue;
      said = f.message.find(
                 "the baseline's fleet ran driver 580.159.04; this run driver "
                 "590.10.01") != std::string::npos;
      EXPECT_TRUE(said) << f.message;
    }
  EXPECT_TRUE(said);
  for (const auto& v : compute_verdicts(as_node(h200x2_default_run(), "same"), e))
    for (const auto& f : v.flags)
      EXPECT_FALSE(f.evidence.contains("versions") && !f.evidence["versions"].is_null());
}

TEST(SiteBaseline, KeptPerVersionWhenTheFleetMixesThem) {
  const std::string dir = fresh_temp_dir();
  for (int i = 0; i < 6; ++i) {
    RunDocument d = as_node(h200x2_default_run(), "n" + std::to_string(i));
    if (i >= 3) d.system.driver_version = d.topology->hosts[0].driver_version = "580.200.01";
    write_run(dir, "n" + std::to_string(i), d);
  }
  const FleetReport r = fleet_of(dir);
  const auto file = make_baseline(r, 0.1, "now");
  EXPECT_EQ(file["baseline"]["per_version"], true);
  std::set<std::string> drivers;
  for (const auto& e : file["baseline"]["entries"]) drivers.insert(e["driver"].get<std::string>());
  EXPECT_EQ(drivers, (std::set<std::string>{"580.159.04", "580.200.01"}));
}

// From a review: two healthy nodes that recorded no driver wrote an entry with no driver into a
// per-version baseline (one that judges every driver by them), and a node alone without one was
// dropped with no word. They are left out, each with why; on one driver they count as before.
TEST(SiteBaseline, NodesWithoutVersionsAreLeftOutOfAPerVersionBaselineWithWhy) {
  const auto fleet = [](int on_other) {
    const std::string dir = fresh_temp_dir();
    for (int i = 0; i < 8; ++i) {
      RunDocument d = as_node(h200x2_default_run(), "n" + std::to_string(i));
      if (i < on_other)
        d.system.driver_version = d.topology->hosts[0].driver_version = "580.200.01";
      if (i >= 6) {
        d.system.driver_version.clear();
        for (auto& h : d.topology->hosts) h.driver_version.clear();
      }
      write_run(dir, "n" + std::to_string(i), d);
    }
    return make_baseline(fleet_of(dir), 0.1, "now");
  };
  const auto mixed = fleet(3);
  ASSERT_EQ(mixed["baseline"]["per_version"], true);
  for (const auto& e : mixed["baseline"]["entries"])
    EXPECT_TRUE(e.contains("driver") && !e["driver"].get<std::string>().empty()) << e.dump();
  std::set<std::string> left;
  for (const auto& n : mixed["baseline"]["from"]["left_out"]) {
    left.insert(n["host"].get<std::string>());
    EXPECT_EQ(n.value("reason", ""),
              "recorded no driver version, and the baseline is per version (the fleet mixes "
              "them)");
  }
  EXPECT_EQ(left, (std::set<std::string>{"n6", "n7"}));
  // One driver and two nodes that recorded none: not mixed, every node counts.
  const auto one = fleet(0);
  EXPECT_EQ(one["baseline"]["per_version"], false);
  EXPECT_TRUE(one["baseline"]["from"]["left_out"].empty());
  EXPECT_EQ(one["baseline"]["from"]["nodes"].size(), 8u);
}

// From an audit: a baseline of a fleet on two drivers judged nothing of a run on a third (a quiet
// pass on the known-good figure) where a one-version baseline judged it and said so. Both judge it
// now, by the entry sharing the most versions, and say which versions that entry is for.
TEST(SiteBaseline, APerVersionBaselineJudgesARunOnOtherVersionsAndSaysSo) {
  const std::string dir = fresh_temp_dir();
  for (int i = 0; i < 6; ++i) {
    RunDocument d = as_node(h200x2_default_run(), "n" + std::to_string(i));
    if (i >= 3) d.system.driver_version = d.topology->hosts[0].driver_version = "580.200.01";
    write_run(dir, "n" + std::to_string(i), d);
  }
  const std::string path = dir + "/baseline.json";
  write_text(path, make_baseline(fleet_of(dir), 0.05, "now").dump(2));
  const Expectations e = load_expectations(path, method_catalog());
  RunDocument later = as_node(h200x2_default_run(), "later");
  later.system.driver_version = "590.10.01";
  for (auto& h : later.topology->hosts) h.driver_version = "590.10.01";
  slow(later, "ce-write", 0.9);
  bool flagged = false;
  for (const auto& v : compute_verdicts(later, e))
    for (const auto& f : v.flags) {
      if (f.code != "off-baseline" || f.method != "ce-write") continue;
      flagged = true;
      EXPECT_NE(f.message.find("the baseline has no entry for this run's versions; the one that "
                               "judged it is for driver 580."),
                std::string::npos)
          << f.message;
      EXPECT_NE(f.message.find("this run driver 590.10.01"), std::string::npos) << f.message;
    }
  EXPECT_TRUE(flagged);
  // A passing figure says it too, and the run's own driver's entry judges a run on it silently.
  for (const auto& v : compute_verdicts(as_node(later, "x"), e))
    for (const auto& m : v.methods)
      if (m.method == "ce-read" && m.bar_source == kBarSiteBaseline)
        EXPECT_NE(m.bar_basis.find("this run driver 590.10.01"), std::string::npos) << m.bar_basis;
  for (const auto& v : compute_verdicts(as_node(h200x2_default_run(), "same"), e))
    for (const auto& m : v.methods)
      EXPECT_EQ(m.bar_basis.find("versions"), std::string::npos) << m.bar_basis;
}

// From a review: of two other drivers' entries, which one judged a run hung on their order in the
// file (reversed, the same run passed instead of failing). The strictest one judges it (the most
// lenient passed a run at 0.80 of healthy on a slow driver's entry; a hostile audit), and a run
// that recorded no driver is told which driver's entry that was.
TEST(SiteBaseline, WhichOtherVersionJudgesDoesNotHangOnTheFilesOrder) {
  const std::string dir = fresh_temp_dir();
  for (int i = 0; i < 6; ++i) {
    RunDocument d = as_node(h200x2_default_run(), "n" + std::to_string(i));
    if (i >= 3) {
      d.system.driver_version = d.topology->hosts[0].driver_version = "580.200.01";
      for (auto& r : d.results) {
        if (r.method != "ce-write" || r.status != ResultStatus::kOk) continue;
        scale(r.algbw_gbps, 1.05);
        scale(r.busbw_gbps, 1.05);
        scale(r.time_us, 1 / 1.05);
      }
    }
    write_run(dir, "n" + std::to_string(i), d);
  }
  nlohmann::json file = make_baseline(fleet_of(dir), 0.05, "now");
  ASSERT_EQ(file["baseline"]["per_version"], true);
  const std::string path = dir + "/b.json", reversed = dir + "/r.json";
  write_text(path, file.dump(2));
  auto& entries = file["baseline"]["entries"];
  std::reverse(entries.begin(), entries.end());
  write_text(reversed, file.dump(2));
  RunDocument later = as_node(h200x2_default_run(), "later");
  later.system.driver_version = "590.10.01";
  for (auto& h : later.topology->hosts) h.driver_version = "590.10.01";
  slow(later, "ce-write", 0.97);  // over 580.159.04's bar (0.95), under 580.200.01's (0.9975)
  for (const auto& p : {path, reversed}) {
    const auto vs = compute_verdicts(later, load_expectations(p, method_catalog()));
    EXPECT_EQ(verdict_exit_code(vs, "off-baseline"), kExitFlagged) << p;
  }
  RunDocument unknown = as_node(h200x2_default_run(), "unknown");
  unknown.system.driver_version.clear();
  for (auto& h : unknown.topology->hosts) h.driver_version.clear();
  slow(unknown, "ce-write", 0.8);
  bool said = false;
  const Expectations e = load_expectations(path, method_catalog());
  EXPECT_NE(
      bars_used_line(unknown, compute_verdicts(unknown, e), e).find("this run driver not recorded"),
      std::string::npos);
  for (const auto& v : compute_verdicts(unknown, e))
    for (const auto& f : v.flags)
      if (f.code == "off-baseline") {
        said |= f.message.find("this run driver not recorded") != std::string::npos;
        EXPECT_TRUE(said) << f.message;
      }
  EXPECT_TRUE(said);
}

// From an audit: two of four nodes on a new driver ran ce-write 12 % slower; the pooled median sat
// between the drivers, no node was an outlier, and the fleet read "PASS: all 4 nodes pass" with
// no word of it. The verdict line and the Versions section name the slower driver now.
namespace {
// A fleet of a node per factor; `on_new` of them (from the last) on driver 590.10.01 (and
// NCCL 2.29.1 with `nccl_too`), their ce-write scaled by `factor[i]`.
FleetReport version_fleet(int on_new, const std::vector<double>& factor, bool nccl_too = false) {
  const std::string dir = fresh_temp_dir();
  const int count = static_cast<int>(factor.size());
  for (int i = 0; i < count; ++i) {
    RunDocument d = as_node(h200x2_default_run(), "n" + std::to_string(i));
    if (i >= count - on_new) {
      d.system.driver_version = "590.10.01";
      for (auto& h : d.topology->hosts) h.driver_version = "590.10.01";
      if (nccl_too) d.system.nccl_version = "2.29.1";
    }
    for (auto& r : d.results) {
      if (r.method != "ce-write" || r.status != ResultStatus::kOk) continue;
      scale(r.algbw_gbps, factor[i]);
      scale(r.busbw_gbps, factor[i]);
      scale(r.time_us, 1 / factor[i]);
    }
    write_run(dir, "n" + std::to_string(i), d);
  }
  return fleet_of(dir);
}
}  // namespace

TEST(FleetVersions, AVersionSlowerThanAnotherIsNamed) {
  const FleetReport r = version_fleet(2, {1, 1, 0.88, 0.88});
  EXPECT_EQ(r.count(NodeState::kPass), 4) << "no node is at fault";
  ASSERT_EQ(r.version_gaps.size(), 1u);
  const VersionGap& g = r.version_gaps.front();
  EXPECT_EQ(g.what, "driver");
  EXPECT_EQ(g.slow, "driver 590.10.01");
  EXPECT_EQ(g.method, "ce-write");
  EXPECT_NEAR(g.shortfall, 0.12, 0.005);
  const std::string text = test::flat(make_fleet_reporter(FleetFormat::kText)->render(r, {}));
  EXPECT_NE(
      text.find(test::flat("; versions differ in speed: driver 590.10.01 (2 nodes) is 12.0 % lower "
                           "than driver 580.159.04 (2 nodes) on ce-write at ")),
      std::string::npos)
      << text.substr(0, 800);
  EXPECT_NE(text.find(test::flat("speed by version: driver 590.10.01")), std::string::npos);
  EXPECT_NE(
      text.find(test::flat("Findings:\n  version gap: driver 590.10.01 (2 nodes) is 12.0 % lower")),
      std::string::npos)
      << "not 'none' beside the gap";
  const std::string om = make_fleet_reporter(FleetFormat::kOpenMetrics)->render(r, {});
  EXPECT_NE(om.find("peerbench_fleet_version_gap_ratio{slow=\"driver 590.10.01\",fast=\"driver "
                    "580.159.04\",method=\"ce-write\""),
            std::string::npos)
      << om.substr(om.find("version_gap"), 400);
  // CSV: every row carries the node's driver; a ce-write row says which side of the gap it is on.
  const std::string csv = make_fleet_reporter(FleetFormat::kCsv)->render(r, {});
  int slower = 0, faster = 0;
  for (const auto& row : split(csv, '\n')) {
    if (row.empty() || row.rfind("node,", 0) == 0) continue;
    EXPECT_TRUE(row.find(",590.10.01,") != std::string::npos ||
                row.find(",580.159.04,") != std::string::npos)
        << row;
    slower += row.find(",ce-write,") != std::string::npos &&
              row.find(",slower side: driver 590.10.01 is 12.0 % behind driver 580.159.04") !=
                  std::string::npos;
    faster += row.find(",faster side: driver 580.159.04 is 13.6 % higher than driver 590.10.01") !=
              std::string::npos;
  }
  EXPECT_GT(slower, 0) << csv.substr(0, 1200);
  EXPECT_EQ(slower, faster) << "two nodes a side, the same pairs each";
  // JUnit: the slower nodes' suites carry the gap as a property; their cases still pass.
  const std::string xml = make_fleet_reporter(FleetFormat::kJunit)->render(r, {});
  std::size_t props = 0;
  for (auto at = xml.find("name=\"version_gap\""); at != std::string::npos;
       at = xml.find("name=\"version_gap\"", at + 1))
    ++props;
  EXPECT_EQ(props, 2u) << "the two nodes on 590.10.01";
  EXPECT_NE(xml.find("value=\"driver 590.10.01 (2 nodes) is 12.0 % lower"), std::string::npos);
  // One driver throughout: no gap, whatever the spread.
  EXPECT_TRUE(fleet_of(healthy_fleet(h200x2_default_run(), 4)).version_gaps.empty());
}

// From a review: one slow node alone on a new driver, or one broken node of two on it, was laid
// at the driver's door. A node is its own finding; a driver needs two nodes of its own.
// From an audit: three nodes on the old driver made both on the new one fleet outliers, and an
// outlier is left out of the version split, so the gap went unsaid and the nodes took the blame
// alone. A version whose every node (two or more) is an outlier is what they share.
TEST(FleetVersions, AVersionWhoseEveryNodeIsAnOutlierIsStillNamed) {
  const FleetReport r = version_fleet(2, {1, 1, 1, 0.88, 0.88});
  EXPECT_EQ(r.count(NodeState::kFlagged), 2) << "the slow nodes are outliers still";
  ASSERT_EQ(r.version_gaps.size(), 1u);
  EXPECT_EQ(r.version_gaps.front().slow, "driver 590.10.01");
  EXPECT_EQ(r.version_gaps.front().slow_nodes, 2);
  EXPECT_EQ(r.version_gaps.front().fast_nodes, 3);
  // One slow node of two on the new driver is its own fault, however many are on the old one.
  EXPECT_TRUE(version_fleet(2, {1, 1, 1, 1, 0.88}).version_gaps.empty());
}

TEST(FleetVersions, OneNodesFaultIsNotItsVersions) {
  EXPECT_TRUE(version_fleet(1, {1, 1, 1, 0.88}).version_gaps.empty()) << "one node on 590";
  const FleetReport broken = version_fleet(2, {1, 1, 1, 0.7});
  EXPECT_TRUE(broken.version_gaps.empty()) << broken.version_gaps.front().text();
  EXPECT_EQ(broken.count(NodeState::kFlagged), 1) << "the broken node is flagged, as ever";
  // Driver and NCCL changed on the same nodes: one gap, named by both.
  const FleetReport both = version_fleet(2, {1, 1, 0.88, 0.88}, true);
  ASSERT_EQ(both.version_gaps.size(), 1u);
  EXPECT_EQ(both.version_gaps.front().slow, "driver 590.10.01 and NCCL 2.29.1");
}

// From an audit: one 2-GPU node gives two pairs per case, under the three a fleet judges; its
// baseline entries were written anyway, and a healthy pair of that very node then failed the
// bar (exit 1). Such cases are left out and listed; with none left, nothing is written.
TEST(SiteBaseline, CasesWithTooFewPairsAreLeftOutAndListed) {
  const std::string one = fresh_temp_dir();
  write_run(one, "n0", as_node(h200x2_default_run(), "n0"));
  try {
    make_baseline(fleet_of(one), 0.1, "now");
    ADD_FAILURE() << "one 2-GPU node is no fleet";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no case has 3 healthy pairs or more"), std::string::npos)
        << e.what();
  }
  const std::string two = healthy_fleet(h200x2_default_run(), 2);
  const auto file = make_baseline(fleet_of(two), 0.1, "now");
  std::set<std::string> kept, left;
  for (const auto& e : file["baseline"]["entries"]) {
    EXPECT_GE(e["pairs"].get<int>(), 3) << e.dump();
    kept.insert(e["method"].get<std::string>());
  }
  for (const auto& c : file["baseline"]["from"]["cases_too_few_pairs"]) {
    EXPECT_LT(c["pairs"].get<int>(), 3) << c.dump();
    left.insert(c["method"].get<std::string>());
  }
  EXPECT_TRUE(kept.count("ce-write")) << "two pairs on each of two nodes";
  EXPECT_TRUE(left.count("nccl-allreduce")) << "one figure (all ranks) on each of two nodes";
}

// From an audit: one 8-GPU node's 56 pairs made "a site baseline of 1 healthy nodes"; a baseline
// entry needs two nodes at least. And one failed node on another driver made every entry
// per-version, so a later node on the healthy nodes' own driver matched none.
TEST(SiteBaseline, AnEntryNeedsTwoHealthyNodesAndTheirVersionsAlone) {
  test::NodeSpec four;
  four.gpus = 4;
  RunDocument d = test::make_doc(four);
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b)
      if (a != b) d.results.push_back(test::bw_result("ce-write", a, b, 1ull << 30, 395));
  const std::string one = fresh_temp_dir();
  write_run(one, "big0", as_node(d, "big0"));
  try {
    make_baseline(fleet_of(one), 0.1, "now");
    ADD_FAILURE() << "one node is no fleet, whatever its pairs";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("3 healthy pairs or more on 2 nodes or more"),
              std::string::npos)
        << e.what();
  }
  write_run(one, "big1", as_node(d, "big1"));
  const auto two = make_baseline(fleet_of(one), 0.1, "now");
  ASSERT_EQ(two["baseline"]["entries"].size(), 1u);
  EXPECT_EQ(two["baseline"]["entries"][0]["nodes"], 2);
  EXPECT_EQ(two["baseline"]["entries"][0]["pairs"], 24);

  const std::string dir = healthy_fleet(h200x2_default_run(), 3);
  RunDocument other = as_node(h200x2_default_run(), "bad");
  other.system.driver_version = "570.86.10";
  for (auto& h : other.topology->hosts) h.driver_version = "570.86.10";
  slow(other, "ce-write", 0.5);
  write_run(dir, "bad", other);
  const FleetReport r = fleet_of(dir);
  ASSERT_NE(node(r, "bad").state, NodeState::kPass);
  const auto file = make_baseline(r, 0.1, "now");
  EXPECT_EQ(file["baseline"]["per_version"], false) << "the counted nodes ran one driver";
  for (const auto& e : file["baseline"]["entries"]) EXPECT_FALSE(e.contains("driver")) << e.dump();
}

// From an audit: runs to 64 MiB made a baseline whose bandwidth entries (64 MiB, under the 256 MiB
// the link-rate rule starts at) were written and never used, and the report said they had "no
// entry". The site's own median at that size judges it.
TEST(SiteBaseline, EntriesUnderTheJudgedMinimumJudgeTheirSize) {
  RunDocument to64 = h200x2_default_run();
  to64.results.erase(std::remove_if(to64.results.begin(), to64.results.end(),
                                    [](const Result& r) { return r.bytes > (64ull << 20); }),
                     to64.results.end());
  to64.config["maxbytes"] = 64ull << 20;  // as a run of -e 64M records it
  to64.config["sizes"] = {1ull << 20, 4ull << 20, 16ull << 20, 64ull << 20};
  const std::string dir = healthy_fleet(to64, 4);
  const std::string base = write_baseline(dir, 0.05);
  const Expectations e = load_expectations(base, method_catalog());
  RunDocument later = as_node(to64, "later");
  slow(later, "ce-write", 0.93);  // within 90 % of known-good; 7 % under the site's median
  const auto vs = compute_verdicts(later, e);
  bool flagged = false;
  for (const auto& v : vs) {
    for (const auto& f : v.flags) {
      if (f.code == "off-baseline" && f.method == "ce-write") {
        flagged = true;
        EXPECT_NE(f.message.find("at 64 MiB"), std::string::npos) << f.message;
      }
    }
  }
  EXPECT_TRUE(flagged);
  EXPECT_EQ(bars_used_line(later, vs, e).find("no entry"), std::string::npos)
      << bars_used_line(later, vs, e);
}

// From an audit: a run that swept past the baseline's sizes (baseline to 64 MiB, run to 1 GiB) was
// judged at its largest size alone, where the baseline has no entry: 7 % under the site's median
// passed on the known-good figure. The baseline's own size is held to its entry too, on top of
// the largest size's verdict (a review: judging 64 MiB instead passed 1 GiB at 0.50).
TEST(SiteBaseline, ARunSweptFurtherIsHeldToTheBaselineAtItsSizeToo) {
  RunDocument to64 = h200x2_default_run();
  to64.results.erase(std::remove_if(to64.results.begin(), to64.results.end(),
                                    [](const Result& r) { return r.bytes > (64ull << 20); }),
                     to64.results.end());
  to64.config["maxbytes"] = 64ull << 20;
  to64.config["sizes"] = {1ull << 20, 4ull << 20, 16ull << 20, 64ull << 20};
  const std::string dir = healthy_fleet(to64, 4);
  const Expectations e = load_expectations(write_baseline(dir, 0.05), method_catalog());
  RunDocument later = as_node(h200x2_default_run(), "later");  // to 1 GiB
  slow(later, "ce-write", 0.93);
  bool flagged = false, noted = false;
  for (const auto& v : compute_verdicts(later, e)) {
    for (const auto& f : v.flags) {
      if (f.code != "off-baseline" || f.method != "ce-write") continue;
      flagged = true;
      EXPECT_NE(f.message.find("at 64 MiB"), std::string::npos) << f.message;
      EXPECT_EQ(f.evidence["confirmed"], false);
    }
    for (const auto& m : v.methods) {
      if (m.method != "ce-write" || v.src != 0) continue;
      EXPECT_EQ(m.bytes, 1ull << 30) << "the largest size is still the one judged";
      EXPECT_EQ(m.state, "flagged");
      noted |= m.bar_basis.find(
                   "also held to the site baseline at 64 MiB, the largest size it "
                   "has an entry for (none at 1 GiB): worse than its bar") != std::string::npos;
    }
  }
  EXPECT_TRUE(flagged);
  EXPECT_TRUE(noted);
  // The bars line counts them, and does not say the baseline judged none (a hostile audit).
  const std::string bars = bars_used_line(later, compute_verdicts(later, e), e);
  EXPECT_NE(bars.find(" also held to the site baseline at the largest size it has an entry for"),
            std::string::npos)
      << bars;
  EXPECT_EQ(bars.find("judged none of them"), std::string::npos) << bars;
  // The same run unslowed passes: the baseline's size is judged, not failed for being smaller.
  EXPECT_EQ(verdict_exit_code(compute_verdicts(as_node(h200x2_default_run(), "ok"), e), "all"),
            kExitOk);
  // A 1 GiB figure at half its known-good figure is flagged whatever the baseline holds.
  RunDocument half = as_node(h200x2_default_run(), "half");
  for (auto& r : half.results) {
    if (r.method == "ce-write" && r.src == 0 && r.bytes == (1ull << 30)) {
      scale(r.algbw_gbps, 0.5);
      scale(r.time_us, 2);
    }
  }
  bool below = false;
  for (const auto& v : compute_verdicts(half, e))
    for (const auto& f : v.flags) below |= f.code == "below-expected" && f.method == "ce-write";
  EXPECT_TRUE(below);
}

// From an audit: an entry edited to a median of 5e8 GB/s flagged a healthy node with no word that
// no figure can reach its bar.
TEST(SiteBaseline, ABarAboveTheRawLinkRateSaysNoFigureReachesIt) {
  const std::string dir = healthy_fleet(h200x2_default_run(), 3);
  auto file = make_baseline(fleet_of(dir), 0.1, "now");
  for (auto& e : file["baseline"]["entries"]) {
    if (e["method"] != "ce-write") continue;
    e["median"] = e["p75"] = e["max"] = 5e8;
    e["bar"] = 4.5e8;
  }
  const std::string path = dir + "/edited.json";
  write_text(path, file.dump());
  const auto vs = compute_verdicts(h200x2_default_run(), load_expectations(path, method_catalog()));
  bool said = false;
  for (const auto& v : vs) {
    for (const auto& f : v.flags)
      said = said || (f.code == "off-baseline" &&
                      f.message.find("above the 478.1 GB/s raw rate of NVLink x18, which no "
                                     "figure reaches") != std::string::npos);
  }
  EXPECT_TRUE(said);
}

// From an audit: a baseline from a fleet slowed to 0.88 of known-good passed a node at 0.81 of
// it, where known-good's 85 % bar flags it, without a word. The bars line says so.
TEST(SiteBaseline, ABaselineUnderKnownGoodSaysWhatItPassed) {
  auto both_ways = [](RunDocument d, double f) {  // slow() slows rank 0's direction alone
    for (auto& r : d.results) {
      if (r.method != "ce-write" || r.status != ResultStatus::kOk) continue;
      scale(r.algbw_gbps, f);
      scale(r.busbw_gbps, f);
      scale(r.time_us, 1 / f);
    }
    return d;
  };
  const std::string dir = healthy_fleet(both_ways(h200x2_default_run(), 0.88), 3);
  const Expectations e = load_expectations(write_baseline(dir, 0.1), method_catalog());
  const RunDocument later = as_node(both_ways(h200x2_default_run(), 0.81), "later");
  const auto vs = compute_verdicts(later, e);
  EXPECT_EQ(verdict_exit_code(vs, "all"), kExitOk) << "the baseline's bar passes it";
  const std::string line = bars_used_line(later, vs, e);
  EXPECT_NE(line.find("2 figures passed the site baseline under 85 % of its known-good figure"),
            std::string::npos)
      << line;
  EXPECT_EQ(bars_used_line(h200x2_default_run(), compute_verdicts(h200x2_default_run(), e), e)
                .find("ran slower"),
            std::string::npos);
}

// From an audit: off-baseline said "GB/s" for NCCL's bus bandwidth and "of 6 pairs on 6 nodes"
// for a method with one figure a node.
TEST(SiteBaseline, AnAllRanksShortfallSaysBusbwAndNodes) {
  const std::string dir = healthy_fleet(h200x2_default_run(), 3);
  const Expectations e = load_expectations(write_baseline(dir, 0.1), method_catalog());
  RunDocument later = as_node(h200x2_default_run(), "later");
  slow(later, "nccl-allreduce", 0.5);
  std::string why;
  for (const auto& v : compute_verdicts(later, e)) {
    for (const auto& f : v.flags)
      if (f.code == "off-baseline" && f.method == "nccl-allreduce") why = f.message;
  }
  EXPECT_NE(why.find(" busbw GB/s at 1 GiB over all ranks, worse than the site's "),
            std::string::npos)
      << why;
  EXPECT_NE(why.find(" busbw GB/s of 3 nodes (NVIDIA H200, all 2 GPUs)"), std::string::npos) << why;
}

// From an audit: `fleet --expect` with a baseline that matched no node said "PASS: all 4 nodes
// pass" and never named the baseline.
TEST(SiteBaseline, AFleetSaysWhichNodesTheBaselineJudgedNothingOf) {
  const std::string dir = healthy_fleet(h200x2_default_run(), 3);
  const std::string base = write_baseline(dir, 0.1);
  test::NodeSpec four;
  four.gpus = 4;
  RunDocument d = test::make_doc(four);
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b)
      if (a != b) d.results.push_back(test::bw_result("ce-write", a, b, 1ull << 30, 395));
  const std::string other = fresh_temp_dir();
  write_run(other, "big0", as_node(d, "big0"));
  write_run(other, "big1", as_node(d, "big1"));
  FleetOptions o;
  o.paths = {other};
  o.expect_path = base;
  const FleetReport r = build_fleet(o, method_catalog());
  const std::string text = test::flat(make_fleet_reporter(FleetFormat::kText)->render(r, {}));
  EXPECT_NE(
      text.find(test::flat("the site baseline (" + base +
                           ") judged no figure on 2 of 2 nodes (big0, big1): its entries are for "
                           "NVIDIA H200 over 2 ranks")),
      std::string::npos)
      << text.substr(0, 600);
  o.paths = {dir};  // the nodes it came from: judged
  EXPECT_TRUE(build_fleet(o, method_catalog()).baseline_unused.empty());
}

// From an audit: an entry naming a method that does not exist, or holding its figure in a unit
// its method is not judged in at that size, matched no case and so switched the site's bar off
// without a word; unknown keys (typos) passed too.
TEST(SiteBaseline, AnEntryThatCanMatchNothingIsRefused) {
  const std::string dir = healthy_fleet(h200x2_default_run(), 3);
  const auto good = make_baseline(fleet_of(dir), 0.1, "now");
  const auto refusal = [](const nlohmann::json& j) -> std::string {
    try {
      expectations_from_json(j, "site.json", method_catalog());
      return "(read)";
    } catch (const InputError& e) {
      return e.what();
    }
  };
  EXPECT_EQ(refusal(good), "(read)");
  std::size_t ce = 0;
  while (good["baseline"]["entries"][ce]["method"] != "ce-write") ++ce;
  const std::string at = "baseline.entries[" + std::to_string(ce) + "]";
  auto j = good;
  j["baseline"]["entries"][ce]["method"] = "ce-wrte";
  EXPECT_NE(refusal(j).find(at + ".method': unknown method 'ce-wrte'"), std::string::npos)
      << refusal(j);
  j = good;
  j["baseline"]["entries"][ce]["unit"] = "us";
  EXPECT_NE(refusal(j).find(at + ".unit': 'us' does not fit ce-write"), std::string::npos)
      << refusal(j);
  j = good;
  j["baseline"]["entries"][ce]["tolerence"] = 0.2;
  EXPECT_NE(refusal(j).find("unknown key 'tolerence'"), std::string::npos) << refusal(j);
  j = good;
  j["baseline"]["entires"] = j["baseline"]["entries"];
  EXPECT_NE(refusal(j).find("unknown key 'entires'"), std::string::npos) << refusal(j);
  // From an audit: a second entry for one case (bar 500 against a median of 396) and a tolerance
  // of -3 were read without a word.
  j = good;
  auto twin = j["baseline"]["entries"][ce];
  twin["bar"] = 300;
  j["baseline"]["entries"].push_back(twin);
  const std::string last =
      "baseline.entries[" + std::to_string(j["baseline"]["entries"].size() - 1) + "]";
  EXPECT_NE(refusal(j).find(last + "': the same case as entries[" + std::to_string(ce) +
                            "] (ce-write at "),
            std::string::npos)
      << refusal(j);
  EXPECT_NE(refusal(j).find("one bar per case; keep one"), std::string::npos) << refusal(j);
  j = good;
  j["baseline"]["tolerance"] = -3;
  EXPECT_NE(refusal(j).find("baseline.tolerance"), std::string::npos) << refusal(j);
  // From an audit: a bar edited past its own median (1.5 x) flagged the healthy node it came
  // from; an empty list of entries judged nothing, and no report named the baseline.
  j = good;
  j["baseline"]["entries"][ce]["bar"] = 1.5 * j["baseline"]["entries"][ce]["median"].get<double>();
  EXPECT_NE(refusal(j).find(at + ".bar': 595.357 GB/s is over the entry's median 396.905"),
            std::string::npos)
      << refusal(j);
  j = good;
  std::size_t lat = 0;
  while (good["baseline"]["entries"][lat]["unit"] != "us") ++lat;
  j["baseline"]["entries"][lat]["bar"] =
      0.5 * j["baseline"]["entries"][lat]["median"].get<double>();
  EXPECT_NE(refusal(j).find("is under the entry's median"), std::string::npos) << refusal(j);
  j = good;
  j["baseline"]["entries"][ce]["bar"] = 1;  // looser than the fleet: the site's choice
  EXPECT_EQ(refusal(j), "(read)");
  // From an audit: entries of one node, or of two pairs, were read and judged; the writer keeps
  // none such.
  j = good;
  j["baseline"]["entries"][ce]["nodes"] = 1;
  EXPECT_NE(refusal(j).find(at + ".nodes'"), std::string::npos) << refusal(j);
  j = good;
  j["baseline"]["entries"][ce]["pairs"] = 2;
  EXPECT_NE(refusal(j).find(at + ".pairs'"), std::string::npos) << refusal(j);
  // An entry kept for the run's own driver judges before one for any driver with more pairs (a
  // stricter driver entry lost to the version-less one; an audit).
  j = good;
  auto mine = j["baseline"]["entries"][ce];
  const RunVersions v = run_versions(h200x2_default_run());
  mine["driver"] = v.driver;
  mine["pairs"] = 3;
  mine["bar"] = mine["median"].get<double>() - 1;
  j["baseline"]["entries"].push_back(mine);
  const auto e = expectations_from_json(j, "site.json", method_catalog());
  const auto& any = e.baseline[ce];
  BaselineQuery q{any.model, any.link, any.group, any.method, any.bytes, any.ranks, v};
  ASSERT_NE(find_baseline(e.baseline, q), nullptr);
  EXPECT_EQ(find_baseline(e.baseline, q)->driver, v.driver);
  q.versions.driver = "999.1";
  EXPECT_EQ(find_baseline(e.baseline, q), &any) << "another driver meets the one for any";
  for (const auto& [key, value] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"from", "yesterday"}, {"per_version", "yes"}, {"written_at", 5}}) {
    j = good;
    j["baseline"][key] = value;
    EXPECT_NE(refusal(j).find("baseline." + key + "'"), std::string::npos) << refusal(j);
  }
  j = good;
  j["baseline"]["entries"] = nlohmann::json::array();
  EXPECT_NE(refusal(j).find("baseline.entries': no entries"), std::string::npos) << refusal(j);
}

}  // namespace
}  // namespace peerbench

// ---- Runs under other settings, and the repeats that settled a verdict (an audit of compare,
// fleet and site baselines).
namespace peerbench {
namespace {

RunDocument collectives_r0() {
  return load_run_file(std::string(PEERBENCH_SOURCE_DIR) +
                       "/results/examples/h200x2-collectives.json");
}
RunDocument symmetric_r2() {
  return load_run_file(run_fixture_path("h200x2-symmetric-R2.json"));
}

// The same node under -R 2 -a 1 (NCCL's symmetric kernels: 257 GB/s all-reduce at 4 GiB against
// 346 under -R 0) was called 4 regressions, exit 1. The settings differ: no row is compared.
TEST(CompareSettings, RunsUnderOtherSettingsAreNotComparedButSaidToDiffer) {
  CompareOptions o;
  const Comparison c = compare_runs(collectives_r0(), "a.json", symmetric_r2(), "b.json", o);
  EXPECT_EQ(c.regressions, 0);
  EXPECT_EQ(c.improvements, 0);
  ASSERT_FALSE(c.rows.empty());
  EXPECT_EQ(c.other_settings, static_cast<int>(c.rows.size()));
  for (const auto& r : c.rows) EXPECT_EQ(r.change, "other-settings") << r.method << r.bytes;
  const auto said = std::find(c.differences.begin(), c.differences.end(),
                              "settings that change the figures: defaults (-R 0 -a 3 -z 0) -> "
                              "-R 2 -a 1");
  EXPECT_NE(said, c.differences.end()) << "the older file reads as the defaults it ran with";
  EXPECT_EQ(comparison_exit_code(c, o), kExitOk);
  const std::string text = render_comparison(c, "a.json", "b.json", o);
  EXPECT_NE(text.find("0 compared; " + std::to_string(c.rows.size()) +
                      " not compared: measured under other settings"),
            std::string::npos)
      << text.substr(0, 300);
}

// -R touches NCCL only: copy-engine rows of an -R 2 run still compare with an -R 0 run's.
TEST(CompareSettings, RegistrationLeavesCopiesComparable) {
  RunDocument a = h200x2_default_run(), b = h200x2_default_run();
  b.config["local_register"] = 2;
  CompareOptions o;
  const Comparison c = compare_runs(a, "a.json", b, "b.json", o);
  int copies = 0, nccl = 0;
  for (const auto& r : c.rows) {
    if (r.method.rfind("ce-", 0) == 0) {
      EXPECT_EQ(r.change, "same") << r.method;
      ++copies;
    } else if (r.method.rfind("nccl-", 0) == 0) {
      EXPECT_EQ(r.change, "other-settings") << r.method;
      ++nccl;
    }
  }
  EXPECT_GT(copies, 0);
  EXPECT_GT(nccl, 0);
}

// -G captures nothing of staged (graph_capturable false): a -G run's staged figures compare with
// a run's without -G, its copies' do not (an audit: every staged row read "other settings").
TEST(CompareSettings, AGraphLeavesMethodsItCannotCaptureComparable) {
  RunDocument a = h200x2_default_run(), b = h200x2_default_run();
  b.config["cudagraph_replays"] = 10;
  const Comparison c = compare_runs(a, "a.json", b, "b.json", CompareOptions{});
  int staged = 0, copies = 0;
  for (const auto& r : c.rows) {
    if (r.method == "staged") {
      EXPECT_EQ(r.change, "same") << r.bytes;
      ++staged;
    } else if (r.method == "ce-write") {
      EXPECT_EQ(r.change, "other-settings") << r.bytes;
      ++copies;
    }
  }
  EXPECT_GT(staged, 0);
  EXPECT_GT(copies, 0);
}

// -a combines ranks' times: a one-sided copy one rank times ran as without it, and compares;
// NCCL's figures (both ends, or every rank) do not (a review). The fixture predates the methods'
// `workers` key: it reads as the catalog makes each method.
TEST(CompareSettings, AverageOverRanksLeavesOneRankMethodsComparable) {
  const auto catalog = method_catalog();
  for (const auto& m : h200x2_default_run().methods) {
    const MethodInfo* c = find_method(catalog, m.name);
    ASSERT_NE(c, nullptr) << m.name;
    EXPECT_EQ(m.workers, c->workers) << m.name;
  }
  RunDocument a = h200x2_default_run(), b = h200x2_default_run();
  b.config["average"] = 1;
  const Comparison c = compare_runs(a, "a.json", b, "b.json", CompareOptions{});
  std::set<std::string> same, other;
  for (const auto& r : c.rows) (r.change == "other-settings" ? other : same).insert(r.method);
  for (const char* m : {"ce-write", "ce-read", "sm-write", "sm-read", "ce-latency"})
    EXPECT_TRUE(same.count(m) && !other.count(m)) << m;
  for (const char* m : {"ce-bidir", "nccl-sendrecv", "nccl-sendrecv-bidir", "sm-latency", "staged"})
    EXPECT_TRUE(other.count(m) && !same.count(m)) << m;
}

// A first measurement 25 % slow whose confirmation repeat measured the usual figure: the run's
// verdict passes on the repeat, and compare and the fleet now take the repeat too (before: a
// REGRESSION, exit 1, and a fleet outlier).
RunDocument transient_then_repeat(const RunDocument& d, const std::string& method) {
  RunDocument t = d;
  for (auto& r : t.results) {
    if (r.method != method || r.status != ResultStatus::kOk || r.bytes != (4ull << 30)) continue;
    Result repeat = r;
    repeat.attempt = static_cast<int>(t.confirmations.size()) + 1;
    scale(r.algbw_gbps, 0.75);
    scale(r.busbw_gbps, 0.75);
    scale(r.time_us, 1 / 0.75);
    t.confirmations.push_back(repeat);
  }
  return t;
}

TEST(CompareSettings, TheRepeatThatSettledAVerdictIsTheFigureCompared) {
  const RunDocument a = symmetric_r2();
  const RunDocument b = transient_then_repeat(a, "nccl-sendrecv-ring");
  CompareOptions o;
  const Comparison c = compare_runs(a, "a.json", b, "b.json", o);
  EXPECT_EQ(c.regressions, 0);
  bool ring = false;
  for (const auto& r : c.rows) {
    if (r.method.rfind("nccl-sendrecv-ring", 0) != 0 || r.bytes != (4ull << 30)) continue;
    ring = true;
    EXPECT_EQ(r.change, "same");
    EXPECT_NEAR(r.ratio, 1.0, 1e-9);
  }
  EXPECT_TRUE(ring);
  const auto vs = compute_verdicts(b, {});
  ASSERT_FALSE(vs.empty());
  EXPECT_EQ(vs.back().verdict, "pass");
  for (const auto& m : vs.back().methods) {
    if (m.method == "nccl-sendrecv-ring" && m.expected_ratio)
      EXPECT_GT(*m.expected_ratio, 0.95) << "the ratio of the figure shown, not of the first";
  }
}

// -R touches NCCL only: a node run under -R 1 has its copies judged by the -R 0 fleet's
// baseline (they fell in a group "NV18, -R 1" that no entry matched: a 12 % slow ce-write passed,
// review), while its NCCL cases meet no -R 0 entry.
TEST(FleetSettings, RegistrationKeepsCopiesInTheirGroupAndBaseline) {
  const std::string dir = healthy_fleet(h200x2_default_run(), 4);
  const std::string path = write_baseline(dir, 0.1);
  const Expectations e = load_expectations(path, method_catalog());
  RunDocument r1 = as_node(h200x2_default_run(), "r1");
  r1.config["local_register"] = 1;
  slow(r1, "ce-write", 0.88);
  bool flagged = false;
  for (const auto& v : compute_verdicts(r1, e)) {
    for (const auto& m : v.methods) {
      if (m.method == "ce-write" && m.bar) EXPECT_EQ(m.bar_source, kBarSiteBaseline);
      if (m.method.rfind("nccl-", 0) == 0 && m.bar) EXPECT_NE(m.bar_source, kBarSiteBaseline);
    }
    for (const auto& f : v.flags) flagged |= f.code == "off-baseline" && f.method == "ce-write";
  }
  EXPECT_TRUE(flagged);
  // The bars line names the figures without an entry (it said "4 had no entry" and no more).
  const std::string line = bars_used_line(r1, compute_verdicts(r1, e), e);
  EXPECT_NE(
      line.find("had no entry in the site baseline (" + path + "): nccl-sendrecv 0->1 at 1 GiB"),
      std::string::npos)
      << line;
  write_run(dir, "r1", r1);
  const FleetReport r = fleet_of(dir);
  for (const auto& p : node(r, "r1").pairs) {
    if (p.src_pci == "all") continue;
    EXPECT_EQ(p.group_of("ce-write"), "NV18");
    EXPECT_EQ(p.group_of("nccl-sendrecv"), "NV18, -R 1");
  }
}

// A repeat made of a case that passed on its plan's measurement (the faster direction of a pair
// suspected of asymmetry is repeated too) did not settle anything: compare and the fleet keep
// the plan's figure (review: a half-speed repeat read as a regression of a passing pair).
TEST(CompareSettings, ARepeatThatSettledNothingIsNotTheFigure) {
  const RunDocument a = h200x2_default_run();
  RunDocument b = a;
  for (const auto& r : a.results) {
    if (r.method != "ce-write" || r.src != 0 || r.bytes != (1ull << 30)) continue;
    Result repeat = r;
    repeat.attempt = 1;
    scale(repeat.algbw_gbps, 0.5);
    scale(repeat.busbw_gbps, 0.5);
    scale(repeat.time_us, 2);
    b.confirmations.push_back(repeat);
  }
  ASSERT_EQ(b.confirmations.size(), 1u);
  b.config["confirm"] = 1;
  const Comparison c = compare_runs(a, "a.json", b, "b.json", {});
  EXPECT_EQ(c.regressions, 0);
  const std::string dir = healthy_fleet(h200x2_default_run(), 5);
  write_run(dir, "rep", as_node(b, "rep"));
  const FleetReport r = fleet_of(dir);
  EXPECT_FALSE(has_flag(node(r, "rep"), "fleet-outlier", "ce-write"));
}

// A fleet of -R 0 nodes and one -R 2 node: the -R 2 node is in a group of its own (before: a
// fleet outlier at 0.74 of the median), and the -R 0 nodes' site baseline judges no -R 2 case
// (before: a healthy -R 2 node failed it, off-baseline). A -z 1 node's launch-bound figures stay
// out of the fleet's figures; a transient its repeat cleared is no outlier.
TEST(FleetSettings, SettingsSplitGroupsAndBaselinesAndRepeatsSettleFigures) {
  const std::string dir = healthy_fleet(collectives_r0(), 4);
  nlohmann::json file = make_baseline(fleet_of(dir), 0.1, "now");
  const std::string base = dir + "/../base-" + std::to_string(::getpid()) + ".json";
  write_text(base, file.dump(2));

  write_run(dir, "r2", as_node(symmetric_r2(), "r2"));
  const auto blocking = [](const std::string& host) {
    RunDocument d = as_node(collectives_r0(), host);
    d.config["blocking"] = 1;
    for (auto& r : d.results) {
      r.enqueue.emplace();
      r.enqueue->launch_bound = true;
      r.enqueue->note = "blocking mode (-z 1)";
    }
    return d;
  };
  RunDocument z1 = blocking("z1");
  slow(z1, "nccl-allreduce", 0.8);
  write_run(dir, "z1", z1);
  write_run(dir, "tr", as_node(transient_then_repeat(collectives_r0(), "nccl-allreduce"), "tr"));
  const FleetReport r = fleet_of(dir);
  // It ran two of the fleet's seven collectives: not flagged, but not shown healthy either.
  EXPECT_EQ(node(r, "r2").state, NodeState::kIncomplete);
  EXPECT_EQ(node(r, "r2").flag_count(), 0);
  ASSERT_EQ(node(r, "r2").problems.size(), 1u);
  EXPECT_EQ(node(r, "r2").problems[0],
            "did not run nccl-allgather, nccl-alltoall, nccl-broadcast, nccl-reduce, "
            "nccl-reducescatter (5 methods run on at least 6 of the fleet's 7 NVIDIA H200 nodes): "
            "run the node as they were run");
  EXPECT_FALSE(has_flag(node(r, "r2"), "fleet-outlier", "nccl-allreduce"));
  for (const auto& p : node(r, "r2").pairs) EXPECT_NE(p.link.find("-R 2 -a 1"), std::string::npos);
  // Under -z every figure is launch-bound: they stay, in a -z group of their own (a -z fleet
  // would otherwise show nothing and every node read incomplete). Alone in it, nothing judged the
  // node: it is incomplete (it passed before; an audit).
  EXPECT_FALSE(has_flag(node(r, "z1"), "fleet-outlier", "nccl-allreduce"));
  EXPECT_EQ(node(r, "z1").state, NodeState::kIncomplete);
  ASSERT_FALSE(node(r, "z1").problems.empty());
  EXPECT_NE(node(r, "z1").problems.back().find("its figures' fleet groups hold fewer than 3 pairs"),
            std::string::npos)
      << node(r, "z1").problems.back();
  for (const auto& p : node(r, "z1").pairs) {
    EXPECT_FALSE(p.measurements.empty()) << p.link;
    EXPECT_NE(p.group_of("nccl-allreduce").find("-z 1"), std::string::npos) << p.link;
  }
  // Three -z nodes judge one another: the slow one is the outlier, the others pass.
  const std::string zdir = fresh_temp_dir();
  write_run(zdir, "z1", z1);
  for (const std::string host : {"z2", "z3", "z4"}) write_run(zdir, host, blocking(host));
  const FleetReport zr = fleet_of(zdir);
  EXPECT_TRUE(has_flag(node(zr, "z1"), "fleet-outlier", "nccl-allreduce"));
  for (const std::string host : {"z2", "z3", "z4"})
    EXPECT_EQ(node(zr, host).state, NodeState::kPass) << host;
  EXPECT_FALSE(has_flag(node(r, "tr"), "fleet-outlier", "nccl-allreduce"));
  EXPECT_EQ(node(r, "tr").state, NodeState::kPass);

  const Expectations e = load_expectations(base, method_catalog());
  const RunDocument r2 = symmetric_r2();
  const auto vs = compute_verdicts(r2, e);
  EXPECT_EQ(verdict_exit_code(vs, "all"), kExitOk);
  for (const auto& v : vs)
    for (const auto& m : v.methods) EXPECT_NE(m.bar_source, kBarSiteBaseline) << m.method;
  EXPECT_NE(bars_used_line(r2, vs, e).find("judged none"), std::string::npos);
  // The -R 0 nodes themselves are judged by it.
  const auto own = compute_verdicts(collectives_r0(), e);
  EXPECT_NE(bars_used_line(collectives_r0(), own, e).find("by site baseline"), std::string::npos);
  std::remove(base.c_str());
}

}  // namespace
}  // namespace peerbench

namespace peerbench {
namespace {

RunDocument only_method(RunDocument d, const std::string& method) {
  d.results.erase(std::remove_if(d.results.begin(), d.results.end(),
                                 [&](const Result& r) { return r.method != method; }),
                  d.results.end());
  d.config["methods"] = {method};
  return d;
}

// From audits: a node run with one method of the fleet's twelve passed beside nodes that ran
// them all, and so did a node run on one direction of its pair, and one run on 2 of its 4 GPUs.
// Each is incomplete and says what it left out; a node that ran an extra method leaves nobody
// else incomplete, and --pairs naming every pair is no shortfall.
TEST(FleetCoverage, ANodeThatRanLessThanTheFleetOrItsOwnGpusIsIncomplete) {
  const std::string dir = healthy_fleet(h200x2_default_run(), 3);
  write_run(dir, "one", as_node(only_method(h200x2_default_run(), "ce-write"), "one"));
  RunDocument way = as_node(h200x2_default_run(), "way");
  way.config["pairs"] = "0>1";
  way.results.erase(std::remove_if(way.results.begin(), way.results.end(),
                                   [](const Result& r) { return r.src == 1 && r.dst == 0; }),
                    way.results.end());
  write_run(dir, "way", way);
  RunDocument both = as_node(h200x2_default_run(), "both");
  both.config["pairs"] = "0-1";
  write_run(dir, "both", both);
  RunDocument half = as_node(h200x2_default_run(), "half");
  for (int i = 0; i < 2; ++i)
    half.topology->hosts[0].gpus.push_back(half.topology->hosts[0].gpus[0]);
  write_run(dir, "half", half);
  RunDocument extra = as_node(h200x2_default_run(), "extra");
  const RunDocument collectives = load_run_file(std::string(PEERBENCH_SOURCE_DIR) +
                                                "/results/examples/h200x2-collectives.json");
  for (const auto& r : collectives.results)
    if (r.method == "nccl-alltoall") extra.results.push_back(r);
  extra.methods.push_back(*find_method(collectives.methods, "nccl-alltoall"));
  extra.config["methods"].push_back("nccl-alltoall");
  write_run(dir, "extra", extra);

  const FleetReport r = fleet_of(dir);
  const auto only_problem = [&](const std::string& host) {
    const FleetNode& n = node(r, host);
    EXPECT_EQ(n.state, NodeState::kIncomplete) << host;
    EXPECT_EQ(n.flag_count(), 0) << host;
    EXPECT_EQ(n.problems.size(), 1u) << host;
    return n.problems.empty() ? std::string() : n.problems[0];
  };
  EXPECT_EQ(only_problem("one"),
            "did not run ce-bidir, ce-latency, ce-read, nccl-allreduce, nccl-sendrecv, "
            "nccl-sendrecv-bidir and 5 more (11 methods run on at least 7 of the fleet's 8 NVIDIA "
            "H200 nodes): run the node as they were run");
  EXPECT_EQ(only_problem("way"),
            "measured fewer pairs than its 2 GPUs make: ce-latency 1 of 2, ce-read 1 of 2, "
            "ce-write 1 of 2, nccl-sendrecv 1 of 2 and 4 more (--pairs 0>1)");
  EXPECT_EQ(only_problem("half"), "ran on 2 of the 4 GPUs its topology lists");
  // Bidirectional methods record one result per unordered pair: both ways answered.
  write_run(dir, "bidir", as_node(only_method(h200x2_default_run(), "ce-bidir"), "bidir"));
  const FleetReport with_bidir = fleet_of(dir);
  const auto& bidir_problems = node(with_bidir, "bidir").problems;
  ASSERT_EQ(bidir_problems.size(), 1u);
  EXPECT_EQ(bidir_problems[0].rfind("did not run ", 0), 0u) << bidir_problems[0];
  for (const std::string host : {"n0", "n1", "n2", "both", "extra"}) {
    EXPECT_EQ(node(r, host).state, NodeState::kPass) << host;
    EXPECT_TRUE(node(r, host).problems.empty()) << host << ": " << node(r, host).problems[0];
  }
  EXPECT_EQ(fleet_exit_code(r), kExitFlagged);
}

// From an audit: two runs of one host with the same start time counted the one whose file sorted
// later, so a flagged run hid behind a healthy one by its name; and one file reached twice (given,
// and in a folder given) counted as a rerun of its own host.
TEST(FleetHonesty, RunsOfOneHostThatStartedTogetherLeaveItIncompleteAndOneFileIsOneRun) {
  const std::string dir = healthy_fleet(h200x2_default_run(), 3);
  RunDocument slower = as_node(h200x2_default_run(), "n0");
  slow(slower, "ce-write", 0.5);
  write_run(dir, "a-slow", slower);
  const FleetReport r = fleet_of(dir);
  const FleetNode& n0 = node(r, "n0");
  // Incomplete whichever file sorts first: the slow copy ("a-slow") had been judged as flagged.
  EXPECT_EQ(n0.state, NodeState::kIncomplete);
  EXPECT_TRUE(n0.pairs.empty());
  EXPECT_FALSE(n0.has_ratio);
  ASSERT_FALSE(n0.problems.empty());
  EXPECT_NE(n0.problems[0].find("both started at " + h200x2_default_run().started_at +
                                ": which is later cannot be told; keep one"),
            std::string::npos)
      << n0.problems[0];

  const std::string two = healthy_fleet(h200x2_default_run(), 3);
  FleetOptions o;
  o.paths = {two, two + "/n1.json"};
  const FleetReport twice = build_fleet(o, method_catalog());
  EXPECT_EQ(twice.nodes.size(), 3u);
  EXPECT_TRUE(twice.earlier_runs.empty());
  EXPECT_TRUE(twice.notes.empty()) << twice.notes[0];
  EXPECT_EQ(fleet_exit_code(twice), kExitOk);
}

// From audits: `topo --json` output, or the fleet's own --write-baseline file, in the folder of
// runs made a phantom incomplete node that failed the fleet. They are named and not counted; a
// file that is no peerbench file at all stays an unreadable node.
TEST(FleetHonesty, TopologyAndBaselineFilesBesideTheRunsAreNotNodes) {
  const std::string dir = healthy_fleet(h200x2_default_run(), 3);
  write_baseline(dir, 0.1);
  std::filesystem::copy_file(run_fixture_path("h200x2/topo.json"), dir + "/topo.json");
  FleetReport r = fleet_of(dir);
  EXPECT_EQ(r.nodes.size(), 3u);
  EXPECT_EQ(fleet_exit_code(r), kExitOk);
  ASSERT_EQ(r.notes.size(), 2u);
  EXPECT_NE(r.notes[0].find("base.json is a site baseline (--write-baseline; give it as --expect), "
                            "not a run: not counted"),
            std::string::npos)
      << r.notes[0];
  EXPECT_NE(r.notes[1].find("topo.json is a topology file (topo --json), not a run: not counted"),
            std::string::npos)
      << r.notes[1];
  write_text(dir + "/other.json", "{\"kind\": \"something\"}");
  r = fleet_of(dir);
  EXPECT_EQ(node(r, "other").state, NodeState::kIncomplete);
  // A folder of no runs at all read "PASS: all 0 nodes pass" (a review).
  const std::string none = fresh_temp_dir();
  std::filesystem::copy_file(run_fixture_path("h200x2/topo.json"), none + "/topo.json");
  try {
    fleet_of(none);
    ADD_FAILURE() << "a fleet of no runs";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("fleet: no runs among the 1 *.json files"),
              std::string::npos)
        << e.what();
  }
}

// Three copies of one run under three host names passed as three nodes (an audit): nodes that
// name the same GPU UUIDs are said to be one machine's results, on the verdict line and in Notes.
TEST(FleetHonesty, NodesThatNameTheSameGpusAreNotIndependent) {
  const std::string dir = fresh_temp_dir();
  for (const char* h : {"a1", "a2", "a3", "b1"}) {
    RunDocument d = as_node(h200x2_default_run(), h);
    if (h[0] == 'a') {  // the a-nodes: one machine's GPUs under three names
      for (auto& r : d.system.ranks)
        r.gpu.uuid = h200x2_default_run().system.ranks[r.rank].gpu.uuid;
    }
    write_run(dir, h, d);
  }
  const FleetReport r = fleet_of(dir);
  EXPECT_EQ(r.nodes_sharing_gpus, 3);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.notes[0].rfind("a1, a2, a3 name the same GPUs (", 0), 0u) << r.notes[0];
  EXPECT_EQ(fleet_exit_code(r), kExitOk) << "a note: PEERBENCH_HOST_ID fleets are legitimate";
  const std::string text = make_fleet_reporter(FleetFormat::kText)->render(r, {});
  EXPECT_NE(text.find("; 3 nodes name GPUs another names too (same UUIDs): not independent, see "
                      "Notes"),
            std::string::npos)
      << text.substr(0, 300);
  EXPECT_EQ(fleet_of(healthy_fleet(h200x2_default_run(), 3)).nodes_sharing_gpus, 0);
}

// The same, for CI: the JUnit suite, the CSV rows and OpenMetrics name the nodes that share GPUs
// (only text, Markdown and HTML had said so; the machine formats read as independent nodes).
TEST(FleetHonesty, MachineFormatsNameTheNodesThatShareGpus) {
  const std::string dir = fresh_temp_dir();
  for (const char* h : {"a1", "a2", "b1"}) {
    RunDocument d = as_node(h200x2_default_run(), h);
    if (h[0] == 'a') {
      for (auto& r : d.system.ranks)
        r.gpu.uuid = h200x2_default_run().system.ranks[r.rank].gpu.uuid;
    }
    write_run(dir, h, d);
  }
  const FleetReport r = fleet_of(dir);
  const std::string junit = make_fleet_reporter(FleetFormat::kJunit)->render(r, {});
  EXPECT_NE(junit.find("<property name=\"shares_gpus_with\" value=\"a2\"/>"), std::string::npos);
  EXPECT_NE(junit.find("<property name=\"shares_gpus_with\" value=\"a1\"/>"), std::string::npos);
  EXPECT_EQ(junit.find("<property name=\"shares_gpus_with\" value=\"b1"), std::string::npos);
  const std::string om = make_fleet_reporter(FleetFormat::kOpenMetrics)->render(r, {});
  EXPECT_NE(om.find("peerbench_node_hosts_sharing_gpus{host=\"a1\"} 1\n"), std::string::npos);
  EXPECT_NE(om.find("peerbench_node_hosts_sharing_gpus{host=\"b1\"} 0\n"), std::string::npos);
  const auto rows = split(make_fleet_reporter(FleetFormat::kCsv)->render(r, {}), '\n');
  int a1 = 0, b1 = 0;
  for (const auto& row : rows) {
    if (row.rfind("a1,", 0) == 0) a1 += row.substr(row.size() - 3) == ",a2";
    if (row.rfind("b1,", 0) == 0) b1 += row.back() == ',';
  }
  EXPECT_GT(a1, 0);
  EXPECT_GT(b1, 0);
}

// A run collected twice (a copy in a backup folder) is one run, not two that started together.
TEST(FleetHonesty, TwoCopiesOfOneRunCountOnce) {
  const std::string dir = healthy_fleet(h200x2_default_run(), 3);
  std::filesystem::create_directory(dir + "/backup");
  std::filesystem::copy_file(dir + "/n1.json", dir + "/backup/n1.json");
  const FleetReport r = fleet_of(dir);
  EXPECT_EQ(node(r, "n1").state, NodeState::kPass);
  EXPECT_EQ(fleet_exit_code(r), kExitOk);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("hold the same run (a copy); counted once"), std::string::npos)
      << r.notes[0];
}

// From an audit: a node whose all-reduce ran at -d half (or -o prod) was set beside float/sum
// nodes and called a 0.6 fleet outlier, and a float/sum site baseline judged it. The type and
// reduction a figure was judged at are part of its group.
TEST(FleetSettings, AnotherElementTypeIsAGroupOfItsOwn) {
  const std::string dir = healthy_fleet(h200x2_default_run(), 4);
  const std::string base = write_baseline(dir, 0.1);
  RunDocument half = as_node(h200x2_default_run(), "half");
  half.config["datatypes"] = {"half"};
  for (auto& r : half.results)
    if (r.method == "nccl-allreduce") r.datatype = "half";
  slow(half, "nccl-allreduce", 0.6);
  write_run(dir, "half", half);
  const FleetReport r = fleet_of(dir);  // base.json beside the runs is a note, not a node
  EXPECT_FALSE(has_flag(node(r, "half"), "fleet-outlier", "nccl-allreduce"));
  bool grouped = false;
  for (const auto& p : node(r, "half").pairs)
    if (p.src_pci == "all") grouped = p.group_of("nccl-allreduce") == "all 2 GPUs, -d half";
  EXPECT_TRUE(grouped);
  const Expectations e = load_expectations(base, method_catalog());
  for (const auto& v : compute_verdicts(half, e))
    for (const auto& m : v.methods)
      if (m.method == "nccl-allreduce") EXPECT_NE(m.bar_source, kBarSiteBaseline);
  // Nor are the known-good figures (float/sum runs') its bar: it was called below-expected. The
  // link-rate rule still holds it (0.6 of a healthy figure is under it).
  for (const auto& v : compute_verdicts(half, {})) {
    for (const auto& f : v.flags) EXPECT_NE(f.code, "below-expected") << f.message;
    for (const auto& m : v.methods)
      if (m.method == "nccl-allreduce") EXPECT_NE(m.bar_source, kBarKnownGood);
  }
}

// Half the fleet ran copies, half kernels: no method was run by most, and every node is short of
// what half of them ran; the message says half, not most (an audit).
TEST(FleetCoverage, ATieLeavesEveryNodeThatRanLessIncompleteAndSaysHowMany) {
  const std::string dir = fresh_temp_dir();
  for (int i = 0; i < 4; ++i) {
    const std::string host = "n" + std::to_string(i);
    write_run(dir, host,
              as_node(only_method(h200x2_default_run(), i < 2 ? "ce-write" : "sm-write"), host));
  }
  const FleetReport r = fleet_of(dir);
  for (const auto& n : r.nodes) {
    EXPECT_EQ(n.state, NodeState::kIncomplete) << n.host;
    ASSERT_EQ(n.problems.size(), 1u) << n.host;
    EXPECT_NE(n.problems[0].find("(1 method run on at least 2 of the fleet's 4 NVIDIA H200 nodes)"),
              std::string::npos)
        << n.problems[0];
  }
}

}  // namespace
}  // namespace peerbench

namespace peerbench {
namespace {

// From a fleet-readability audit, on a fleet of six healthy nodes, one slowed 30 % throughout,
// one with wrong data, one that ran NCCL over shared memory (the real p2p-disabled run):
//  - the first screen named no node: each node that does not pass is named under the verdict,
//    with what to do first;
//  - wrong data was listed after slow figures: evidence against the hardware comes first;
//  - the shared-memory node's worst ratio read 0.98 (fleet medians at a size it never ran),
//    although its all-reduce ran at 0.10 of known-good: the ratio counts known-good too;
//  - the HTML showed the group statistics twice.
FleetReport audited_fleet() {
  const std::string dir = healthy_fleet(h200x2_default_run(), 6);
  RunDocument slowed = as_node(h200x2_default_run(), "slowed");
  for (const auto* m : {"ce-write", "ce-read", "sm-write", "sm-read", "nccl-sendrecv"})
    slow(slowed, m, 0.7);
  write_run(dir, "slowed", slowed);
  RunDocument corrupt = as_node(h200x2_default_run(), "corrupt");
  for (auto& r : corrupt.results) {
    if (r.method == "ce-write" && r.bytes == (1ull << 30) && r.src == 0) r.wrong = 1234;
  }
  write_run(dir, "corrupt", corrupt);
  write_run(dir, "shm",
            as_node(load_run_file(run_fixture_path("h200x2/p2p-disabled.json")), "shm"));
  return fleet_of(dir);
}

TEST(FleetReadability, FailingNodesNamedFirstHardwareFirstAndRatiosAgainstKnownGood) {
  const FleetReport r = audited_fleet();

  ASSERT_GE(r.nodes.size(), 9u);
  EXPECT_EQ(r.nodes[0].host, "corrupt") << "wrong data first";
  EXPECT_EQ(node(r, "slowed").state, NodeState::kFlagged);
  const auto& shm = node(r, "shm");
  EXPECT_EQ(shm.state, NodeState::kFlagged);
  EXPECT_LT(shm.worst_ratio, 0.2) << "NCCL at about 0.10 of known-good";
  // Its run stopped at 64 MiB: one problem says so, not one per case.
  const auto short_lines =
      std::count_if(shm.problems.begin(), shm.problems.end(), [](const auto& p) {
        return p.find("not measured at the fleet's size") != std::string::npos;
      });
  EXPECT_EQ(short_lines, 1);
  EXPECT_NE(shm.problems.back().find("; its largest: 64 MiB)"), std::string::npos)
      << shm.problems.back();
  EXPECT_NEAR(node(r, "slowed").worst_ratio, 0.7, 0.02);
  EXPECT_GT(node(r, "n0").worst_ratio, 0.95);

  const std::string text = make_fleet_reporter(FleetFormat::kText)->render(r, {});
  const auto lines = split(text, '\n');
  ASSERT_GT(lines.size(), 5u);
  EXPECT_EQ(lines[1].rfind("FAIL: 3 flagged", 0), 0u) << lines[1];
  EXPECT_EQ(lines[2], "  corrupt: flagged: data-errors x1 (evidence against the hardware)");
  // The digest's lines in order, each wrapped to the terminal's width (test::flat joins them).
  const std::string flat = test::flat(text);
  const auto shm_at = flat.find("shm: flagged: nccl-shm x");
  const auto slowed_at = flat.find("slowed: flagged: ");
  ASSERT_NE(shm_at, std::string::npos) << flat;
  ASSERT_NE(slowed_at, std::string::npos) << flat;
  EXPECT_LT(flat.find("corrupt: flagged"), shm_at);
  EXPECT_LT(shm_at, slowed_at);
  EXPECT_NE(flat.find("(traffic off the link: settings and peer access first)", shm_at),
            std::string::npos);
  EXPECT_NE(flat.find("(figures under their bars)", slowed_at), std::string::npos);
  for (const auto& l : lines) EXPECT_LE(l.size(), 120u) << l;
  EXPECT_NE(text.find("sm-latency           NVIDIA H200  NV18         4 B"), std::string::npos)
      << "a size under 1 KiB has its unit";
  // NCCL's figures in the unit their verdicts and known-good figures use.
  bool nccl_row = false;
  for (const auto& l : lines) {
    if (l.rfind("  nccl-sendrecv ", 0) == 0) {
      nccl_row = true;
      EXPECT_EQ(l.substr(l.size() - 11), " busbw GB/s") << l;
    }
  }
  EXPECT_TRUE(nccl_row);
  // One finding per case: the slowed ce-write's below-expected line says it is an outlier too.
  EXPECT_EQ(text.find("[NV18] fleet-outlier ce-write"), std::string::npos);
  const auto kg = text.find("[NV18] below-expected ce-write");
  ASSERT_NE(kg, std::string::npos);
  const auto kg_flat = flat.find("[NV18] below-expected ce-write");
  EXPECT_NE(flat.substr(kg_flat, flat.find("[NV18]", kg_flat + 1) - kg_flat)
                .find("; also a fleet outlier: 0.70"),
            std::string::npos);

  const std::string html = make_fleet_reporter(FleetFormat::kHtml)->render(r, {});
  EXPECT_NE(html.find("<li>corrupt: flagged: data-errors x1"), std::string::npos);
  EXPECT_NE(html.find("<th>group</th>"), std::string::npos) << "the chart's table";
  EXPECT_EQ(html.find("<th>method</th><th>GPU</th><th>link</th><th>size</th>"), std::string::npos)
      << "not the same groups twice";
  const std::string md = make_fleet_reporter(FleetFormat::kMarkdown)->render(r, {});
  EXPECT_NE(md.find("\n- corrupt: flagged: data-errors x1"), std::string::npos);
  EXPECT_NE(md.find("| method | GPU |"), std::string::npos) << "no chart there: the table stays";
}

// CSV (the same audit): NCCL's transport is the pair's flag, not each latency row's; the
// all-reduce flagged at a size the fleet does not judge has a row of its own; every row as long
// as the header.
TEST(FleetReadability, CsvKeepsPairFlagsApartAndRowsForFlagsOutsideGroups) {
  const FleetReport r = audited_fleet();
  const std::string csv = make_fleet_reporter(FleetFormat::kCsv)->render(r, {});
  const auto rows = split(csv, '\n');
  const auto width = split(rows[0], ',').size();
  EXPECT_EQ(rows[0].substr(rows[0].find(",flags,")),
            ",flags,pair_state,pair_flags,reason,driver,cuda,nccl,version_gap,shares_gpus_with");
  int latency = 0, allreduce = 0;
  for (const auto& row : rows) {
    if (row.empty()) continue;
    EXPECT_EQ(csv_fields(row), width) << row;
    if (row.rfind("shm,", 0) != 0) continue;
    if (row.find(",ce-latency,") != std::string::npos) {
      ++latency;
      EXPECT_NE(row.find(",us,"), std::string::npos) << row;
      EXPECT_NE(row.find(",0,,flagged,nccl-shm"), std::string::npos) << "the pair's flag: " << row;
    }
    if (row.find(",nccl-allreduce,") != std::string::npos &&
        row.find("below-expected") != std::string::npos) {
      ++allreduce;
    }
  }
  EXPECT_GT(latency, 0);
  EXPECT_EQ(allreduce, 1) << csv.substr(0, 2000);
}

}  // namespace
}  // namespace peerbench

namespace peerbench {
namespace {

// An audit: four of seven nodes slowed to 0.70 sat on "the fleet median" in the chart while the
// site baseline failed them; the chart showed no bar. Each group's row now carries the one bar
// its verdicts held every member to, here the baseline's, right of the slowed majority.
TEST(FleetReadability, TheChartDrawsTheBarTheVerdictsUsed) {
  const std::string healthy = healthy_fleet(h200x2_default_run(), 3);
  const std::string base = write_baseline(healthy, 0.10);
  const std::string dir = fresh_temp_dir();
  for (int i = 0; i < 7; ++i) {
    RunDocument d = as_node(h200x2_default_run(), "m" + std::to_string(i));
    for (auto& res : d.results) {  // both directions
      if (i < 4 && res.method == "ce-write" && res.status == ResultStatus::kOk) {
        scale(res.algbw_gbps, 0.7);
        scale(res.busbw_gbps, 0.7);
        scale(res.time_us, 1 / 0.7);
      }
    }
    write_run(dir, "m" + std::to_string(i), d);
  }
  FleetOptions o;
  o.paths = {dir};
  o.expect_path = base;
  const FleetReport r = build_fleet(o, method_catalog());
  EXPECT_EQ(r.count(NodeState::kFlagged), 4);
  const svg::StripChart c = fleet_spread_chart(r);
  const svg::StripRow* ce_write = nullptr;
  for (const auto& row : c.rows) {
    if (row.label == "ce-write NV18 @ 1G") ce_write = &row;
  }
  ASSERT_NE(ce_write, nullptr);
  ASSERT_TRUE(ce_write->bar);
  EXPECT_NEAR(*ce_write->bar, 0.9 / 0.7, 0.03) << "the bar right of the slowed median";
  EXPECT_NE(ce_write->bar_detail.find(" GB/s: the site baseline's bar"), std::string::npos)
      << ce_write->bar_detail;
  const std::string svg = svg::render(c);
  EXPECT_NE(svg.find("the bar the verdicts held the group to"), std::string::npos);
  EXPECT_NE(svg.find("<th>verdicts&#39; bar</th>"), std::string::npos);

  // Without a baseline each pair's bar is its known-good figure's; copies on one link share it.
  // The latency bars (5 us against medians of 2.22 and 0.67 us) sit far left: the axis keeps to
  // the figures and the table gives them (a review: every strip was squeezed into a sliver).
  const FleetReport plain = fleet_of(dir);
  const svg::StripChart pc = fleet_spread_chart(plain);
  int checked = 0;
  for (const auto& row : pc.rows) {
    if (row.label == "ce-write NV18 @ 1G") {
      ASSERT_TRUE(row.bar);
      EXPECT_NE(row.bar_detail.find(" GB/s: 85 % of known-good 39"), std::string::npos)
          << row.bar_detail;
      ++checked;
    }
    if (row.label == "sm-latency NV18 @ 4 B") {
      ASSERT_TRUE(row.bar);
      EXPECT_LT(*row.bar, 0.2);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2);
  const std::string plain_svg = svg::render(pc);
  const auto first_tick = plain_svg.find("class=\"tick\">");
  ASSERT_NE(first_tick, std::string::npos);
  EXPECT_EQ(plain_svg.substr(first_tick + 13, 4), "0.80") << "the axis starts near the figures";
  EXPECT_NE(plain_svg.find("(off the scale: 0.13 of the median)"), std::string::npos)
      << "sm-latency's bar: an arrow at the edge";
}

}  // namespace
}  // namespace peerbench
