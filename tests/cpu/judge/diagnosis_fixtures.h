#pragma once
// Fixtures of the diagnosis tests: the real 2 x H200 runs (tests/fixtures/runs/h200x2/, copied
// unedited from shared/runs/h200x2/), each derivation naming its one change, and node evidence
// built from facts measured on that machine (shared/REFERENCE.md, "Measured 2026-12-05 on one
// GPU") or quoted from a cited public output. No fixture states the cause a test then finds: each
// sets what a node shows, and the rules must read it.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/judge/diagnosis.h"
#include "core/judge/verdict.h"
#include "core/model/schema.h"
#include "test_fixtures.h"

namespace peerbench::test {

// As `report` does: the verdicts judged again, then their causes.
inline std::vector<DiagnosedCause> diagnosis_of(const RunDocument& d) {
  return diagnose(d, compute_verdicts(d, {}));
}

inline const DiagnosedCause* cause_in(const std::vector<DiagnosedCause>& cs,
                                      const std::string& code) {
  const auto it =
      std::find_if(cs.begin(), cs.end(), [&](const DiagnosedCause& c) { return c.code == code; });
  return it == cs.end() ? nullptr : &*it;
}

inline std::vector<std::string> codes_of(const std::vector<DiagnosedCause>& cs) {
  std::vector<std::string> out;
  for (const auto& c : cs) out.push_back(c.code);
  return out;
}

// Change: the variable `name` removed from the run's recorded environment.
inline RunDocument without_env(RunDocument d, const std::string& name) {
  d.environment.erase(name);
  return d;
}

// p2p-disabled.json with NCCL_P2P_DISABLE removed: NCCL on SHM between NVLink GPUs, no variable
// set (the "edited copy of that run").
inline RunDocument shm_without_variable() {
  return without_env(h200x2_run("p2p-disabled.json"), "NCCL_P2P_DISABLE");
}

// Change: CUDA's answer for every pair is "no peer access" (cudaDeviceCanAccessPeer 0,
// cudaErrorPeerAccessUnsupported), as on a PCIe pair across a redirecting switch or in a VM.
inline RunDocument peer_access_unsupported(RunDocument d) {
  for (auto& p : d.pairs) {
    p.can_access_peer = false;
    p.peer_access = "unsupported";
  }
  return d;
}

// Change: the run's GPUs are the cards at `buses` (rank i's card at buses[i]), in its ranks and
// its topology.
inline RunDocument on_cards(RunDocument d, const std::vector<std::string>& buses) {
  for (std::size_t i = 0; i < d.system.ranks.size() && i < buses.size(); ++i) {
    auto& gpu = d.system.ranks[i].gpu;
    for (auto& h : d.topology->hosts)
      for (auto& g : h.gpus)
        if (g.pci_bus_id == gpu.pci_bus_id) g.pci_bus_id = buses[i];
    gpu.pci_bus_id = buses[i];
  }
  return d;
}

// Change: CUDA refuses peer access on every pair, so the copies are staged through the host, and
// the GPUs are the cards at `buses`.
inline RunDocument host_staged_on(RunDocument d, const std::vector<std::string>& buses) {
  return on_cards(peer_access_unsupported(std::move(d)), buses);
}

// What the GPU machine showed (REFERENCE.md, 2026-12-05): a Firecracker microVM (CPU flag
// hypervisor, --firecracker-init on the kernel command line), /.dockerenv present, cgroup
// 0::/process_api/core, the IPC namespace PID 1's, a 128 GB /dev/shm, no IOMMU groups, the GPUs on
// the root bus (no bridge above them), NVML "Pass-Through", persistence on, no remapped-row
// failure. The snapshot of that machine's /proc and /dev/shm (/work/notes/gpu-sysroot: cmdline,
// cpuinfo's hypervisor flag, /.dockerenv, no /sys/class/dmi/id) gives the same facts.
inline NodeEvidence gpu_machine_evidence(const RunDocument& d) {
  NodeEvidence n;
  n.host = d.system.hosts.empty() ? "vm" : d.system.hosts.front();
  n.collected_by = "run";
  n.driver = "580.159.04";
  n.iommu.mode = "off";
  n.iommu.groups = 0;
  // /proc/cmdline of the snapshot (/work/notes/gpu-sysroot, 2026-12-05 22:40 UTC), its start and
  // the init's arguments.
  n.iommu.kernel_cmdline =
      "mitigations=auto,no_guest_host,no_guest_guest console=ttyS0 quiet reboot=k panic=1 "
      "random.trust_cpu=1 swiotlb=noforce ... pci=realloc=off ... -- --firecracker-init";
  n.virtualization.hypervisor_flag = true;
  n.virtualization.hypervisor_hint = "firecracker";
  n.virtualization.nvml_mode = "pass-through";
  n.container.runtime = "docker";
  n.container.signs = {"/.dockerenv present", "cgroup 0::/process_api/core"};
  n.container.ipc_namespace_is_init = true;
  n.container.shm_bytes = 137438953472ull;  // the snapshot's raw/df-shm.txt (df -B1 /dev/shm)
  for (const auto& r : d.system.ranks) {
    GpuPcieEvidence p;
    p.pci_bus_id = r.gpu.pci_bus_id;
    n.pcie.push_back(p);
    GpuNodeEvidence g;
    g.gpu_index = r.gpu.index;
    g.pci_bus_id = r.gpu.pci_bus_id;
    g.name = r.gpu.name;
    g.persistence_mode = true;
    g.remapped_rows_failure = false;
    g.fabric_state = "not-supported";
    n.gpus.push_back(g);
  }
  return n;
}

}  // namespace peerbench::test
