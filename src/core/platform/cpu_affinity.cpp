#include "core/platform/cpu_affinity.h"

#include <sched.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <string>

namespace peerbench {
bool parse_cpulist(const std::string& list, std::vector<int>& cpus) {
  cpus.clear();
  std::size_t i = 0;
  auto number = [&](long& v) {
    std::size_t j = i;
    v = 0;
    while (j < list.size() && std::isdigit(static_cast<unsigned char>(list[j])) && j - i < 7) {
      v = v * 10 + (list[j] - '0');
      ++j;
    }
    if (j == i) return false;
    i = j;
    return true;
  };
  while (i < list.size()) {
    long a = 0, b = 0;
    if (!number(a)) return false;
    b = a;
    if (i < list.size() && list[i] == '-') {
      ++i;
      if (!number(b) || b < a) return false;
    }
    for (long c = a; c <= b; ++c) cpus.push_back(static_cast<int>(c));
    if (i < list.size()) {
      if (list[i] != ',') return false;
      ++i;
    }
  }
  return !cpus.empty();
}

std::string bind_near_gpu(const std::string& pci_bus_id) {
  if (std::getenv("PEERBENCH_NO_BIND")) return "not bound: PEERBENCH_NO_BIND is set";
  cpu_set_t current;
  CPU_ZERO(&current);
  if (sched_getaffinity(0, sizeof(current), &current) != 0)
    return "not bound: sched_getaffinity failed";
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  const int have = CPU_COUNT(&current);
  if (online > 0 && have < online)
    return "kept the launcher's binding (" + std::to_string(have) + " CPUs)";
  std::string lower = pci_bus_id;
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::ifstream in("/sys/bus/pci/devices/" + lower + "/local_cpulist");
  std::string list;
  if (!(in >> list)) return "not bound: no local_cpulist for " + pci_bus_id;
  std::vector<int> cpus;
  if (!parse_cpulist(list, cpus)) return "not bound: unreadable local_cpulist '" + list + "'";
  cpu_set_t near;
  CPU_ZERO(&near);
  for (int c : cpus) {
    if (c < CPU_SETSIZE) CPU_SET(c, &near);
  }
  if (CPU_COUNT(&near) >= have) return "not bound: every CPU is near " + pci_bus_id;
  if (sched_setaffinity(0, sizeof(near), &near) != 0) return "not bound: sched_setaffinity refused";
  return "bound to CPUs " + list + " (near " + pci_bus_id + ")";
}

}  // namespace peerbench
