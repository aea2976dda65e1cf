// Log lines: the first group was seen on the device machine (REFERENCE.md, and captured there by
// scripts/gpu_check.sh into tests/fixtures/nccl/); the second group has the other forms NCCL's
// transport sources print.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/model/nccl_log.h"

namespace peerbench {
namespace {

TransportObservation one(const std::string& line) {
  NcclLogParse p;
  EXPECT_TRUE(parse_nccl_log_line(line, p)) << line;
  EXPECT_EQ(p.transports.size(), 1u) << line;
  return p.transports.empty() ? TransportObservation{} : p.transports.front();
}

TEST(NcclLog, P2pCumemAsSeenOnTheDeviceMachine) {
  const auto t = one("vm:1383:1383 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM");
  EXPECT_EQ(t.src_rank, 0);
  EXPECT_EQ(t.dst_rank, 1);
  EXPECT_EQ(t.src_dev, "0");
  EXPECT_EQ(t.dst_dev, "1");
  EXPECT_EQ(t.channel, 0);
  EXPECT_EQ(t.conn_index, 0);
  EXPECT_EQ(t.kind, "P2P");
  EXPECT_EQ(t.detail, "CUMEM");
  EXPECT_TRUE(t.modifiers.empty());
}

TEST(NcclLog, DirectPointerShmAndSocket) {
  auto t = one("vm:1383:1390 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/direct pointer");
  EXPECT_EQ(t.kind, "P2P");
  EXPECT_EQ(t.detail, "direct pointer");
  t = one("vm:2201:2201 [1] NCCL INFO Channel 02 : 1[1] -> 0[0] via SHM/direct/direct");
  EXPECT_EQ(t.kind, "SHM");
  EXPECT_EQ(t.detail, "direct/direct");
  EXPECT_EQ(t.channel, 2);
  EXPECT_EQ(t.conn_index, -1);
  EXPECT_EQ(t.src_rank, 1);
  t = one("vm:3012:3030 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] [send] via NET/Socket/0");
  EXPECT_EQ(t.kind, "NET");
  EXPECT_EQ(t.detail, "Socket");
  EXPECT_EQ(t.side, "send");
}

TEST(NcclLog, FormsFromNcclSources) {
  auto t = one("h:1:1 [0] NCCL INFO Channel 03/1 : 0[0] -> 1[1] via P2P/IPC/read");
  EXPECT_EQ(t.detail, "IPC");
  EXPECT_EQ(t.modifiers, (std::vector<std::string>{"read"}));
  t = one("h:1:1 [0] NCCL INFO Channel 03/1 : 0[0] -> 1[1] via P2P/CUMEM/read/CE");
  EXPECT_EQ(t.modifiers, (std::vector<std::string>{"read", "CE"}));
  t = one("h:1:1 [0] NCCL INFO Channel 01/0 : 0[0] -> 2[2] via P2P/indirect/1[1]");
  EXPECT_EQ(t.detail, "indirect");
  EXPECT_EQ(t.modifiers, (std::vector<std::string>{"via 1[1]"}));
  t = one("h:1:1 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via P2P/MNNVL");
  EXPECT_EQ(t.detail, "CUMEM");
  EXPECT_EQ(t.modifiers, (std::vector<std::string>{"MNNVL"}));
  t = one("h:1:1 [3] NCCL INFO Channel 00/0 : 11[3] -> 3[3] [receive] via NET/IB/0/GDRDMA");
  EXPECT_EQ(t.kind, "NET");
  EXPECT_EQ(t.detail, "IB");
  EXPECT_EQ(t.side, "receive");
  EXPECT_EQ(t.src_rank, 11);
  EXPECT_EQ(t.modifiers, (std::vector<std::string>{"GDRDMA"}));
  t = one("h:1:1 [3] NCCL INFO Channel 00/0 : 3[3] -> 11[3] [send] via NET/IB/2(1)/GDRDMA/Shared");
  EXPECT_EQ(t.modifiers, (std::vector<std::string>{"proxy (1)", "GDRDMA", "Shared"}));
  t = one(
      "h:1:1 [0] NCCL INFO Channel 02 : 0[1b000] -> 1[1c000] via SHM/CE/direct");  // older: bus ids
  EXPECT_EQ(t.dst_dev, "1c000");
  EXPECT_EQ(t.detail, "CE/direct");
}

TEST(NcclLog, UnknownTransportLinesAreKeptNotDropped) {
  NcclLogParse p;
  EXPECT_TRUE(parse_nccl_log_line(
      "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via COLLNET/Whatever", p));
  EXPECT_TRUE(parse_nccl_log_line("h:1:1 [0] NCCL INFO Channel 00 : garbled -> via P2P/CUMEM", p));
  ASSERT_EQ(p.unknown.size(), 2u);
  EXPECT_NE(p.unknown[0].find("COLLNET"), std::string::npos);
  ASSERT_EQ(p.transports.size(), 1u);
  EXPECT_EQ(p.transports[0].kind, "unknown");
}

TEST(NcclLog, GraphPatternLines) {
  NcclLogParse p;
  ASSERT_TRUE(
      parse_nccl_log_line("vm:1:1 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 24, bw 40.0/40.0, "
                          "type NVL/PIX, sameChannels 1",
                          p));
  ASSERT_EQ(p.graphs.size(), 1u);
  EXPECT_EQ(p.graphs[0].pattern, 4);
  EXPECT_EQ(p.graphs[0].nchannels, 24);
  EXPECT_DOUBLE_EQ(p.graphs[0].bw_intra, 40.0);
  EXPECT_EQ(p.graphs[0].type_intra, "NVL");
  EXPECT_EQ(p.graphs[0].type_inter, "PIX");
  EXPECT_EQ(dominant_intra_path(p.graphs), "NVL");
}

TEST(NcclLog, IgnoresOtherLinesAndReadsVersion) {
  const auto p = parse_nccl_log(
      "vm:1:1 [0] NCCL INFO NCCL version 2.28.3+cuda13.0\n"
      "vm:1:1 [0] NCCL INFO Bootstrap: Using eth0:10.0.0.2<0>\n"
      "vm:1:1 [0] NCCL INFO Connected all rings, use ring PXN 0 GDR 1\n"
      "\n");
  EXPECT_EQ(p.lines_read, 4);
  EXPECT_TRUE(p.transports.empty());
  EXPECT_TRUE(p.unknown.empty());
  ASSERT_TRUE(p.nccl_version);
  EXPECT_EQ(*p.nccl_version, "2.28.3+cuda13.0");
}

TEST(NcclLog, HostileInputIsBounded) {
  NcclLogParse p;
  const std::string huge = "Channel " + std::string(1 << 20, '9') + " via P2P/CUMEM";
  parse_nccl_log_line(huge, p);
  EXPECT_EQ(p.transports.size(), 0u);
  parse_nccl_log_line("Pattern 4, crossNic 0, nChannels 99999999999999999999, bw", p);
  EXPECT_TRUE(p.graphs.empty());
}

TEST(NcclLog, SummaryPerPairCountsChannelsOnceAcrossSides) {
  const auto p = parse_nccl_log(
      "a [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] [send] via NET/Socket/0\n"
      "b [1] NCCL INFO Channel 00/0 : 0[0] -> 1[1] [receive] via NET/Socket/0\n"
      "a [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] [send] via NET/Socket/0\n"
      "b [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/CUMEM\n"
      "b [1] NCCL INFO Channel 01/0 : 1[1] -> 0[0] via SHM/direct/direct\n");
  const auto s = summarize_transports(p.transports);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].src_rank, 0);
  EXPECT_EQ(s[0].kind, "NET");
  EXPECT_EQ(s[0].channels, 2);
  EXPECT_EQ(s[0].connections, 2);
  EXPECT_NE(s[0].example.find("[send]"), std::string::npos) << "send side preferred as evidence";
  EXPECT_EQ(s[1].kind, "mixed");
  EXPECT_EQ(s[1].kinds, (std::vector<std::string>{"P2P", "SHM"}));
}

// Logs captured on the device machine by scripts/gpu_check.sh (NCCL_DEBUG_FILE per case).
TEST(NcclLog, CapturedDeviceLogs) {
  const std::string dir = std::string(PEERBENCH_SOURCE_DIR) + "/tests/fixtures/nccl/";
  struct Case {
    const char* file;
    const char* kind;
  };
  int found = 0;
  for (const auto& c :
       {Case{"net-socket.log", "NET"}, Case{"p2p-cumem.log", "P2P"}, Case{"shm.log", "SHM"}}) {
    std::ifstream in(dir + c.file);
    if (!in) continue;
    ++found;
    std::stringstream ss;
    ss << in.rdbuf();
    const auto p = parse_nccl_log(ss.str());
    ASSERT_FALSE(p.transports.empty()) << c.file;
    EXPECT_TRUE(p.unknown.empty())
        << c.file << ": " << (p.unknown.empty() ? "" : p.unknown.front());
    for (const auto& s : summarize_transports(p.transports)) EXPECT_EQ(s.kind, c.kind) << c.file;
  }
  if (!found) GTEST_SKIP() << "no captured logs in " << dir;
}

}  // namespace
}  // namespace peerbench
