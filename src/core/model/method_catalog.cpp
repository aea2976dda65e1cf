#include "core/model/method_catalog.h"

#include <string>

namespace peerbench {

namespace {

// The shapes methods share; an entry of method_catalog.def is one of them, or one changed by
// with().

MethodInfo plain_method(const char* name, const char* family, const char* summary) {
  MethodInfo m;
  m.name = name;
  m.family = family;
  m.summary = summary;
  return m;
}

template <class Change>
MethodInfo with(MethodInfo m, Change change) {
  change(m);
  return m;
}

// A copy between two GPUs of one host through peer access, issued by one of them.
MethodInfo copy_method(const char* name, const char* family, const char* summary) {
  MethodInfo m = plain_method(name, family, summary);
  m.needs_p2p = true;
  m.same_host_only = true;
  return m;
}

// Both GPUs copy into the other at once, each timing its own direction.
MethodInfo bidir_method(const char* name, const char* family, const char* summary) {
  MethodInfo m = copy_method(name, family, summary);
  m.bidirectional = true;
  m.workers = 2;
  return m;
}

// Time per operation at one small size (--latency-bytes), whatever the sweep.
MethodInfo latency_method(MethodInfo m) {
  m.metric = Metric::kLatency;
  m.fixed_size = true;
  return m;
}

// h2d, d2h, h2d-all, d2h-all: one GPU and pinned host memory on its NUMA node.
MethodInfo host_method(bool to_device, bool all_gpus) {
  const std::string name = std::string(to_device ? "h2d" : "d2h") + (all_gpus ? "-all" : "");
  const std::string summary =
      std::string(to_device ? "pinned host memory -> GPU" : "GPU -> pinned host memory") +
      " on the copy engine, host memory on the GPU's NUMA node where known" +
      (all_gpus ? ", every GPU at once (shared host PCIe and memory)" : ", one GPU at a time");
  MethodInfo m = plain_method(name.c_str(), "host", summary.c_str());
  m.scope = MethodScope::kPerGpu;
  m.all_gpus_at_once = all_gpus;
  return m;
}

// NCCL between the two ranks of a pair: both ends call it.
MethodInfo nccl_pair_method(const char* name, const char* summary, bool bidirectional) {
  MethodInfo m = plain_method(name, "nccl", summary);
  m.collective = Collective::kSendRecv;
  m.uses_nccl = true;
  m.bidirectional = bidirectional;
  m.workers = 2;
  return m;
}

// A collective over all ranks: every -d type, and -o and -r as the collective takes them.
MethodInfo collective_method(const char* name, const char* summary, Collective c) {
  MethodInfo m = nccl_pair_method(name, summary, false);
  m.scope = MethodScope::kAllRanks;
  m.collective = c;
  m.typed = true;
  m.reduces = takes_op(c);
  m.rooted = takes_root(c);
  m.workers = 0;
  return m;
}

std::vector<MethodInfo> entries() {
  return {
#define PEERBENCH_METHOD(id, info) info,
#include "core/model/method_catalog.def"
#undef PEERBENCH_METHOD
  };
}

}  // namespace

const std::vector<MethodInfo>& method_catalog() {
  static const std::vector<MethodInfo> catalog = entries();
  return catalog;
}

}  // namespace peerbench
