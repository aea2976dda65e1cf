#pragma once
// Which transport NCCL actually chose, read from its INFO log (the only place it says so).
//
// Line forms, from NCCL's transport sources (p2p.cc, shm.cc, net.cc) and logs captured on the
// device machine:
//   ... NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM          (also /read, /CE, MNNVL)
//   ... NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/direct pointer (/read)
//   ... NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC            (legacy IPC; /read, /CE)
//   ... NCCL INFO Channel 00/0 : 0[0] -> 2[2] via P2P/indirect/1[1]
//   ... NCCL INFO Channel 02 : 0[0] -> 1[1] via SHM/direct/direct    (CE/direct per side)
//   ... NCCL INFO Channel 00/0 : 0[0] -> 1[1] [send] via NET/Socket/0
//   ... NCCL INFO Channel 00/0 : 1[1] -> 0[0] [receive] via NET/IB/0/GDRDMA
//   ... NCCL INFO Pattern 4, crossNic 0, nChannels 24, bw 40.0/40.0, type NVL/PIX, sameChannels 1
// Older NCCL prints the bus id in the brackets (0[1b000]); both are accepted.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace peerbench {

// One "Channel ... via ..." line.
struct TransportObservation {
  int src_rank = -1;
  int dst_rank = -1;
  std::string src_dev;  // as printed in brackets: device index or bus id
  std::string dst_dev;
  int channel = -1;
  int conn_index = -1;  // the "/0" after the channel, when printed
  std::string kind;     // P2P, SHM, NET, or unknown
  std::string detail;   // CUMEM, direct pointer, IPC, indirect, direct/direct, Socket, IB, ...
  std::vector<std::string> modifiers;  // read, CE, GDRDMA, Shared, MNNVL, ...
  std::string side;                    // "send", "receive" (NET lines) or ""
  std::string net_device;              // NET lines: the device after the plugin ("0" of NET/IB/0)
  std::string raw;                     // the line, from "Channel"
};

// One "Pattern ..." line of NCCL's graph search: the path types it found inside a node
// (intra) and between nodes (inter).
struct GraphObservation {
  int pattern = -1;
  int nchannels = -1;
  double bw_intra = 0;
  double bw_inter = 0;
  std::string type_intra;  // LOC, NVL, NVB, C2C, PIX, PXB, P2C, PXN, PHB, SYS, NET
  std::string type_inter;
  std::string raw;
};

struct NcclLogParse {
  std::vector<TransportObservation> transports;
  std::vector<GraphObservation> graphs;
  std::vector<std::string> unknown;  // lines that look like transport lines but did not parse
  std::vector<std::string> reasons;  // nccl_reason_of's lines, each once, in log order
  std::optional<std::string> nccl_version;  // from "NCCL version 2.28.3+cuda13.0"
  int lines_read = 0;
};

// NCCL's own reason for not taking a road, or the variable that steered it, from one INFO or WARN
// line: the message after "NCCL INFO "/"NCCL WARN ", or nullopt for any other line. The forms are
// NCCL 2.28's (graph/paths.cc, misc/param.cc, transport/p2p.cc, transport/net_ib.cc,
// misc/shmutils.cc, bootstrap.cc), seen in ../shared/runs/h200x2/nccl-*.rank0.log:
//   NCCL_P2P_DISABLE set by environment to 1          (also NCCL_P2P_LEVEL ... to LOC, and
//   NCCL_SHM_DISABLE set by environment to 1.           NCCL_ENV's form for other variables)
//   Could not enable P2P between dev 0(=60) and dev 1(=70)
//   peer query failed between dev ... / Legacy IPC not supported / failed to peer with device ...
//   P2P is disabled between [NVLINK ]connected GPUs 0 and 1. ...
//   NET/IB : No device found.   NET/Socket : No usable listening interface found
//   Error: failed to create shared memory file /dev/shm/nccl-XXXXXX, error ...
//   Error: failed to extend /dev/shm/nccl-ab12cd to 9637892 bytes, error: No space left ...
//   Error: Could not map ...   Error while creating shared memory segment ... (size ...)
//   cuMem host allocations do not appear to be working; falling back to a /dev/shm/ based ...
std::optional<std::string> nccl_reason_of(const std::string& line);

// Parses a whole log (any number of lines; non-NCCL lines are ignored).
NcclLogParse parse_nccl_log(const std::string& text);
// Parses one line into `out`; returns true if the line was a transport, graph or unknown line.
bool parse_nccl_log_line(const std::string& line, NcclLogParse& out);

// Everything known about how NCCL connected one ordered pair of ranks.
struct PairTransport {
  int src_rank = -1;
  int dst_rank = -1;
  std::string kind;                // the kind seen on most channels: P2P, SHM, NET, mixed, unknown
  std::vector<std::string> kinds;  // every kind seen
  std::vector<std::string> details;  // every "kind/detail[/modifiers]" string seen, sorted
  int channels = 0;                  // distinct channel ids
  int connections = 0;               // lines seen
  std::string example;               // one raw line as evidence
  // NET connections: the plugin ("IB", "Socket", ...), its devices ("NET/IB/0"), and whether
  // GPUDirect RDMA was used on any of them ("/GDRDMA" in the log); empty/nullopt without NET.
  std::vector<std::string> net_paths;
  std::optional<bool> gdrdma;
};

// Groups observations by ordered pair. Send-side and receive-side NET lines of one connection
// count once per channel.
std::vector<PairTransport> summarize_transports(const std::vector<TransportObservation>& obs);

// The dominant intra-node path type over all graph lines ("NVL" for NVLink), or "" if none.
std::string dominant_intra_path(const std::vector<GraphObservation>& graphs);

}  // namespace peerbench
