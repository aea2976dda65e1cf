#include "core/import/method_map.h"

namespace peerbench {

const std::vector<ImportedMethod>& imported_method_table() {
  static const std::vector<ImportedMethod> table = {
      {"nccl-tests", "all_reduce_perf", "nccl-allreduce", "ncclAllReduce; busbw 2(n-1)/n x algbw"},
      {"nccl-tests", "all_gather_perf", "nccl-allgather", "ncclAllGather; busbw (n-1)/n x algbw"},
      {"nccl-tests", "reduce_scatter_perf", "nccl-reducescatter",
       "ncclReduceScatter; busbw (n-1)/n x algbw"},
      {"nccl-tests", "broadcast_perf", "nccl-broadcast", "ncclBroadcast from the root"},
      {"nccl-tests", "reduce_perf", "nccl-reduce", "ncclReduce onto the root"},
      {"nccl-tests", "alltoall_perf", "nccl-alltoall", "grouped send/recv to every rank"},
      {"nccl-tests", "sendrecv_perf", "nccl-sendrecv-ring",
       "every rank sends to the next and receives from the previous at once (both directions "
       "loaded), as nccl-sendrecv-ring"},
      {"nccl-tests", "gather_perf", "", "no peerbench method gathers onto one root"},
      {"nccl-tests", "scatter_perf", "", "no peerbench method scatters from one root"},
      {"nccl-tests", "hypercube_perf", "", "no peerbench method runs the hypercube pattern"},
      {"nccl-tests", "alltoallv_perf", "", "no peerbench method sends uneven blocks"},
      {"nvbandwidth", "device_to_device_memcpy_write_ce", "ce-write",
       "the source GPU's copy engine writes into the peer, one pair at a time"},
      {"nvbandwidth", "device_to_device_memcpy_read_ce", "ce-read",
       "the destination GPU's copy engine reads from the peer, one pair at a time"},
      {"nvbandwidth", "device_to_device_memcpy_write_sm", "sm-write",
       "a kernel on the source GPU stores into the peer"},
      {"nvbandwidth", "device_to_device_memcpy_read_sm", "sm-read",
       "a kernel on the destination GPU loads from the peer"},
      {"nvbandwidth", "device_to_device_bidirectional_memcpy_write_ce", "ce-bidir",
       "its Total matrix: both copy engines at once, the sum of both directions"},
      {"nvbandwidth", "device_to_device_bidirectional_memcpy_read_ce", "",
       "reads both ways; peerbench's ce-bidir writes both ways"},
      {"nvbandwidth", "host_to_device_memcpy_ce", "h2d",
       "copy engine, pinned host memory, one GPU"},
      {"nvbandwidth", "device_to_host_memcpy_ce", "d2h",
       "copy engine, pinned host memory, one GPU"},
      {"nvbandwidth", "host_to_all_memcpy_ce", "h2d-all",
       "every GPU copies from the host at once; each GPU's figure"},
      {"nvbandwidth", "all_to_host_memcpy_ce", "d2h-all",
       "every GPU copies to the host at once; each GPU's figure"},
      {"nvbandwidth", "host_to_device_memcpy_sm", "",
       "an SM kernel's host copy; peerbench's h2d uses the copy engine"},
      {"nvbandwidth", "device_to_host_memcpy_sm", "",
       "an SM kernel's host copy; peerbench's d2h uses the copy engine"},
      {"p2pBandwidthLatencyTest", "Unidirectional P2P=Enabled Bandwidth (P2P Writes)", "ce-write",
       "cudaMemcpyPeerAsync with peer access on, 160 MB (40M ints, its default)"},
      {"p2pBandwidthLatencyTest", "Unidirectional P2P=Enabled Bandwidth (P2P Reads)", "ce-read",
       "--p2p_read: the destination's copy engine pulls"},
      {"p2pBandwidthLatencyTest", "Unidirectional P2P=Disabled Bandwidth", "staged",
       "peer access off: the driver stages the copy through host memory"},
      {"p2pBandwidthLatencyTest", "Bidirectional P2P=Enabled Bandwidth", "ce-bidir",
       "both directions at once, the sum of both"},
      {"p2pBandwidthLatencyTest", "Bidirectional P2P=Disabled Bandwidth", "",
       "staged both ways; no peerbench method stages both ways at once"},
      {"p2pBandwidthLatencyTest", "P2P=Enabled Latency (P2P Writes)", "ce-latency",
       "one small cudaMemcpyPeerAsync with peer access on"},
      {"p2pBandwidthLatencyTest", "P2P=Disabled Latency", "",
       "a staged small copy; no peerbench latency method stages"},
  };
  return table;
}

const ImportedMethod* imported_method(const std::string& tool, const std::string& test) {
  for (const auto& m : imported_method_table()) {
    if (m.tool == tool && m.test == test) return &m;
  }
  return nullptr;
}

}  // namespace peerbench
