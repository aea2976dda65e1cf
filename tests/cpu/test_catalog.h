#pragma once
// The methods of the real binary, as plain data, for CPU tests that need a catalogue
// (the GPU layer is not linked into CPU tests).
#include <string>
#include <vector>

#include "core/model/method_info.h"

namespace peerbench::test {

inline std::vector<MethodInfo> catalog() {
  auto copy = [](const char* n, const char* fam, bool bidir = false) {
    MethodInfo m;
    m.name = n;
    m.family = fam;
    m.needs_p2p = true;
    m.same_host_only = true;
    m.bidirectional = bidir;
    m.workers = bidir ? 2 : 1;
    return m;
  };
  std::vector<MethodInfo> c{copy("ce-write", "ce"),       copy("ce-read", "ce"),
                            copy("sm-write", "sm"),       copy("sm-read", "sm"),
                            copy("ce-bidir", "ce", true), copy("sm-bidir", "sm", true)};
  MethodInfo staged;
  staged.name = "staged";
  staged.family = "staged";
  staged.same_host_only = true;
  staged.graph_capturable = false;
  staged.workers = 2;
  staged.start_gated = false;
  c.push_back(staged);
  for (const char* n : {"h2d", "d2h", "h2d-all", "d2h-all"}) {
    MethodInfo h;
    h.name = n;
    h.family = "host";
    h.scope = MethodScope::kPerGpu;
    h.all_gpus_at_once = std::string(n).find("-all") != std::string::npos;
    c.push_back(h);
  }
  auto lat = copy("ce-latency", "ce");
  lat.metric = Metric::kLatency;
  lat.fixed_size = true;
  c.push_back(lat);
  auto sml = copy("sm-latency", "sm");
  sml.metric = Metric::kLatency;
  sml.fixed_size = true;
  sml.fixed_bytes = 4;
  sml.graph_capturable = false;
  sml.workers = 2;
  c.push_back(sml);
  auto nccl = [](const char* n, bool bidir) {
    MethodInfo m;
    m.name = n;
    m.family = "nccl";
    m.uses_nccl = true;
    m.collective = Collective::kSendRecv;
    m.bidirectional = bidir;
    m.workers = 2;
    return m;
  };
  c.push_back(nccl("nccl-sendrecv", false));
  c.push_back(nccl("nccl-sendrecv-bidir", true));
  auto coll = [](const char* n, Collective k, bool reduces, bool rooted) {
    MethodInfo m;
    m.name = n;
    m.family = "nccl";
    m.uses_nccl = true;
    m.scope = MethodScope::kAllRanks;
    m.collective = k;
    m.typed = true;
    m.reduces = reduces;
    m.rooted = rooted;
    m.workers = 0;
    return m;
  };
  c.push_back(coll("nccl-allreduce", Collective::kAllReduce, true, false));
  c.push_back(coll("nccl-allgather", Collective::kAllGather, false, false));
  c.push_back(coll("nccl-reducescatter", Collective::kReduceScatter, true, false));
  c.push_back(coll("nccl-broadcast", Collective::kBroadcast, false, true));
  c.push_back(coll("nccl-reduce", Collective::kReduce, true, true));
  c.push_back(coll("nccl-alltoall", Collective::kAllToAll, false, false));
  c.push_back(coll("nccl-sendrecv-ring", Collective::kSendRecv, false, false));
  return c;
}

}  // namespace peerbench::test
