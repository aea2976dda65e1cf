#pragma once
// Shared MethodInfo shapes and the factory declarations of registry.cpp.
#include <memory>

#include "gpu/method.h"

namespace peerbench::gpu {

inline MethodInfo copy_method(const char* name, const char* family, const char* summary) {
  MethodInfo m;
  m.name = name;
  m.family = family;
  m.summary = summary;
  m.needs_p2p = true;
  m.same_host_only = true;
  return m;
}

inline MethodInfo bidir_method(const char* name, const char* family, const char* summary) {
  MethodInfo m = copy_method(name, family, summary);
  m.bidirectional = true;
  return m;
}

}  // namespace peerbench::gpu
