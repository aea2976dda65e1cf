#include "core/judge/cause_table.h"

#include <algorithm>

namespace peerbench {

namespace {

using K = CauseKind;

// The figures a road off the link slows: NCCL's and the bars'.
#define PB_FIGURES "below-link", "below-expected", "high-latency", "off-baseline"

// NCCL variables and the container: the first suspects where traffic left a healthy link.
std::vector<CauseInfo> setting_and_container_rows() {
  // clang-format off
  return {
      {"nccl-p2p-disabled-by-env", K::kSetting,
       "NCCL_P2P_DISABLE=1 in the run's environment, or NCCL's echo of it in its log",
       "NCCL_P2P_DISABLE={value} was set: NCCL did not use peer-to-peer between {pairs} and took {road}",
       "Next: unset NCCL_P2P_DISABLE and run again",
       {"nccl-shm", "nccl-net", PB_FIGURES}, "NCCL_P2P_DISABLE set"},
      {"nccl-shm-disabled-by-env", K::kSetting,
       "NCCL_SHM_DISABLE=1 in the run's environment, or NCCL's echo of it, where NCCL took the network",
       "NCCL_SHM_DISABLE={value} was set: with peer-to-peer off too, NCCL took {road} between {pairs}",
       "Next: unset NCCL_SHM_DISABLE (and NCCL_P2P_DISABLE) and run again",
       {"nccl-net", PB_FIGURES}, "NCCL_SHM_DISABLE set"},
      {"nccl-p2p-level-env", K::kSetting,
       "NCCL_P2P_LEVEL nearer than the pair's path (LOC on any pair; PIX on a pair across a host bridge), or NCCL's echo of it",
       "NCCL_P2P_LEVEL={value} allows peer-to-peer only up to {level}: NCCL took {road} between {pairs}",
       "Next: unset NCCL_P2P_LEVEL (or set it to SYS) and run again",
       {"nccl-shm", "nccl-net", PB_FIGURES}, "NCCL_P2P_LEVEL set too low"},
      {"nccl-net-forced-by-env", K::kSetting,
       "NCCL_IB_DISABLE=1 or NCCL_NET=Socket where NCCL took sockets between hosts",
       "{value} was set: NCCL took sockets ({road}) between {pairs}, not InfiniBand/RoCE",
       "Next: unset {name} and run again",
       {"nccl-net-socket", PB_FIGURES}, "NCCL told to use sockets"},
      {"shm-too-small", K::kContainer,
       "the /dev/shm size (node evidence) under what NCCL needs for the host's ranks, or NCCL's shared-memory errors",
       "/dev/shm holds {shm}; NCCL needs about {need} for {ranks} ranks on {host}",
       "Next: run the container with --ipc=host, or --shm-size={need} or more (NCCL needs about {need} for {ranks} ranks)",
       {"nccl-net", "nccl-shm", PB_FIGURES}, "/dev/shm too small for NCCL"},
      {"ipc-namespace-private", K::kContainer,
       "the IPC namespace is not the host's (node evidence) and no container was seen",
       "the ranks on {host} run in an IPC namespace of their own (not PID 1's): shared memory with processes outside it fails",
       "Next: run every rank in the host's IPC namespace (not under unshare -i) and run again",
       {"nccl-shm", "nccl-net", "host-staged", PB_FIGURES}, "a private IPC namespace"},
      {"container-no-ipc-host", K::kContainer,
       "a container runtime (node evidence) whose IPC namespace is not the host's",
       "the ranks on {host} run in a {runtime} container without the host's IPC namespace (/dev/shm {shm})",
       "Next: run the container with --ipc=host and --shm-size={need} or more (NCCL needs about {need} for {ranks} ranks)",
       {"nccl-shm", "nccl-net", "host-staged", PB_FIGURES}, "containers without --ipc=host"},
  };
  // clang-format on
}

// The platform between GPUs: PCIe, IOMMU, hypervisor, driver, CUDA, the fabric.
std::vector<CauseInfo> platform_rows() {
  // clang-format off
  return {
      {"acs-redirect", K::kPlatform,
       "ACS request or completion redirect on a PCIe bridge above a GPU (config space, node evidence)",
       "ACS on bridge {bridge} ({acs}) sends peer traffic of {gpus} up to the root complex",
       "Next: disable ACS on bridge {bridge} (BIOS, or {setpci}) or boot with iommu=pt",
       {"host-staged", "p2p-slower-than-staged", "nccl-shm", "asymmetric", PB_FIGURES},
       "ACS enabled on their PCIe switches"},
      {"iommu-translated", K::kPlatform,
       "the IOMMU in translated (DMA) mode (node evidence: IOMMU groups and their default domain)",
       "the IOMMU translates DMA on {host} ({mode}, default domain {domain}): peer traffic over PCIe goes through it",
       "Next: boot {host} with iommu=pt (and intel_iommu=on or amd_iommu=on as it is) and run again",
       {"host-staged", "p2p-slower-than-staged", "nccl-shm", PB_FIGURES}, "IOMMU translating DMA"},
      {"virtualized-no-p2p", K::kPlatform,
       "a hypervisor (CPU flag, DMI, NVML virtualization mode) where CUDA says peer access is unsupported",
       "{host} is a virtual machine ({hypervisor}) and CUDA has no peer access between {pairs}",
       "Next: ask the hypervisor's operator to pass the GPUs through with peer-to-peer (same PCIe switch or NVLink), or run on bare metal",
       {"host-staged", "p2p-slower-than-staged", "nccl-shm", PB_FIGURES}, "virtual machines without peer-to-peer"},
      {"peer-access-unsupported", K::kPlatform,
       "CUDA's peer-access answer (cudaDeviceCanAccessPeer, cudaErrorPeerAccessUnsupported) with no platform cause read",
       "CUDA says peer access between {pairs} is unsupported ({peer_access}): copies go through host memory",
       "Next: run peerbench doctor on {host} (ACS, IOMMU, virtualization) and nvidia-smi topo -p2p r",
       {"host-staged", "p2p-slower-than-staged", "nccl-shm", PB_FIGURES}, "no peer access between GPUs"},
      {"consumer-card-p2p-off", K::kPlatform,
       "a consumer card (GeForce, RTX) whose driver turns peer-to-peer off (node evidence or the GPU's name)",
       "{gpus} are consumer cards whose driver turns peer-to-peer off: copies between {pairs} go through host memory",
       "Next: expect host-staged copies on these cards; for peer-to-peer use data-centre GPUs",
       {"host-staged", "p2p-slower-than-staged", "nccl-shm", PB_FIGURES}, "consumer cards without peer-to-peer"},
      {"nvlink-links-down", K::kHardware,
       "NVLinks down (NVML link state, in the topology or node evidence) against the model's count or its peers",
       "links {links} of {gpu} are down ({up} of {expected} up)",
       "Next: links {links} of {gpu} are down: nvidia-smi nvlink -s, then reseat or RMA",
       {"nvlink-degraded", "off-nvlink", "asymmetric", "nccl-shm", PB_FIGURES}, "NVLinks down"},
      {"fabric-manager-not-running", K::kPlatform,
       "the NVLink fabric state not-started or in-progress (NVML), on NVSwitch systems",
       "the NVLink fabric of {gpus} is {state}: the fabric manager has not registered it",
       "Next: start nvidia-fabricmanager on {host} (systemctl start nvidia-fabricmanager) and run again",
       {"fabric-unhealthy", "host-staged", "nccl-shm", "nccl-net", PB_FIGURES}, "fabric manager not running"},
      {"fabric-degraded", K::kHardware,
       "the NVLink fabric registered (completed) with NVML's health not healthy (degraded bandwidth, route unhealthy, insufficient NVLinks, ...), on NVSwitch systems",
       "the NVLink fabric of {gpus} is registered but reports {health}",
       "Next: read the fabric manager's log on {host} and nvidia-smi -q (Fabric state, status and health) for what it names, then reseat or RMA it",
       {"fabric-unhealthy", "nvlink-degraded", "nccl-shm", "nccl-net", PB_FIGURES}, "NVLink fabric unhealthy"},
  };
  // clang-format on
}

// The GPUs themselves, their other users, context, NCCL's words, and nothing read.
std::vector<CauseInfo> gpu_and_other_rows() {
  // clang-format off
  return {
      {"clocks-power-capped", K::kHardware,
       "clock event reasons of the power cap or power brake (NVML) while the figures were measured",
       "the clocks of {gpus} were held by the power cap ({reasons})",
       "Next: check the power limit and cooling of {gpus} (nvidia-smi -q -d POWER,PERFORMANCE)",
       {"asymmetric", "drift", PB_FIGURES}, "clocks held by the power cap"},
      {"clocks-thermal", K::kHardware,
       "thermal or hardware slowdown clock event reasons (NVML) while the figures were measured",
       "the clocks of {gpus} were held for heat ({reasons})",
       "Next: check the cooling and airflow of {gpus} (nvidia-smi -q -d TEMPERATURE,PERFORMANCE)",
       {"asymmetric", "drift", PB_FIGURES}, "clocks held for heat"},
      {"ecc-remapped-failure", K::kHardware,
       "a row-remapping failure or uncorrected ECC errors of a GPU (NVML, node evidence)",
       "{gpus} reports {what}",
       "Next: drain {gpus} and have it replaced (nvidia-smi -q -d ROW_REMAPPER,ECC)",
       {"data-errors", "burn-in-errors", "intermittent"}, "GPU memory failures"},
      {"cuda-order-differs", K::kContext,
       "CUDA's device order differing from PCI bus order (the ranks' GPUs, CUDA_VISIBLE_DEVICES)",
       "GPU numbers here are CUDA's ({order}), not PCI bus order",
       "Next: find each card by the PCI bus id the report names (or set CUDA_DEVICE_ORDER=PCI_BUS_ID)",
       {}, "CUDA order unlike PCI order"},
      {"gpu-busy-other-process", K::kContention,
       "another process or utilization not the job's on a GPU while it ran (NVML)",
       "{gpus} ran {process} beside the job",
       "Next: run again when {process} has finished (run --wait-idle SECONDS waits for it)",
       {"asymmetric", "p2p-slower-than-staged", "drift", PB_FIGURES}, "GPUs busy with other jobs"},
      {"nccl-reason-from-log", K::kPlatform,
       "NCCL's own reason in its INFO log, where no setting or node fact explains it",
       "NCCL said why it left peer-to-peer between {pairs}: \"{reason}\"",
       "Next: {check}",
       {"nccl-shm", "nccl-net", "nccl-net-socket", PB_FIGURES}, "NCCL refused peer-to-peer"},
      {"unknown", K::kUnknown,
       "nothing: no cause read explains the flags",
       "no cause read for {flags}{hint}",
       "Next: {measurement}",
       {"host-staged", "nccl-shm", "nccl-net", "nccl-net-socket", "below-link", "high-latency",
        "p2p-slower-than-staged", "asymmetric", "data-errors", "off-nvlink", "link-errors",
        "pcie-downtrained", "nvlink-degraded", "fabric-unhealthy", "below-expected", "off-baseline",
        "burn-in-errors", "intermittent", "drift", "fleet-outlier"},
       "no cause read"},
  };
  // clang-format on
}

}  // namespace

const std::vector<CauseInfo>& cause_table() {
  static const std::vector<CauseInfo> table = [] {
    std::vector<CauseInfo> t;
    for (auto rows : {setting_and_container_rows(), platform_rows(), gpu_and_other_rows()})
      t.insert(t.end(), rows.begin(), rows.end());
    return t;
  }();
  return table;
}

#undef PB_FIGURES

const std::vector<UnknownMeasurement>& unknown_measurements() {
  // clang-format off
  static const std::vector<UnknownMeasurement> table{
      {"nccl-shm", "run peerbench doctor on {host} (container, /dev/shm, IPC namespace, NCCL variables) and run again with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P,SHM,NET so NCCL says why"},
      {"nccl-net", "run peerbench doctor on {host} (container, /dev/shm, IPC namespace, NCCL variables) and run again with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P,SHM,NET so NCCL says why"},
      {"nccl-net-socket", "run again with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET so NCCL says why it left InfiniBand (ibv_devinfo on {host})"},
      {"host-staged", "run peerbench doctor on {host} (ACS, IOMMU, virtualization) and nvidia-smi topo -p2p r"},
      {"p2p-slower-than-staged", "run peerbench doctor on {host} (ACS, IOMMU, PCIe path) and nvidia-smi topo -p2p r"},
      {"link-errors", "nvidia-smi nvlink -e on {host} now and after a burn-in (peerbench run -N 10) to see the counters grow"},
      {"pcie-downtrained", "lspci -vvv on {host} (LnkSta against LnkCap of the GPU and its bridges), then reseat the card or check the slot's BIOS setting"},
      {"nvlink-degraded", "nvidia-smi nvlink -s on {host} (each link's state and speed), then reseat or RMA"},
      {"fabric-unhealthy", "nvidia-smi -q on {host} (Fabric state, status and health) and the fabric manager's log"},
      {"off-nvlink", "nvidia-smi nvlink -s and nvidia-smi topo -m on {host}: which links the copies took"},
      {"data-errors", "a burn-in on these GPUs (peerbench run -N 20) and nvidia-smi -q -d ECC,ROW_REMAPPER on {host}"},
      {"burn-in-errors", "nvidia-smi -q -d ECC,ROW_REMAPPER on {host}, then a burn-in on each GPU alone"},
      {"intermittent", "nvidia-smi -q -d ECC,ROW_REMAPPER on {host}, then a longer burn-in (--duration 1h)"},
  };
  // clang-format on
  return table;
}

std::string unknown_measurement(const std::string& flag) {
  for (const auto& m : unknown_measurements())
    if (flag == m.flag) return m.measurement;
  return "run peerbench doctor on {host} (links, clocks, PCIe path, other processes), then run "
         "again with --confirm 3 to measure the flagged cases once more";
}

const CauseInfo* find_cause(const std::string& code) {
  const auto& t = cause_table();
  const auto it =
      std::find_if(t.begin(), t.end(), [&](const CauseInfo& c) { return code == c.code; });
  return it == t.end() ? nullptr : &*it;
}

std::string to_string(CauseKind k) {
  switch (k) {
    case CauseKind::kSetting:
      return "setting";
    case CauseKind::kContainer:
      return "container";
    case CauseKind::kPlatform:
      return "platform";
    case CauseKind::kHardware:
      return "hardware";
    case CauseKind::kContention:
      return "contention";
    case CauseKind::kContext:
      return "context";
    case CauseKind::kUnknown:
      return "unknown";
  }
  return "unknown";
}

bool cause_explains(const std::string& code, const std::string& flag) {
  const CauseInfo* c = find_cause(code);
  if (!c) return false;
  return std::any_of(c->flags.begin(), c->flags.end(), [&](const char* f) { return flag == f; });
}

std::string fill_fields(const std::string& text, const std::map<std::string, std::string>& fields) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const auto open = text.find('{', i);
    const auto close = open == std::string::npos ? open : text.find('}', open);
    if (close == std::string::npos) {
      out += text.substr(i);
      break;
    }
    const auto it = fields.find(text.substr(open + 1, close - open - 1));
    out += text.substr(i, open - i);
    out += it == fields.end() ? text.substr(open, close - open + 1) : it->second;
    i = close + 1;
  }
  return out;
}

std::string join_and(const std::vector<std::string>& items) {
  if (items.size() < 2) return items.empty() ? "" : items.front();
  std::string out;
  for (std::size_t i = 0; i + 1 < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out + " and " + items.back();
}

DiagnosedCause table_cause(const std::string& code, const std::string& strength,
                           const std::map<std::string, std::string>& fields) {
  DiagnosedCause c;
  c.code = code;
  c.strength = strength;
  if (const CauseInfo* row = find_cause(code)) {
    c.summary = fill_fields(fill_fields(row->wording, fields), fields);
    c.next = fill_fields(fill_fields(row->next, fields), fields);
  }
  return c;
}

}  // namespace peerbench
