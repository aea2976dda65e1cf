#pragma once
// Bandwidth formulas, defined once.
//
// algbw = bytes / time, in GB/s with GB = 1e9 bytes (as nccl-tests and nvbandwidth report).
// busbw = algbw * factor, with the factors of nccl-tests' doc/PERFORMANCE.md: a collective's
// bus bandwidth is what each link must carry, so it is comparable to link speed and across
// rank counts:
//   all-reduce                                     2(n-1)/n
//   all-gather, reduce-scatter, all-to-all         (n-1)/n
//   broadcast, reduce, send/recv, raw copies       1
#include <cstddef>
#include <cstdint>
#include <string>

namespace peerbench {

enum class Collective {
  kCopy,
  kSendRecv,
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kBroadcast,
  kReduce
};

// Throws std::invalid_argument for nranks < 1.
double busbw_factor(Collective c, int nranks);

// GB/s for `bytes` moved in `seconds`; 0 when seconds <= 0.
double algbw_gbps(double bytes, double seconds);

// The bytes a figure is of: the size once per direction of data (a bidirectional method moves it
// both ways at once, and its figure is both together). flows 0 counts as 1.
double moved_bytes(std::uint64_t bytes, std::size_t flows);

// The ranks a busbw factor is taken over: every rank of the job for a method over all ranks,
// else the pair's 2.
int busbw_ranks(bool all_ranks, int job_ranks);

// What a collective takes, by what it is: a reduction operation (-o: all-reduce, reduce-scatter,
// reduce) and a root (-r: broadcast, reduce). The catalogue and the results reader both ask
// here, so a file reads back what the method was.
bool takes_op(Collective c);
bool takes_root(Collective c);

// Parses the name used in results ("copy", "sendrecv", "allreduce", ...).
Collective collective_from_name(const std::string& name);
std::string collective_name(Collective c);

}  // namespace peerbench
