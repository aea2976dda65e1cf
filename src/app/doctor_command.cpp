// `peerbench doctor`: the node's evidence (host part from sysfs and procfs, GPU part from NVML)
// and what it finds wrong, in seconds, without MPI, a launcher or CUDA.
#include <iostream>

#include "app/commands.h"
#include "core/base/errors.h"
#include "core/judge/doctor_findings.h"
#include "core/model/json_text.h"
#include "core/model/node_evidence_host.h"
#include "core/model/schema_node_evidence.h"
#include "core/platform/environment.h"
#include "core/platform/host_name.h"
#include "core/present/node_evidence_text.h"
#include "gpu/node_evidence_gpu.h"

namespace peerbench::app {
namespace {

// "tests/data/sysroot/acs-amd-gpp/" -> "acs-amd-gpp".
std::string folder_name(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path.substr(path.find_last_of('/') + 1);
}

}  // namespace

int doctor_command(const DoctorOptions& o) {
  HostEvidenceRequest request;
  request.root = o.root;
  // A copy of a node's files is named by its folder, not by this machine.
  request.host = o.root == "/" ? physical_host_name() : folder_name(o.root);
  request.collected_by = "doctor";
  request.environment = environment_strings();
  NodeEvidence e = read_host_evidence(request);
  bool unreadable = false;
  if (o.root == "/") {
    gpu::Nvml nvml;
    if (e.pcie.empty() && nvml.available()) {
      // sysfs shows no NVIDIA GPU where NVML has some (a container without the host's /sys).
      const SysRoot root(o.root);
      for (const auto& id : gpu::nvml_gpu_bus_ids(nvml, e))
        e.pcie.push_back(read_gpu_pcie(root, id));
    }
    // No CUDA here: GPUs are numbered in PCI order, CUDA's ordinals are not asked.
    gpu::add_gpu_evidence(nvml, e, std::vector<int>(e.pcie.size(), -1));
    unreadable = !nvml.available();
  } else {
    e.notes.push_back("GPU part not read: --root is a copy of a node's files, not this node");
    unreadable = e.driver == "no NVIDIA driver";
  }
  const auto findings = doctor_findings(e, DoctorContext{static_cast<int>(e.pcie.size())});
  if (o.json) {
    std::cout << json_text(to_json(e), 1) << "\n";
  } else {
    std::cout << format_doctor_page(e, findings);
  }
  if (unreadable) return kExitUsage;
  return findings.empty() ? kExitOk : kExitFlagged;
}

}  // namespace peerbench::app
