// `fleet` groups nodes by the cause of their flags (docs/diagnosis.md): one line per cause with
// its nodes, then its Next line, before anything else in the text, Markdown and HTML reports.
// Nodes are copies of the real 2 x H200 runs (tests/fixtures/runs/h200x2/) under other names.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/fleet/fleet.h"
#include "core/fleet/fleet_report.h"
#include "core/fleet/fleet_verdict_words.h"
#include "core/judge/diagnosis.h"
#include "core/judge/verdict.h"
#include "core/model/method_catalog.h"
#include "core/model/node_evidence_host.h"
#include "core/model/schema.h"
#include "core/platform/atomic_file.h"
#include "fleet_nodes.h"
#include "judge/diagnosis_fixtures.h"
#include "test_sysroot.h"

namespace peerbench {
namespace {

using test::as_node;
using test::h200x2_run;
using test::host_staged_on;
using test::sysroot_evidence_for_run;

TEST(FleetCauses, NodesAreGroupedByCauseWithTheNextLine) {
  const std::string dir = ::testing::TempDir() + "/pb_fleet_causes";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const char* h : {"node-a", "node-b", "node-c"})
    write_file_atomically(dir + "/" + h + ".json",
                          to_json(as_node(h200x2_run("p2p-disabled.json"), h)).dump());
  RunDocument unset = as_node(h200x2_run("p2p-disabled.json"), "node-d");
  unset.environment.erase("NCCL_P2P_DISABLE");  // change: SHM with no variable set
  write_file_atomically(dir + "/node-d.json", to_json(unset).dump());
  write_file_atomically(dir + "/node-e.json",
                        to_json(as_node(h200x2_run("default.json"), "node-e")).dump());
  FleetOptions o;
  o.paths = {dir};
  const FleetReport r = build_fleet(o, method_catalog());
  const auto lines = fleet_detail::cause_lines(r);
  ASSERT_EQ(lines.size(), 4u) << testing::PrintToString(lines);
  EXPECT_EQ(lines[0], "3 nodes: NCCL_P2P_DISABLE set (node-a, node-b, node-c)");
  EXPECT_EQ(lines[1], "Next: unset NCCL_P2P_DISABLE and run again");
  EXPECT_EQ(lines[2], "1 node: no cause read (node-d)");
  EXPECT_EQ(lines[3].rfind("Next: run peerbench doctor on node-d", 0), 0u) << lines[3];
  const std::string text = make_fleet_reporter(FleetFormat::kText)->render(r, {});
  const auto causes = text.find("\nCauses, by node:\n");
  ASSERT_NE(causes, std::string::npos) << text;
  EXPECT_LT(causes, text.find("\nVersions:"));
  EXPECT_NE(make_fleet_reporter(FleetFormat::kMarkdown)
                ->render(r, {})
                .find("- Next: unset NCCL\\_P2P\\_DISABLE"),
            std::string::npos);
  EXPECT_NE(make_fleet_reporter(FleetFormat::kHtml)
                ->render(r, {})
                .find("<li>Next: unset NCCL_P2P_DISABLE"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(FleetCauses, AcsOnSeveralNodesIsOneGroupFromTheirFiles) {
  // Three nodes on NVIDIA/nccl#2079's cards (tests/data/sysroot/acs-amd-gpp: AMD root ports whose
  // ACS redirects), each results file carrying the node evidence read from that tree, and one
  // node on the GPU machine's tree with its passing run: fleet reads the files back (schema_read)
  // and groups the three by their cause.
  const std::string dir = ::testing::TempDir() + "/pb_fleet_acs";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const char* h : {"node-a", "node-b", "node-c"}) {
    RunDocument d =
        host_staged_on(as_node(h200x2_run("default.json"), h), {"0000:41:00.0", "0000:61:00.0"});
    d.node_evidence = {sysroot_evidence_for_run("acs-amd-gpp", d)};
    write_file_atomically(dir + "/" + h + ".json", to_json(d).dump());
  }
  RunDocument vm = as_node(h200x2_run("default.json"), "node-d");
  vm.node_evidence = {sysroot_evidence_for_run("gpu-vm-h200x2", vm)};
  write_file_atomically(dir + "/node-d.json", to_json(vm).dump());
  FleetOptions o;
  o.paths = {dir};
  const FleetReport r = build_fleet(o, method_catalog());
  const auto lines = fleet_detail::cause_lines(r);
  ASSERT_EQ(lines.size(), 2u) << testing::PrintToString(lines);
  EXPECT_EQ(lines[0], "3 nodes: ACS enabled on their PCIe switches (node-a, node-b, node-c)");
  EXPECT_EQ(lines[1],
            "Next: disable ACS on bridge 0000:40:01.1, 0000:60:01.1 (BIOS, or setpci -s "
            "0000:40:01.1 ECAP_ACS+0x6.w=0000 and setpci -s 0000:60:01.1 ECAP_ACS+0x6.w=0000) or "
            "boot with iommu=pt");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace peerbench
