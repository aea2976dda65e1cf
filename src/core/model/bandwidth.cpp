#include "core/model/bandwidth.h"

#include <stdexcept>

namespace peerbench {

double busbw_factor(Collective c, int nranks) {
  if (nranks < 1) throw std::invalid_argument("busbw_factor: nranks must be >= 1");
  const double n = nranks;
  switch (c) {
    case Collective::kAllReduce:
      return 2.0 * (n - 1) / n;
    case Collective::kAllGather:
    case Collective::kReduceScatter:
    case Collective::kAllToAll:
      return (n - 1) / n;
    case Collective::kCopy:
    case Collective::kSendRecv:
    case Collective::kBroadcast:
    case Collective::kReduce:
      return 1.0;
  }
  return 1.0;
}

bool takes_op(Collective c) {
  return c == Collective::kAllReduce || c == Collective::kReduceScatter || c == Collective::kReduce;
}

bool takes_root(Collective c) {
  return c == Collective::kBroadcast || c == Collective::kReduce;
}

double moved_bytes(std::uint64_t bytes, std::size_t flows) {
  return static_cast<double>(bytes) * static_cast<double>(flows > 0 ? flows : 1);
}

int busbw_ranks(bool all_ranks, int job_ranks) {
  return all_ranks ? job_ranks : 2;
}

double algbw_gbps(double bytes, double seconds) {
  return seconds > 0 ? bytes / seconds / 1e9 : 0;
}

namespace {
struct Name {
  Collective c;
  const char* name;
};
constexpr Name kNames[] = {
    {Collective::kCopy, "copy"},
    {Collective::kSendRecv, "sendrecv"},
    {Collective::kAllReduce, "allreduce"},
    {Collective::kAllGather, "allgather"},
    {Collective::kReduceScatter, "reducescatter"},
    {Collective::kAllToAll, "alltoall"},
    {Collective::kBroadcast, "broadcast"},
    {Collective::kReduce, "reduce"},
};
}  // namespace

Collective collective_from_name(const std::string& name) {
  for (const auto& n : kNames) {
    if (name == n.name) return n.c;
  }
  throw std::invalid_argument("unknown collective '" + name + "'");
}

std::string collective_name(Collective c) {
  for (const auto& n : kNames) {
    if (n.c == c) return n.name;
  }
  return "copy";
}

}  // namespace peerbench
