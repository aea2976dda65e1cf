#include "gpu/method.h"

#include "core/model/method_catalog.h"

namespace peerbench::gpu {

namespace {

MethodInfo entry_named(const std::string& name) {
  if (const MethodInfo* m = find_method(peerbench::method_catalog(), name)) return *m;
  MethodInfo bare;
  bare.name = name;
  return bare;
}

}  // namespace

Method::Method(const std::string& name) : info_(entry_named(name)) {}

std::vector<Flow> Method::flows(int src, int dst) const {
  const auto w = workers(src, dst);
  return {{src, dst, w.empty() ? src : w.front()}};
}

std::string Method::unavailable(const StepContext& c) const {
  if (info_.needs_p2p) return require_peer(c);
  return "";
}

std::string require_peer(const StepContext& c) {
  if (c.peer_usable) return "";
  return c.peer_reason.empty() ? "no peer access between the pair" : c.peer_reason;
}

MethodInfo described(const Method& m) {
  MethodInfo info = m.info();
  info.workers =
      info.scope == MethodScope::kAllRanks ? 0 : static_cast<int>(m.workers(0, 1).size());
  info.start_gated = m.use_start_gate();
  return info;
}

std::vector<MethodInfo> method_catalog() {
  (void)make_methods();  // the check: every entry has its implementation
  return peerbench::method_catalog();
}

}  // namespace peerbench::gpu
