// The import readers on real outputs (tests/fixtures/imports/README.md cites each): what each
// reads, and the verdicts compute_verdicts gives the documents, as a careful engineer would.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>

#include "core/base/errors.h"
#include "core/import/import.h"
#include "core/import/method_map.h"
#include "core/judge/verdict.h"
#include "core/model/method_catalog.h"
#include "core/platform/input_file.h"
#include "test_fixtures.h"
#include "test_verdicts.h"

namespace peerbench {
namespace {

using test::flag_code_set;
using test::import_fixture_path;

RunDocument imported(const std::string& name) {
  return import_text(read_input_file(import_fixture_path(name), InputKind::kImport),
                     import_fixture_path(name));
}

const Result* at_size(const RunDocument& d, std::uint64_t bytes) {
  for (const auto& r : d.results)
    if (r.bytes == bytes) return &r;
  return nullptr;
}

}  // namespace

TEST(ImportNcclTests, EightH100sInOneProcessPassAgainstTheirKnownGoodCurve) {
  const auto d = imported("nccl-tests-h100-8gpu-g8-allreduce-nvswitch.txt");
  EXPECT_EQ(d.tool.name, "nccl-tests");
  ASSERT_EQ(d.system.ranks.size(), 8u);
  EXPECT_EQ(d.system.hosts, std::vector<std::string>{"node005"});
  EXPECT_EQ(d.system.ranks[7].gpu.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(d.system.ranks[7].gpu.index, 7);
  EXPECT_EQ(d.status, "complete");
  ASSERT_EQ(d.config["methods"], nlohmann::json::array({"nccl-allreduce"}));
  const Result* r = at_size(d, 4294967296ull);
  ASSERT_NE(r, nullptr);
  EXPECT_DOUBLE_EQ(r->busbw_gbps->median, 473.60);  // out of place
  EXPECT_DOUBLE_EQ(r->time_us->median, 15870);
  EXPECT_TRUE(r->checked);
  EXPECT_EQ(r->wrong, 0u);
  EXPECT_EQ(d.config["imported"]["in_place"].back()["busbw_gbps"], 476.53);
  // No topology in the output: the model's 8-GPU board gives every pair NV18.
  ASSERT_TRUE(d.topology.has_value());
  EXPECT_EQ(d.topology->hosts.front().pairs.front().nvlink_count, 18);
  const auto vs = compute_verdicts(d, Expectations{});
  ASSERT_EQ(vs.size(), 1u);
  EXPECT_EQ(vs[0].verdict, "pass");
  EXPECT_EQ(vs[0].methods[0].bar_source, kBarKnownGood);
}

TEST(ImportNcclTests, ShmBetweenGpusOfOneHostIsFlaggedAndACrashBeforeTheTableIncomplete) {
  const auto d = imported("nccl-tests-rtx5090-2gpu-allreduce-shm-crash-info.txt");
  EXPECT_EQ(d.system.nccl_version, "2.25.1+cuda12.8");
  EXPECT_EQ(d.status, "incomplete");
  EXPECT_TRUE(d.results.empty());
  ASSERT_FALSE(d.pairs.empty());
  EXPECT_EQ(d.pairs[0].nccl->kind, "SHM");
  const auto vs = compute_verdicts(d, Expectations{});
  const auto flags = flag_code_set(vs);
  EXPECT_TRUE(flags.count("nccl-shm"));
  // "Using network Socket" is NCCL's choice of network, not a channel: no NET flag.
  EXPECT_FALSE(flags.count("nccl-net"));
  EXPECT_FALSE(flags.count("nccl-net-socket"));
}

TEST(ImportNcclTests, OldFormatWithoutRootColumnOrProgramName) {
  const auto d = imported("nccl-tests-a100-8gpu-g8-allreduce-old-format.txt");
  ASSERT_EQ(d.system.ranks.size(), 8u);
  EXPECT_EQ(d.system.ranks[0].gpu.name, "A100-SXM4-40GB");
  // The program is told from its rows: a sum whose busbw is 2(n-1)/n of algbw.
  EXPECT_EQ(d.config["methods"], nlohmann::json::array({"nccl-allreduce"}));
  const Result* r = at_size(d, 8589934592ull);
  ASSERT_NE(r, nullptr);
  EXPECT_FALSE(r->checked);  // -c 0: N/A
  EXPECT_EQ(r->root, -1);
  EXPECT_EQ(compute_verdicts(d, Expectations{})[0].verdict, "pass");
}

TEST(ImportNcclTests, TwoNodesUnderSrunLabelsAreSixteenRanksOnTwoHosts) {
  const auto d = imported("nccl-tests-h100-2node-16rank-allreduce-srun-label.txt");
  EXPECT_EQ(d.system.ranks.size(), 16u);
  EXPECT_EQ(d.system.hosts.size(), 2u);
  EXPECT_FALSE(d.results.empty());
  const auto vs = compute_verdicts(d, Expectations{});
  ASSERT_EQ(vs.size(), 1u);
  // Across hosts with no NCCL INFO lines and no 16-rank figure: recorded, not judged.
  EXPECT_EQ(vs[0].verdict, "not-judged");
  EXPECT_TRUE(flag_code_set(vs).empty());
}

TEST(ImportNcclTests, WrongElementsAreDataErrors) {
  const auto d = imported("nccl-tests-gh200-2node-2rank-allreduce-wrong-data.txt");
  EXPECT_EQ(d.tool.version, "2.17.8");
  EXPECT_EQ(d.system.ranks[1].gpu.pci_bus_id, "0009:01:00.0");
  EXPECT_TRUE(flag_code_set(compute_verdicts(d, Expectations{})).count("data-errors"));
}

TEST(ImportNcclTests, JsonOfTheSameRunReadsAsItsText) {
  // Derived: the H100 log's rows and devices written in nccl-tests 2.19's -J keys (util.cu).
  const auto text = imported("nccl-tests-h100-8gpu-g8-allreduce-nvswitch.txt");
  // In nccl-tests' own key order (util.cu writes version, start_time, args first).
  nlohmann::ordered_json j;
  j["version"] = 3;
  j["start_time"] = "2025-03-01 00:00:00";
  j["args"] = {"./build/all_reduce_perf", "-g", "8"};
  j["nccl_version"] = 22105;
  j["config"] = {
      {"maximum_bytes", 4294967296ull}, {"iterations", 2}, {"devices", nlohmann::json::array()}};
  for (const auto& r : text.system.ranks)
    j["config"]["devices"].push_back({{"rank", r.rank},
                                      {"hostname", r.host},
                                      {"device", r.gpu.index},
                                      {"device_info", r.gpu.name}});
  for (const auto& r : text.results)
    j["results"].push_back({{"size", r.bytes},
                            {"count", r.bytes / 4},
                            {"type", "float"},
                            {"redop", "sum"},
                            {"root", "    -1"},
                            {"out_of_place",
                             {{"time", r.time_us->median},
                              {"alg_bw", r.algbw_gbps->median},
                              {"bus_bw", r.busbw_gbps->median},
                              {"nwrong", 0}}}});
  j["average_bus_bandwidth"] = {{"bandwidth", 439.369}};
  ASSERT_EQ(detect_format(j.dump()), ImportFormat::kNcclTestsJson);
  const auto d = import_text(j.dump(), "derived.json");
  EXPECT_EQ(d.system.nccl_version, "2.21.5");
  ASSERT_EQ(d.results.size(), text.results.size());
  EXPECT_DOUBLE_EQ(d.results.back().busbw_gbps->median, text.results.back().busbw_gbps->median);
  EXPECT_EQ(compute_verdicts(d, Expectations{})[0].verdict, "pass");
}

TEST(ImportNvbandwidth, EightH100ReadCopiesAreCeReadAtTheVersionsDefaultSize) {
  const auto d = imported("nvbandwidth-h100-8gpu-v0.4-d2d-read-ce-azure.txt");
  EXPECT_EQ(d.tool.version, "v0.4");
  EXPECT_EQ(d.results.size(), 56u);
  EXPECT_EQ(d.results.front().method, "ce-read");
  EXPECT_EQ(d.results.front().bytes, 64ull << 20);
  const auto vs = compute_verdicts(d, Expectations{});
  EXPECT_TRUE(flag_code_set(vs).empty());
  EXPECT_EQ(vs.front().verdict, "pass");
}

TEST(ImportNvbandwidth, AWaivedPeerTestIsNoPeerAccess) {
  const auto d = imported("nvbandwidth-rtx2080ti-2gpu-v0.2-d2d-write-waived.txt");
  EXPECT_EQ(d.system.driver_version, "525.125.06");
  EXPECT_TRUE(flag_code_set(compute_verdicts(d, Expectations{})).count("host-staged"));
}

TEST(ImportNvbandwidth, JsonHostCopiesOfOneGpu) {
  const auto d = imported("nvbandwidth-single-gpu-v0.5-json-all-peer-tests-waived.txt");
  EXPECT_EQ(d.config["imported"]["format"], "nvbandwidth JSON (-j)");
  EXPECT_EQ(d.system.driver_version, "565.02");
  EXPECT_TRUE(d.pairs.empty());  // one GPU: no pair to lack peer access
  EXPECT_TRUE(flag_code_set(compute_verdicts(d, Expectations{})).empty());
}

TEST(ImportP2pBandwidthLatency, ConnectivityZeroWithEqualFiguresIsNoPeerAccess) {
  const auto d = imported("p2p-latency-test-rtx2080ti-2gpu-no-peer-access.txt");
  ASSERT_EQ(d.system.ranks.size(), 2u);
  EXPECT_EQ(d.system.ranks[0].gpu.pci_bus_id, "0000:B4:00.0");
  const auto vs = compute_verdicts(d, Expectations{});
  EXPECT_TRUE(flag_code_set(vs).count("host-staged"));
  for (const auto& r : d.results) {
    if (r.method == "ce-write") EXPECT_EQ(r.status, ResultStatus::kNotApplicable);
    if (r.method == "staged") EXPECT_EQ(r.status, ResultStatus::kOk);
  }
}

TEST(ImportP2pBandwidthLatency, ATopoGivenBesideItJudgesThePairOverItsLink) {
  auto d = imported("p2p-latency-test-h100-pcie-2gpu-nvlink-bridge.txt");
  EXPECT_EQ(compute_verdicts(d, Expectations{}).front().link, "?");  // H100 PCIe: not guessed
  const std::string topo = read_input_file(
      import_fixture_path("topo-h100-pcie-2gpu-nv12-bridge.txt"), InputKind::kImport);
  EXPECT_EQ(detect_format(topo), ImportFormat::kTopoMatrix);
  attach_topology(d, import_topology(topo, "topo"), "topo");
  const auto vs = compute_verdicts(d, Expectations{});
  EXPECT_EQ(vs.front().link, "NV12");
  EXPECT_TRUE(flag_code_set(vs).empty());
}

TEST(ImportDetection, APeerbenchRunIsNeverTakenForAnotherToolsJson) {
  // Sorted keys, NCCL's version in its system: still peerbench's own file.
  const std::string run =
      std::string(PEERBENCH_SOURCE_DIR) + "/tests/fixtures/runs/h200x2/default.json";
  EXPECT_EQ(sniff_file(run), ImportFormat::kPeerbenchRun);
  EXPECT_EQ(load_run_or_import(run).tool.name, "peerbench");
  EXPECT_EQ(detect_format(R"({"config": {}, "system": {"nccl_version": "2.28.3"}})"),
            ImportFormat::kUnknown);
}

TEST(ImportDetection, ByContentNotByName) {
  const std::string text = read_input_file(
      import_fixture_path("nccl-tests-h100-8gpu-g8-allreduce-nvswitch.txt"), InputKind::kImport);
  const std::string path = ::testing::TempDir() + "import_renamed.json";
  std::ofstream(path) << text;
  EXPECT_EQ(sniff_file(path), ImportFormat::kNcclTestsText);
  EXPECT_EQ(load_run_or_import(path).tool.name, "nccl-tests");
  std::remove(path.c_str());
}

TEST(ImportDetection, BinaryJunkAndEndlessLinesAreRefusedNamingTheLine) {
  std::string text = "# nccl-tests version 2.13.9 nccl-headers=21903 nccl-library=21903\n";
  try {
    import_text(text + std::string("x\0y\n", 4), "junk.log");
    FAIL() << "a NUL byte was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("junk.log: line 2: a NUL byte"), std::string::npos)
        << e.what();
  }
  try {
    import_text(text + text + std::string(70000, 'a') + "\n", "long.log");
    FAIL() << "an endless line was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("long.log: line 3: longer than"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(import_text("hello\n", "other.txt"), InputError);
}

TEST(ImportDetection, AFifoIsRefusedWithoutWaiting) {
  const std::string path = ::testing::TempDir() + "import_fifo";
  ::unlink(path.c_str());
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  EXPECT_EQ(sniff_file(path), ImportFormat::kUnknown);
  EXPECT_THROW(read_input_file(path, InputKind::kImport), InputError);
  ::unlink(path.c_str());
}

TEST(ImportMethodMap, EveryMappedMethodIsInTheCatalogue) {
  for (const auto& m : imported_method_table()) {
    if (m.method.empty()) continue;
    EXPECT_NE(find_method(method_catalog(), m.method), nullptr) << m.tool << " " << m.test;
  }
}

}  // namespace peerbench

namespace peerbench {

// docs/import.md's method table is the code's (method_map.cpp), row for row.
TEST(ImportDocs, MethodTableIsTheCodes) {
  std::ifstream in(std::string(PEERBENCH_SOURCE_DIR) + "/docs/import.md");
  std::string line;
  std::vector<std::string> doc;
  while (std::getline(in, line)) {
    if (line.rfind("| nccl-tests | `", 0) == 0 || line.rfind("| nvbandwidth | `", 0) == 0 ||
        line.rfind("| p2pBandwidthLatencyTest | `", 0) == 0)
      doc.push_back(line);
  }
  std::vector<std::string> code;
  for (const auto& m : imported_method_table())
    code.push_back("| " + m.tool + " | `" + m.test + "` | " +
                   (m.method.empty() ? std::string("—") : "`" + m.method + "`") + " | " + m.why +
                   " |");
  EXPECT_EQ(doc, code);
}

}  // namespace peerbench
