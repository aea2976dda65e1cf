// The host part of a node's evidence beyond PCIe: the IOMMU, virtualization, the container, the
// steering variables and CUDA's order, and the whole host part put together.
#include "core/model/node_evidence_host.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "core/base/text.h"

namespace peerbench {
namespace {

bool has_word(const std::string& text, const std::string& word) {
  return text.find(word) != std::string::npos;
}

std::string value_of(const std::vector<std::string>& env, const std::string& name) {
  for (const auto& kv : env) {
    if (kv.size() > name.size() && kv.compare(0, name.size(), name) == 0 && kv[name.size()] == '=')
      return kv.substr(name.size() + 1);
  }
  return "";
}

// The words that tell a VM apart, and where each is looked for (the kernel command line or the
// DMI vendor and product, lower-cased). First match wins.
struct HypervisorSign {
  bool in_cmdline;
  const char* word;
  const char* hint;
};
const HypervisorSign kHypervisorSigns[] = {
    {true, "firecracker", "firecracker"},
    {false, "firecracker", "firecracker"},
    {false, "qemu", "kvm"},
    {false, "kvm", "kvm"},
    {false, "vmware", "vmware"},
    {false, "virtualbox", "virtualbox"},
    {false, "xen", "xen"},
    {false, "amazon ec2", "amazon-ec2"},
    {false, "google compute engine", "gce"},
    {false, "virtual machine", "hyper-v"},
    {false, "openstack", "openstack"},
};

// Signs of a container runtime, strongest first: the runtime named is the first found.
struct ContainerSign {
  const char* runtime;
  const char* file;         // a file the runtime puts in the container, or ""
  const char* cgroup_word;  // a word of /proc/{1,self}/cgroup, or ""
  const char* variable;     // a variable set inside, or ""
};
const ContainerSign kContainerSigns[] = {
    {"kubernetes", "", "kubepods", "KUBERNETES_SERVICE_HOST"},
    {"podman", "/run/.containerenv", "libpod", ""},
    {"docker", "/.dockerenv", "docker", ""},
    {"containerd", "", "containerd", ""},
};

const char* const kSteeringVariables[] = {
    "NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL",     "NCCL_SHM_DISABLE",  "NCCL_IB_DISABLE",
    "NCCL_NET",         "NCCL_SOCKET_IFNAME", "NCCL_CUMEM_ENABLE", "CUDA_VISIBLE_DEVICES",
    "CUDA_DEVICE_ORDER"};

std::vector<std::string> cgroup_lines(const SysRoot& root) {
  std::vector<std::string> out;
  for (const char* file : {"/proc/1/cgroup", "/proc/self/cgroup"}) {
    for (const auto& line : split(root.read(file).value_or(""), '\n')) {
      if (!line.empty() && std::find(out.begin(), out.end(), line) == out.end())
        out.push_back(line);
    }
  }
  return out;
}

void find_runtime(const SysRoot& root, const std::vector<std::string>& env, ContainerEvidence& c) {
  const auto cgroups = cgroup_lines(root);
  for (const auto& sign : kContainerSigns) {
    bool found = false;
    if (*sign.file && root.exists(sign.file)) {
      c.signs.push_back(std::string(sign.file) + " present");
      found = true;
    }
    for (const auto& line : cgroups) {
      if (*sign.cgroup_word && has_word(line, sign.cgroup_word) && c.signs.size() < 8) {
        c.signs.push_back("cgroup " + line.substr(0, 120));
        found = true;
      }
    }
    if (*sign.variable && !value_of(env, sign.variable).empty()) {
      c.signs.push_back(std::string(sign.variable) + " set");
      found = true;
    }
    if (found && c.runtime.empty()) c.runtime = sign.runtime;
  }
  if (c.runtime.empty()) c.runtime = "none";
}

}  // namespace

std::string nvidia_module_version(const SysRoot& root) {
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024"
  const auto text = root.read("/proc/driver/nvidia/version", 4096);
  if (!text) return "";
  const std::string line = split(*text, '\n').front();
  const std::string mark = "Kernel Module";
  const auto at = line.find(mark);
  if (at == std::string::npos) return line.substr(0, 80);
  std::string rest = line.substr(at + mark.size());
  const auto b = rest.find_first_not_of(' ');
  if (b == std::string::npos) return line.substr(0, 80);
  return rest.substr(b, rest.find(' ', b) - b);
}

IommuEvidence read_iommu(const SysRoot& root, const std::vector<GpuPcieEvidence>& gpus) {
  IommuEvidence e;
  e.kernel_cmdline = root.read_line("/proc/cmdline").value_or("");
  if (!root.exists("/sys/kernel/iommu_groups")) {
    e.note = "/sys/kernel/iommu_groups not readable";
  } else {
    const auto names = root.list("/sys/kernel/iommu_groups");  // groups are numbered
    e.groups = static_cast<int>(std::count_if(names.begin(), names.end(), [](const std::string& n) {
      return !n.empty() && std::all_of(n.begin(), n.end(), ::isdigit);
    }));
  }
  for (const auto& g : gpus) {
    if (!g.iommu_group || !e.default_domain_type.empty()) continue;
    e.default_domain_type =
        root.read_line("/sys/kernel/iommu_groups/" + std::to_string(*g.iommu_group) + "/type")
            .value_or("");
  }
  const auto words = split(e.kernel_cmdline, ' ');
  const bool pt_on_cmdline = std::find(words.begin(), words.end(), "iommu=pt") != words.end();
  if (e.groups && *e.groups == 0) {
    e.mode = "off";
  } else if (e.default_domain_type == "identity") {
    e.mode = "passthrough";
  } else if (e.default_domain_type.rfind("DMA", 0) == 0) {
    e.mode = "translated";
  } else if (pt_on_cmdline) {
    e.mode = "passthrough";
  }
  return e;
}

VirtualizationEvidence read_virtualization(const SysRoot& root) {
  VirtualizationEvidence v;
  if (auto cpuinfo = root.read("/proc/cpuinfo")) {
    for (const auto& line : split(*cpuinfo, '\n')) {
      if (line.rfind("flags", 0) != 0) continue;  // the first CPU's flags stand for all
      const auto words = split(line.substr(line.find(':') + 1), ' ');
      v.hypervisor_flag = std::find(words.begin(), words.end(), "hypervisor") != words.end();
      break;
    }
  }
  if (!v.hypervisor_flag) v.note = "no CPU flags in /proc/cpuinfo";
  v.dmi_vendor = root.read_line("/sys/class/dmi/id/sys_vendor").value_or("");
  v.dmi_product = root.read_line("/sys/class/dmi/id/product_name").value_or("");
  const std::string cmdline = ascii_lower(root.read_line("/proc/cmdline").value_or(""));
  const std::string dmi = ascii_lower(v.dmi_vendor + " " + v.dmi_product);
  for (const auto& s : kHypervisorSigns) {
    if (has_word(s.in_cmdline ? cmdline : dmi, s.word)) {
      v.hypervisor_hint = s.hint;
      break;
    }
  }
  return v;
}

ContainerEvidence read_container(const SysRoot& root, const std::vector<std::string>& env) {
  ContainerEvidence c;
  find_runtime(root, env, c);
  const auto mine = root.link_target("/proc/self/ns/ipc");
  const auto init = root.link_target("/proc/1/ns/ipc");
  if (mine && init) {
    c.ipc_namespace_is_init = *mine == *init;
  } else {
    c.note = "IPC namespaces not readable";
  }
  if (auto s = root.space("/dev/shm")) {
    c.shm_bytes = s->total;
    c.shm_free_bytes = s->free;
  } else {
    c.note += std::string(c.note.empty() ? "" : "; ") + "/dev/shm missing";
  }
  return c;
}

std::map<std::string, std::string> steering_environment(const std::vector<std::string>& env) {
  std::map<std::string, std::string> out;
  for (const char* name : kSteeringVariables) {
    const std::string prefix = std::string(name) + "=";
    for (const auto& kv : env) {
      if (kv.rfind(prefix, 0) == 0) out[name] = kv.substr(prefix.size(), 256);
    }
  }
  return out;
}

std::optional<bool> cuda_order_from_environment(const std::map<std::string, std::string>& steering,
                                                bool same_model) {
  const auto order = steering.find("CUDA_DEVICE_ORDER");
  const bool pci_order = order != steering.end() && order->second == "PCI_BUS_ID";
  // FASTEST_FIRST (the default) puts faster models first; among one model, PCI order.
  if (!pci_order && !same_model) return std::nullopt;
  const auto visible = steering.find("CUDA_VISIBLE_DEVICES");
  if (visible == steering.end()) return false;
  long long last = -1;
  for (const auto& item : split(visible->second, ',')) {
    if (item.empty() || !std::all_of(item.begin(), item.end(), ::isdigit)) return std::nullopt;
    const long long n = std::stoll(item.substr(0, 9));
    if (n < last) return true;
    last = n;
  }
  return false;
}

NodeEvidence read_host_evidence(const HostEvidenceRequest& request) {
  const SysRoot root(request.root);
  NodeEvidence e;
  e.host = request.host;
  e.collected_by = request.collected_by;
  const auto gpus = request.gpu_bus_ids.empty() ? nvidia_gpus_in_sysfs(root) : request.gpu_bus_ids;
  std::set<std::string> models;
  for (const auto& id : gpus) {
    e.pcie.push_back(read_gpu_pcie(root, id));
    models.insert(root.read_line("/sys/bus/pci/devices/" + e.pcie.back().pci_bus_id + "/device")
                      .value_or(id));
  }
  if (gpus.empty()) e.notes.push_back("no NVIDIA GPU in /sys/bus/pci/devices");
  int unread = 0;
  for (const auto& g : e.pcie) {
    for (const auto& b : g.bridges) unread += b.note == "unreadable without root" ? 1 : 0;
  }
  if (unread > 0)
    e.notes.push_back("ACS of " + count_of(unread, "bridge") +
                      " unreadable without root: run as root to see whether it redirects");
  e.driver = nvidia_module_version(root);
  if (e.driver.empty()) e.driver = "no NVIDIA driver";
  e.iommu = read_iommu(root, e.pcie);
  e.virtualization = read_virtualization(root);
  e.container = read_container(root, request.environment);
  e.steering_environment = steering_environment(request.environment);
  // With no GPU there is no order to tell.
  if (request.cuda_order_differs) {
    e.cuda_order_differs_from_pci = request.cuda_order_differs;
  } else if (!gpus.empty()) {
    e.cuda_order_differs_from_pci =
        cuda_order_from_environment(e.steering_environment, models.size() <= 1);
  }
  return e;
}

}  // namespace peerbench
