#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "core/base/errors.h"
#include "core/judge/verdict.h"
#include "core/model/json_in.h"
#include "core/model/schema.h"
#include "test_docs.h"

namespace peerbench {
namespace {

using nlohmann::json;

// A clean 2 x H200 run with its verdicts, link counters and per-direction figures, as JSON.
json sample_run_json() {
  auto d = test::clean_h200_pair();
  d.verdicts = compute_verdicts(d, {});
  d.results[0].link_counters = LinkCounters{"nvml-field-values", 1e9, 1e9, 1e9, ""};
  d.results.back().directions.push_back({0, 1, test::flat(2), test::flat(380)});
  return to_json(d);
}

// The error reading `j` as a run gives, "" when it reads.
std::string read_error(const json& j) {
  try {
    run_document_from_json(j, "run.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Schema, RoundTripKeepsEverything) {
  const json j = sample_run_json();
  const RunDocument d = run_document_from_json(j, "run.json");
  EXPECT_EQ(to_json(d), j) << "write(read(write(doc))) must equal write(doc)";
  EXPECT_EQ(d.results.size(), 16u);
  EXPECT_EQ(d.pairs.size(), 2u);
  ASSERT_TRUE(d.pairs[0].nccl);
  EXPECT_EQ(d.pairs[0].nccl->kind, "P2P");
  ASSERT_TRUE(d.topology);
  EXPECT_EQ(d.topology->hosts[0].pairs[0].nvlink_count, 18);
}

TEST(Schema, VersionTwoFieldsRoundTrip) {
  auto d = test::clean_h200_pair();
  d.system.ranks[0].gpu.serial = "1650124000001";
  GpuLinkHealth h;
  h.host = "node0";
  h.gpu_index = 0;
  h.pci_bus_id = "0000:00:00.0";
  h.nvlink_errors_before = {{3, 0ull, 0ull, std::nullopt, 9ull}};
  h.nvlink_errors_after = {{3, 4ull, 0ull, std::nullopt, 9ull}};
  h.pcie_gen_max = 5;
  h.pcie_gen_under_load = 4;
  d.link_health.push_back(h);
  d.pairs[0].nccl->net_paths = {"NET/IB/0"};
  d.pairs[0].nccl->gdrdma = true;
  d.verdicts = compute_verdicts(d, {});
  const json j = to_json(d);
  EXPECT_EQ(j["schema_version"], kSchemaVersion);
  const RunDocument back = run_document_from_json(j, "run.json");
  EXPECT_EQ(to_json(back), j);
  EXPECT_EQ(back.system.ranks[0].gpu.serial, "1650124000001");
  ASSERT_EQ(back.link_health.size(), 1u);
  EXPECT_EQ(back.link_health[0].nvlink_errors_after[0].replay, 4ull);
  EXPECT_FALSE(back.link_health[0].nvlink_errors_after[0].crc_flit) << "unknown stays unknown";
  EXPECT_EQ(back.verdicts[0].cards[0].serial, "1650124000001");
  EXPECT_FALSE(back.verdicts[0].methods.empty());
  EXPECT_TRUE(j["system"]["ranks"][1]["gpu"]["serial"].is_null()) << "no serial is null";
}

TEST(Schema, VersionOneFilesStillRead) {
  json j = sample_run_json();
  j["schema_version"] = 1;
  j.erase("link_health");
  for (auto& v : j["verdicts"]) {
    v.erase("methods");
    v.erase("cards");
    v.erase("concurrent_pairs");
    v["verdict"] = "not-measured";  // a state version 1 wrote
  }
  const auto d = run_document_from_json(j, "old.json");
  EXPECT_EQ(d.schema_version, 1);
  EXPECT_TRUE(d.link_health.empty());
  EXPECT_EQ(to_json(d)["schema_version"], kSchemaVersion) << "written back as the current version";
}

TEST(Schema, NumbersAreNumbersAndAbsentIsNull) {
  const json j = sample_run_json();
  EXPECT_TRUE(j["results"][0]["bytes"].is_number_unsigned());
  EXPECT_TRUE(j["results"][0]["time_us"]["median"].is_number());
  EXPECT_TRUE(j["results"][0]["reason"].is_null());
  EXPECT_TRUE(j["results"].back()["src"].is_null()) << "all-ranks results have null src";
  EXPECT_EQ(j["schema_version"], kSchemaVersion);
  EXPECT_EQ(j["kind"], "peerbench-run");
}

TEST(Schema, BadFilesGiveOneLineNamingFileAndField) {
  struct Case {
    std::function<void(json&)> mutate;
    std::string field;
  };
  const std::vector<Case> cases = {
      {[](json& j) { j["schema_version"] = kSchemaVersion + 1; }, "schema_version"},
      {[](json& j) { j["schema_version"] = 0; }, "schema_version"},
      {[](json& j) { j["schema_version"] = "1"; }, "schema_version"},
      {[](json& j) { j.erase("schema_version"); }, "schema_version"},
      {[](json& j) { j["kind"] = "peerbench-topology"; }, "kind"},
      {[](json& j) { j["status"] = "great"; }, "status"},
      {[](json& j) { j["results"][3]["bytes"] = "lots"; }, "results[3].bytes"},
      {[](json& j) { j["results"][3]["bytes"] = 1e300; }, "results[3].bytes"},
      {[](json& j) { j["results"][3]["bytes"] = -1; }, "results[3].bytes"},
      {[](json& j) { j["results"][0]["status"] = "fine"; }, "results[0].status"},
      {[](json& j) { j["results"][0].erase("method"); }, "results[0].method"},
      {[](json& j) { j["results"][0]["time_us"]["median"] = nullptr; },
       "results[0].time_us.median"},
      {[](json& j) { j["results"][0]["time_us"]["min"] = 1e9; }, "results[0].time_us"},
      {[](json& j) { j["results"][0]["src"] = 1.5; }, "results[0].src"},
      {[](json& j) { j["results"][0]["time_us"] = nullptr; }, "results[0]"},
      {[](json& j) { j["results"] = json::object(); }, "results"},
      {[](json& j) { j["system"]["ranks"][0]["gpu"]["compute_capability"] = "nine"; },
       "system.ranks[0].gpu.compute_capability"},
      {[](json& j) { j["pairs"][0]["same_host"] = "yes"; }, "pairs[0].same_host"},
      {[](json& j) { j["methods"][0]["scope"] = "galaxy"; }, "methods[0].scope"},
      {[](json& j) { j["topology"]["hosts"][0]["gpus"] = 3; }, "topology.hosts[0].gpus"},
      {[](json& j) { j["environment"]["NCCL_DEBUG"] = 3; }, "environment.NCCL_DEBUG"},
  };
  for (const auto& c : cases) {
    json j = sample_run_json();
    c.mutate(j);
    const std::string m = read_error(j);
    EXPECT_NE(m.find("run.json"), std::string::npos) << m;
    EXPECT_NE(m.find("'" + c.field), std::string::npos)
        << "expected field " << c.field << " in: " << m;
    EXPECT_EQ(m.find('\n'), std::string::npos);
  }
}

TEST(Schema, FutureVersionSaysSo) {
  json j = sample_run_json();
  j["schema_version"] = 7;
  EXPECT_NE(read_error(j).find("file is newer"), std::string::npos);
}

TEST(JsonFiles, EmptyTruncatedNonJsonDeepAndHuge) {
  const std::string path =
      ::testing::TempDir() + "/pb_schema_test_" + std::to_string(::getpid()) + ".json";
  auto write = [&](const std::string& s) { std::ofstream(path, std::ios::binary) << s; };
  auto err = [&]() -> std::string {
    try {
      load_run_file(path);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  write("");
  EXPECT_NE(err().find("empty"), std::string::npos);
  write(sample_run_json().dump().substr(0, 500));
  EXPECT_NE(err().find("not valid JSON"), std::string::npos);
  write("hello");
  EXPECT_NE(err().find("not valid JSON"), std::string::npos);
  write("66466e6633");  // found by fuzz_json_reader: a number beyond double is out_of_range
  EXPECT_NE(err().find("not valid JSON"), std::string::npos);
  write(R"({"schema_version": 1e999})");
  EXPECT_NE(err().find("not valid JSON"), std::string::npos);
  write(std::string(100000, '[') + std::string(100000, ']'));
  EXPECT_NE(err().find("nested deeper"), std::string::npos);
  write("[1,2,3]");
  EXPECT_NE(err().find("expected an object"), std::string::npos);
  write(std::string((1 << 20) + 1, ' '));  // past the --expect file's limit
  EXPECT_THROW(load_json_file(path, InputKind::kExpect), InputError);
  std::remove(path.c_str());
  EXPECT_NE(err().find("does not exist"), std::string::npos);
}

TEST(Schema, TopologyDocumentIsNotARun) {
  TopologyReport t = *test::clean_h200_pair().topology;
  const json doc = topology_document(t, ToolInfo{});
  EXPECT_EQ(doc["kind"], "peerbench-topology");
  EXPECT_NE(read_error(doc).find("'kind'"), std::string::npos);
  const auto back = topology_from_json(doc["topology"], "t.json");
  EXPECT_EQ(to_json(back), doc["topology"]);
}

TEST(Schema, DocumentedInSchemaMd) {
  // Every top-level key and every result key is documented in results/SCHEMA.md.
  std::ifstream in(std::string(PEERBENCH_SOURCE_DIR) + "/results/SCHEMA.md");
  ASSERT_TRUE(in) << "results/SCHEMA.md missing";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string md = ss.str();
  const json j = sample_run_json();
  for (const auto& [k, v] : j.items()) EXPECT_NE(md.find("`" + k + "`"), std::string::npos) << k;
  for (const auto& [k, v] : j["results"][0].items())
    EXPECT_NE(md.find("`" + k + "`"), std::string::npos) << k;
  for (const auto& [k, v] : j["pairs"][0].items())
    EXPECT_NE(md.find("`" + k + "`"), std::string::npos) << k;
  EXPECT_NE(md.find("schema_version` is " + std::to_string(kSchemaVersion)), std::string::npos);
}

}  // namespace
}  // namespace peerbench

namespace peerbench {
namespace {

TEST(Schema, NcclObservationsAndRankInfoTravelBetweenRanks) {
  const auto p = parse_nccl_log(
      "a [0] NCCL INFO Channel 00/1 : 0[0] -> 1[1] [send] via NET/Socket/0/Shared\n"
      "a [0] NCCL INFO Pattern 4, crossNic 0, nChannels 2, bw 1.2/1.2, type LOC/PHB, sameChannels "
      "1\n"
      "a [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via WHAT/ever\n");
  const auto back = nccl_log_parse_from_json(nlohmann::json::parse(to_json(p).dump()), "x");
  ASSERT_EQ(back.transports.size(), p.transports.size());
  EXPECT_EQ(back.transports[0].modifiers, p.transports[0].modifiers);
  EXPECT_EQ(back.transports[0].raw, p.transports[0].raw);
  EXPECT_EQ(back.graphs.size(), 1u);
  EXPECT_EQ(back.unknown, p.unknown);
  RankInfo r;
  r.rank = 3;
  r.host = "n1";
  r.local_rank = 1;
  r.gpu.index = 1;
  r.gpu.cc_major = 9;
  r.gpu.pci_bus_id = "0000:1B:00.0";
  const auto rb = rank_info_from_json(to_json(r), "x", "rank");
  EXPECT_EQ(rb.rank, 3);
  EXPECT_EQ(rb.gpu.cc_major, 9);
  EXPECT_EQ(rb.gpu.pci_bus_id, "0000:1B:00.0");
}

// A value read from a file, in a one-line error: escaped (a NUL ended the message there, a line
// break forged a second line) and cut at 64 characters, never inside a UTF-8 character.
TEST(Schema, AValueInAnErrorIsEscapedAndCut) {
  EXPECT_EQ(quoted_value("GB/s"), "'GB/s'");
  EXPECT_EQ(quoted_value(std::string("us\0x\n", 5)), "'us\\x00x\\x0a'");
  const std::string long_value = std::string(63, 'a') + "\xc3\xa9" + std::string(100, 'b');
  EXPECT_EQ(quoted_value(long_value), "'" + std::string(63, 'a') + "...' (165 bytes)");
}

}  // namespace
}  // namespace peerbench
