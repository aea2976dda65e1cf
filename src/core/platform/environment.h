#pragma once
// The environment variables that change results, and only those: the JSON must not carry
// secrets, so the whole environment is never dumped.
#include <map>
#include <string>
#include <vector>

namespace peerbench {

// True for variables recorded in results: NCCL_*, CUDA_* (CUDA_VISIBLE_DEVICES,
// CUDA_DEVICE_MAX_CONNECTIONS, ...), Open MPI's transport and binding settings (OMPI_MCA_btl*,
// pml*, mtl*, osc*, coll*, *cuda*, binding and mapping policy), UCX_TLS, UCX_NET_DEVICES and
// PEERBENCH_HOST_ID.
bool is_recorded_variable(const std::string& name);

// Picks the recorded variables out of `environ`-style "NAME=value" strings. Values that look like
// they are under the user's home (start with $HOME) are replaced by "~/..." so home paths do not
// end up in shared reports.
std::map<std::string, std::string> recorded_environment(const std::vector<std::string>& env,
                                                        const std::string& home);

// The current process's whole environment as "NAME=value" strings, for readers that pick their
// own variables (the node evidence's steering variables); never written out whole.
std::vector<std::string> environment_strings();

// The current process's recorded environment.
std::map<std::string, std::string> recorded_environment();

}  // namespace peerbench
