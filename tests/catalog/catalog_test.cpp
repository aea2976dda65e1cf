// The CPU tests judge, plan and parse against a catalogue written as plain data
// (cpu/test_catalog.h), since they do not link the GPU layer. This test links it and holds that
// data to the binary's own catalogue, field by field: method_catalog() builds the methods
// without touching a GPU, so it runs wherever the GPU layer builds (CI included).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu/method.h"
#include "test_catalog.h"

namespace peerbench {
namespace {

// Every field a CPU test may read, in words, so a mismatch says which.
std::vector<std::string> fields(const MethodInfo& m) {
  auto b = [](const char* k, bool v) { return std::string(k) + "=" + (v ? "1" : "0"); };
  return {"family=" + m.family,
          "scope=" + to_string(m.scope),
          "metric=" + to_string(m.metric),
          "collective=" + std::to_string(static_cast<int>(m.collective)),
          b("bidirectional", m.bidirectional),
          b("needs_p2p", m.needs_p2p),
          b("same_host_only", m.same_host_only),
          b("uses_nccl", m.uses_nccl),
          b("graph_capturable", m.graph_capturable),
          b("fixed_size", m.fixed_size),
          "fixed_bytes=" + std::to_string(m.fixed_bytes),
          b("typed", m.typed),
          b("reduces", m.reduces),
          b("rooted", m.rooted),
          b("all_gpus_at_once", m.all_gpus_at_once),
          "workers=" + std::to_string(m.workers),
          b("start_gated", m.start_gated)};
}

TEST(Catalog, TheCpuTestsCatalogueIsTheBinarysOwn) {
  const std::vector<MethodInfo> binary = gpu::method_catalog();
  const std::vector<MethodInfo> cpu = test::catalog();
  std::vector<std::string> names_binary, names_cpu;
  for (const auto& m : binary) names_binary.push_back(m.name);
  for (const auto& m : cpu) names_cpu.push_back(m.name);
  ASSERT_EQ(names_cpu, names_binary) << "same methods, in the binary's order";
  for (std::size_t i = 0; i < binary.size(); ++i)
    EXPECT_EQ(fields(cpu[i]), fields(binary[i])) << binary[i].name;
}

}  // namespace
}  // namespace peerbench
