#include "core/platform/environment.h"

#include <cstdlib>

extern char** environ;

namespace peerbench {
namespace {
bool starts_with(const std::string& s, const std::string& p) {
  return s.compare(0, p.size(), p) == 0;
}
}  // namespace

bool is_recorded_variable(const std::string& name) {
  // Secrets sometimes hide in *_TOKEN / *_KEY / *_PASSWORD even under known prefixes.
  for (const char* bad : {"TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "CREDENTIAL"}) {
    if (name.find(bad) != std::string::npos) return false;
  }
  if (starts_with(name, "NCCL_") || starts_with(name, "CUDA_")) return true;
  // Open MPI's transport and placement settings only; mpirun also exports its own bookkeeping
  // (job ids, daemon URIs, session folders, a transport key) under OMPI_MCA_, which is noise at
  // best and a credential at worst.
  for (const char* p :
       {"OMPI_MCA_btl", "OMPI_MCA_pml", "OMPI_MCA_mtl", "OMPI_MCA_osc", "OMPI_MCA_coll",
        "OMPI_MCA_opal_cuda", "OMPI_MCA_mpi_cuda", "OMPI_MCA_hwloc_base_binding_policy",
        "OMPI_MCA_rmaps_base_mapping_policy"}) {
    if (starts_with(name, p)) return true;
  }
  return name == "UCX_TLS" || name == "UCX_NET_DEVICES" || name == "PEERBENCH_HOST_ID";
}

std::map<std::string, std::string> recorded_environment(const std::vector<std::string>& env,
                                                        const std::string& home) {
  std::map<std::string, std::string> out;
  for (const auto& kv : env) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    const std::string name = kv.substr(0, eq);
    if (!is_recorded_variable(name)) continue;
    std::string value = kv.substr(eq + 1);
    if (!home.empty() && home != "/" && starts_with(value, home)) {
      value = "~" + value.substr(home.size());
    }
    out[name] = value;
  }
  return out;
}

std::vector<std::string> environment_strings() {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) env.emplace_back(*e);
  return env;
}

std::map<std::string, std::string> recorded_environment() {
  const auto env = environment_strings();
  const char* home = std::getenv("HOME");
  return recorded_environment(env, home ? home : "");
}

}  // namespace peerbench
