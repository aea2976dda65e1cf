#pragma once
// The fixture trees of tests/data/sysroot/ (each from a real machine's /sys and /proc, or derived
// with its change named in its README) read as a node's evidence.
#include <string>
#include <utility>
#include <vector>

#include "core/model/node_evidence_host.h"
#include "core/model/results.h"

namespace peerbench::test {

// The tree `name` read as `doctor` reads its node, with the environment `env` ("NAME=value").
inline NodeEvidence sysroot_evidence(const std::string& name, std::vector<std::string> env = {}) {
  HostEvidenceRequest r;
  r.root = std::string(PEERBENCH_SOURCE_DIR) + "/tests/data/sysroot/" + name;
  r.environment = std::move(env);
  r.host = name;
  return read_host_evidence(r);
}

// The tree `name` read as `run` reads its node: the run's GPUs in CUDA order, its host's name.
inline NodeEvidence sysroot_evidence_for_run(const std::string& name, const RunDocument& d) {
  HostEvidenceRequest r;
  r.root = std::string(PEERBENCH_SOURCE_DIR) + "/tests/data/sysroot/" + name;
  for (const auto& rank : d.system.ranks) r.gpu_bus_ids.push_back(rank.gpu.pci_bus_id);
  r.collected_by = "run";
  r.host = d.system.hosts.front();
  return read_host_evidence(r);
}

}  // namespace peerbench::test
