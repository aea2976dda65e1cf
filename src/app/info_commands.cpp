#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdio>
#include <iostream>

#include "app/commands.h"
#include "core/build_info.h"
#include "core/model/versions.h"
#include "core/present/text_table.h"

namespace peerbench::app {

int list_methods_command(const std::vector<MethodInfo>& catalog) {
  // Both lists in one set of columns (core/present/text_table.h): no name runs into its summary.
  TextTable methods, groups;
  for (const auto& m : catalog) methods.add_row({m.name, m.summary});
  for (const auto& g : method_groups()) groups.add_row({g.name, g.summary});
  std::vector<std::size_t> widths = methods.widths(groups.widths({19}));
  std::cout << "Methods (run order):\n"
            << methods.render("  ", "  ", widths) << "\nGroups for --methods:\n"
            << groups.render("  ", "  ", widths);
  return 0;
}

int version_command() {
  int rt = 0;
  const bool have_rt = cudaRuntimeGetVersion(&rt) == cudaSuccess;
  std::cout << "peerbench " << build_info::kVersion << " (" << build_info::kGitRevision << ")\n"
            << "built with CUDA runtime " << format_cuda_version(CUDART_VERSION) << ", NCCL "
            << NCCL_MAJOR << "." << NCCL_MINOR << "." << NCCL_PATCH << "\n";
  if (have_rt) std::cout << "CUDA runtime loaded: " << format_cuda_version(rt) << "\n";
  return 0;
}

}  // namespace peerbench::app
