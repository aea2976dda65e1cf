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
#include "core/model/schema.h"
#include "core/platform/atomic_file.h"

namespace peerbench {
namespace {

RunDocument real(const std::string& name) {
  return load_run_file(std::string(PEERBENCH_SOURCE_DIR) + "/tests/fixtures/runs/h200x2/" + name);
}

// Change: the run's host (and its GPUs' UUIDs, one machine each) renamed `host`.
RunDocument as_node(RunDocument d, const std::string& host) {
  d.system.hosts = {host};
  for (auto& r : d.system.ranks) {
    r.host = host;
    r.gpu.uuid += "-" + host;
  }
  for (auto& h : d.topology->hosts) {
    h.host = host;
    for (auto& g : h.gpus) g.uuid += "-" + host;
  }
  return d;
}

TEST(FleetCauses, NodesAreGroupedByCauseWithTheNextLine) {
  const std::string dir = ::testing::TempDir() + "/pb_fleet_causes";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const char* h : {"node-a", "node-b", "node-c"})
    write_file_atomically(dir + "/" + h + ".json",
                          to_json(as_node(real("p2p-disabled.json"), h)).dump());
  RunDocument unset = as_node(real("p2p-disabled.json"), "node-d");
  unset.environment.erase("NCCL_P2P_DISABLE");  // change: SHM with no variable set
  write_file_atomically(dir + "/node-d.json", to_json(unset).dump());
  write_file_atomically(dir + "/node-e.json",
                        to_json(as_node(real("default.json"), "node-e")).dump());
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

TEST(FleetCauses, AcsOnSeveralNodesIsOneGroup) {
  // Node evidence is not read back from files by this branch (its JSON is the evidence
  // engineer's): the nodes carry their diagnosis as read_fleet_nodes gives it. Change: CUDA
  // refuses peer access, and a root port above each GPU redirects peer requests (ACSCtl bits of
  // the public lspci output cited in tests/cpu/judge/diagnosis_node_test.cpp).
  FleetReport r;
  for (const char* h : {"a", "b", "c"}) {
    RunDocument d = as_node(real("default.json"), h);
    for (auto& p : d.pairs) p.can_access_peer = false, p.peer_access = "unsupported";
    NodeEvidence n;
    n.host = h;
    for (const auto& rk : d.system.ranks) {
      GpuPcieEvidence g;
      g.pci_bus_id = rk.gpu.pci_bus_id;
      PcieBridgeEvidence b;
      b.bdf = "0000:00:01.0";
      b.acs_redirects = true;
      b.acs_ctl = "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-";
      g.bridges = {b};
      n.pcie.push_back(g);
    }
    d.node_evidence = {n};
    FleetNode node;
    node.host = h;
    node.state = NodeState::kFlagged;
    node.causes = diagnose(d, compute_verdicts(d, {}));
    r.nodes.push_back(node);
  }
  const auto lines = fleet_detail::cause_lines(r);
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[0], "3 nodes: ACS enabled on their PCIe switches (a, b, c)");
  EXPECT_EQ(lines[1].rfind("Next: disable ACS on bridge 0000:00:01.0", 0), 0u) << lines[1];
}

}  // namespace
}  // namespace peerbench
