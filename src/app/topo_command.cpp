#include <unistd.h>

#include <iostream>

#include "app/commands.h"
#include "app/output.h"
#include "core/base/errors.h"
#include "core/build_info.h"
#include "core/model/json_text.h"
#include "core/model/schema.h"
#include "core/platform/atomic_file.h"
#include "core/platform/host_name.h"
#include "core/present/topology_text.h"
#include "gpu/check.h"
#include "gpu/nvml.h"
#include "gpu/topology_probe.h"

namespace peerbench::app {

int topo_command(const TopoOptions& o, const std::vector<std::string>& argv) {
  const bool to_stdout = o.json_path == "-";  // the JSON in place of the matrix
  if (!o.json_path.empty() && !to_stdout) {
    const std::string why = output_refusal(o.json_path);
    if (!why.empty()) throw UsageError("--json: " + why);
  }
  const std::string host = physical_host_name();
  gpu::Nvml nvml;
  HostTopology h;
  try {
    h = gpu::probe_host_topology(host, nvml);
  } catch (const gpu::CudaError& e) {
    // A launch that cannot work: one line, exit code 2, as run says it.
    std::cerr << "peerbench: error: no usable CUDA GPU on " << host << ": " << e.what()
              << (nvml.available() ? "" : " (NVML: " + nvml.why() + ")") << "\n";
    return kExitUsage;
  }
  if (!o.quiet) std::cout << format_topology_matrix(h);
  if (!o.json_path.empty()) {
    TopologyReport t;
    t.hosts.push_back(h);
    ToolInfo tool;
    tool.version = build_info::kVersion;
    tool.git_revision = build_info::kGitRevision;
    tool.command_line = argv;
    const std::string text = json_text(topology_document(t, tool), 1) + "\n";
    if (to_stdout) {
      emit(text, "", {}, {});
    } else {
      write_output(o.json_path, text, "--json");
    }
    if (!o.quiet) std::cout << "\nWrote " << o.json_path << "\n";
  }
  return kExitOk;
}

}  // namespace peerbench::app
