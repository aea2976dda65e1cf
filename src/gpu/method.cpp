#include "gpu/method.h"

namespace peerbench::gpu {

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
  std::vector<MethodInfo> out;
  for (const auto& m : make_methods()) out.push_back(described(*m));
  return out;
}

}  // namespace peerbench::gpu
