// The model layer: topology classes and the nvidia-smi-like matrix, the data pattern, and the
// results file's write-then-rename.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/model/json_in.h"
#include "core/model/results_file.h"
#include "core/model/schema.h"
#include "core/model/topology.h"
#include "core/present/topology_text.h"
#include "pattern_formula.h"

namespace peerbench {
namespace {

TEST(Topology, ClassifiesLinksLikeNvidiaSmi) {
  GpuPairTopology p;
  p.gpu_a = 0;
  p.gpu_b = 1;
  p.nvlink_count = 18;
  p.pcie_path = "SYS";
  EXPECT_EQ(classify_link(p).label, "NV18");
  EXPECT_EQ(classify_link(p).describe(), "NVLink x18");
  p.nvlink_count = 0;
  EXPECT_EQ(classify_link(p).kind, LinkKind::kPcieSystem);
  p.pcie_path = "PXB";
  EXPECT_EQ(classify_link(p).kind, LinkKind::kPcieSwitch);
  p.pcie_path = "PHB";
  EXPECT_EQ(classify_link(p).label, "PHB");
  p.pcie_path = "";
  EXPECT_EQ(classify_link(p).label, "?");
  EXPECT_EQ(cross_host_link().label, "NET");
}

TEST(Topology, ExpectedBandwidthFromLinkCountAndGeneration) {
  GpuTopology a, b;
  a.cc_major = b.cc_major = 9;
  a.pcie_gen_current = 5;
  b.pcie_gen_current = 4;
  a.pcie_width_current = b.pcie_width_current = 16;
  LinkClass nv{LinkKind::kNvLink, 18, "NV18"};
  auto e = expected_link_bandwidth(nv, a, b);
  ASSERT_TRUE(e);
  EXPECT_NEAR(e->raw_gbps, 478.125, 1e-9);  // REFERENCE.md: 18 x 26.562 GB/s
  LinkClass pix{LinkKind::kPcieSwitch, 0, "PIX"};
  e = expected_link_bandwidth(pix, a, b);
  ASSERT_TRUE(e);
  EXPECT_NEAR(e->raw_gbps, 1.969 * 16, 1e-9) << "the slower end (Gen4) bounds the path";
  EXPECT_FALSE(expected_link_bandwidth(cross_host_link(), a, b));
  a.cc_major = 10;
  b.cc_major = 10;
  EXPECT_NEAR(expected_link_bandwidth(nv, a, b)->raw_gbps, 900, 1e-9);
}

TEST(Topology, MatrixLooksLikeNvidiaSmiTopo) {
  HostTopology h;
  h.host = "vm";
  h.nvml = "ok";
  h.gpus = {GpuTopology{}, GpuTopology{}};
  h.gpus[0].index = 0;
  h.gpus[1].index = 1;
  GpuPairTopology p;
  p.gpu_a = 0;
  p.gpu_b = 1;
  p.nvlink_count = 18;
  p.cuda_can_access_peer = true;
  p.nvml_p2p = {{"read", "OK"}, {"write", "OK"}, {"atomics", "OK"}};
  h.pairs.push_back(p);
  std::swap(p.gpu_a, p.gpu_b);
  h.pairs.push_back(p);
  const auto m = format_topology_matrix(h);
  EXPECT_NE(m.find("GPU0    X       NV18"), std::string::npos) << m;
  EXPECT_NE(m.find("GPU1    NV18    X"), std::string::npos) << m;
  EXPECT_NE(m.find("read OK, write OK"), std::string::npos);
}
TEST(Pattern, NeverZeroDependsOnSeedAndPoisonAlwaysDiffers) {
  std::set<std::uint64_t> seeds;
  for (int rank = 0; rank < 8; ++rank) {
    for (std::uint64_t bytes : {8ull, 4096ull, 1ull << 30}) {
      for (std::uint32_t sample = 0; sample < 4; ++sample)
        seeds.insert(pattern_seed(rank, bytes, sample, 7));
    }
  }
  EXPECT_EQ(seeds.size(), 8u * 3 * 4) << "seeds must differ by rank, size and sample";
  int same_as_other_seed = 0;
  for (std::uint64_t i = 0; i < 100000; ++i) {
    const auto w = pattern_word(12345, i);
    EXPECT_NE(w, 0u);
    EXPECT_NE(poison_word(12345, i), w);
    const auto p = poison_word(12345, i);
    for (int k = 0; k < 4; ++k)
      EXPECT_NE((p >> (8 * k)) & 0xFF, (w >> (8 * k)) & 0xFF) << "tail bytes must differ too";
    same_as_other_seed += w == pattern_word(12346, i);
  }
  EXPECT_LT(same_as_other_seed, 5);
  int seen[4] = {0, 0, 0, 0};
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const int v = collective_input(99, 3, i, false);
    ASSERT_GE(v, 1) << "0 is the outputs' poison";
    ASSERT_LE(v, 3) << "sums over 8 ranks must stay exact in 8-bit floats' neighbours";
    ++seen[v];
    const int p = collective_input(99, 3, i, true);
    EXPECT_TRUE(p == 1 || p == 2) << "products of 1s and 2s stay exact";
  }
  EXPECT_GT(seen[1], 200);
  EXPECT_GT(seen[3], 200);
  EXPECT_NE(collective_input(99, 3, 7, false) + collective_input(99, 3, 8, false) +
                collective_input(99, 3, 9, false),
            collective_input(99, 4, 7, false) + collective_input(99, 4, 8, false) +
                collective_input(99, 4, 9, false) + 100)
      << "ranks differ";
}
TEST(ResultsFileTest, FailureIsReportedOnceAndTheNextWriteRecovers) {
  const std::string dir = ::testing::TempDir() + "/pb_rf_" + std::to_string(::getpid());
  ::mkdir(dir.c_str(), 0755);
  std::ostringstream warn;
  ResultsFile f(dir + "/r.json", &warn);
  RunDocument d;
  d.schema_version = kSchemaVersion;
  d.status = "incomplete";
  EXPECT_TRUE(f.write(d));
  ::unlink((dir + "/r.json").c_str());
  ::rmdir(dir.c_str());  // the folder vanishes mid-run (or the disk fills)
  EXPECT_FALSE(f.write(d));
  EXPECT_FALSE(f.write(d));
  EXPECT_EQ(f.failures(), 2);
  const std::string w = warn.str();
  EXPECT_EQ(std::count(w.begin(), w.end(), '\n'), 1) << "one warning, not one per step: " << w;
  EXPECT_NE(w.find("cannot write results"), std::string::npos);
  ::mkdir(dir.c_str(), 0755);
  d.status = "complete";
  EXPECT_TRUE(f.write(d));
  EXPECT_EQ(load_json_file(dir + "/r.json")["status"], "complete");
  ::unlink((dir + "/r.json").c_str());
  ::rmdir(dir.c_str());
}
}  // namespace
}  // namespace peerbench
