#pragma once
// Synthetic run documents for verdict, report and compare tests: a node of `gpus` H200-like GPUs,
// linked by NVLink or PCIe, with the measurements a test sets.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/model/method_catalog.h"
#include "core/model/results.h"
#include "test_text.h"

namespace peerbench::test {

inline constexpr std::uint64_t kMiB = 1ull << 20;
inline constexpr std::uint64_t kGiB = 1ull << 30;

struct NodeSpec {
  int gpus = 2;
  int nvlinks = 18;  // 0: PCIe only
  std::string pcie_path = "SYS";
  int pcie_gen = 5;
  int pcie_width = 16;
  bool can_peer = true;
  std::string nccl_kind = "P2P";  // per pair; "" = nothing captured
  std::string nccl_detail = "P2P/CUMEM";
  std::vector<std::string> hosts;  // per rank; default all "node0"
};

inline Stats flat(double v, double spread = 0.01) {
  return Stats{v * (1 - spread), v, v * (1 + spread), v, 5};
}

// The bandwidths that `bytes` in `time_us` make, as a run computes them: the fastest sample gives
// the highest bandwidth.
inline Stats bandwidth_of(double bytes, const Stats& time_us) {
  const auto gbps = [&](double us) { return bytes / us / 1e3; };
  return Stats{gbps(time_us.max), gbps(time_us.median), gbps(time_us.min), gbps(time_us.median),
               time_us.count};
}

inline Result bw_result(const std::string& method, int src, int dst, std::uint64_t bytes,
                        double gbps, double spread = 0.01) {
  Result r;
  r.method = method;
  r.src = src;
  r.dst = dst;
  r.bytes = bytes;
  r.status = ResultStatus::kOk;
  r.iters = 20;
  r.samples = 5;
  r.algbw_gbps = flat(gbps, spread);
  r.busbw_gbps = flat(gbps, spread);
  const double b = static_cast<double>(bytes);
  r.time_us = Stats{b / (gbps * (1 + spread) * 1e3), b / (gbps * 1e3),
                    b / (gbps * (1 - spread) * 1e3), b / (gbps * 1e3), 5};
  r.checked = true;
  r.checked_elements = bytes / 4;
  return r;
}

inline Result latency_result(const std::string& method, int src, int dst, double us) {
  Result r = bw_result(method, src, dst, 8, 8 / (us * 1e3));
  r.time_us = flat(us);
  r.algbw_gbps = r.busbw_gbps = bandwidth_of(8, *r.time_us);
  return r;
}

inline RunDocument make_doc(const NodeSpec& s) {
  RunDocument d;
  d.schema_version = 1;
  d.tool.version = "0.4.0";
  d.tool.git_revision = "abc";
  d.status = "complete";
  d.started_at = "2026-11-29T14:00:00Z";
  d.methods = method_catalog();
  d.system.driver_version = "580.159.04";
  d.system.cuda_runtime_version = 13000;
  d.system.cuda_driver_version = 13000;
  d.system.nccl_version = "2.28.3";
  std::vector<std::string> hosts = s.hosts;
  if (hosts.empty()) hosts.assign(static_cast<std::size_t>(s.gpus), "node0");
  TopologyReport topo;
  for (int r = 0; r < s.gpus; ++r) {
    RankInfo ri;
    ri.rank = r;
    ri.host = hosts[r];
    int local = 0;
    for (int q = 0; q < r; ++q) local += hosts[q] == hosts[r];
    ri.local_rank = local;
    ri.gpu.index = local;
    ri.gpu.name = "NVIDIA H200";
    ri.gpu.uuid = "GPU-" + std::to_string(r);
    ri.gpu.pci_bus_id = "0000:0" + std::to_string(r) + ":00.0";
    ri.gpu.cc_major = 9;
    d.system.ranks.push_back(ri);
    if (std::find(d.system.hosts.begin(), d.system.hosts.end(), ri.host) == d.system.hosts.end()) {
      d.system.hosts.push_back(ri.host);
      topo.hosts.push_back(HostTopology{ri.host, "ok", "580.159.04", {}, {}});
    }
    auto& h = *std::find_if(topo.hosts.begin(), topo.hosts.end(),
                            [&](const HostTopology& x) { return x.host == ri.host; });
    GpuTopology g;
    g.index = local;
    g.name = ri.gpu.name;
    g.pci_bus_id = ri.gpu.pci_bus_id;
    g.cc_major = 9;
    g.pcie_gen_current = g.pcie_gen_max = s.pcie_gen;
    g.pcie_width_current = g.pcie_width_max = s.pcie_width;
    g.nvlinks_up = s.nvlinks;
    h.gpus.push_back(g);
  }
  for (auto& h : topo.hosts) {
    for (const auto& a : h.gpus) {
      for (const auto& b : h.gpus) {
        if (a.index == b.index) continue;
        GpuPairTopology p;
        p.gpu_a = a.index;
        p.gpu_b = b.index;
        p.nvlink_count = s.nvlinks;
        p.pcie_path = s.pcie_path;
        p.cuda_can_access_peer = s.can_peer;
        p.nvml_p2p = {{"read", s.can_peer ? "OK" : "NS"}, {"write", s.can_peer ? "OK" : "NS"}};
        h.pairs.push_back(p);
      }
    }
  }
  d.topology = topo;
  for (int a = 0; a < s.gpus; ++a) {
    for (int b = 0; b < s.gpus; ++b) {
      if (a == b) continue;
      PairFacts f;
      f.src = a;
      f.dst = b;
      f.same_host = hosts[a] == hosts[b];
      if (f.same_host) {
        f.can_access_peer = s.can_peer;
        f.peer_access = s.can_peer ? "enabled" : "unsupported";
        f.already_enabled = false;
      } else {
        f.peer_access = "not-applicable";
      }
      const std::string kind = f.same_host ? s.nccl_kind : "NET";
      if (!kind.empty()) {
        PairTransport t;
        t.src_rank = a;
        t.dst_rank = b;
        t.kind = kind;
        t.kinds = {kind};
        t.details = {f.same_host ? s.nccl_detail : "NET/Socket"};
        t.channels = 24;
        t.connections = 24;
        t.example = "Channel 00/0 : " + std::to_string(a) + "[" + std::to_string(a) + "] -> " +
                    std::to_string(b) + "[" + std::to_string(b) + "] via " + t.details.front();
        f.nccl = t;
      }
      d.pairs.push_back(f);
    }
  }
  d.nccl.mode = "peerbench";
  return d;
}

// A clean 2 x H200 NV18 run at 1 GiB with the figures of REFERENCE.md.
inline RunDocument clean_h200_pair() {
  RunDocument d = make_doc({});
  for (auto [a, b] : {std::pair{0, 1}, std::pair{1, 0}}) {
    d.results.push_back(bw_result("ce-write", a, b, kGiB, 395));
    d.results.push_back(bw_result("ce-read", a, b, kGiB, 384));
    d.results.push_back(bw_result("sm-write", a, b, kGiB, 369));
    d.results.push_back(bw_result("sm-read", a, b, kGiB, 370));
    d.results.push_back(bw_result("staged", a, b, kGiB, 40));
    d.results.push_back(bw_result("nccl-sendrecv", a, b, kGiB, 360));
    d.results.push_back(latency_result("ce-latency", a, b, 2.3));
  }
  Result bidir = bw_result("ce-bidir", 0, 1, kGiB, 750);
  d.results.push_back(bidir);
  Result ar = bw_result("nccl-allreduce", -1, -1, kGiB, 330);
  d.results.push_back(ar);
  return d;
}

}  // namespace peerbench::test
