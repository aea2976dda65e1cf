#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdio>
#include <iomanip>
#include <iostream>

#include "app/commands.h"
#include "core/build_info.h"

namespace peerbench::app {

int list_methods_command(const std::vector<MethodInfo>& catalog) {
  std::cout << "Methods (run order):\n";
  for (const auto& m : catalog) {
    std::cout << "  " << std::left << std::setw(21) << m.name << m.summary << "\n";
  }
  std::cout << "\nGroups for --methods:\n";
  for (const auto& g : method_groups())
    std::cout << "  " << std::left << std::setw(21) << g.name << g.summary << "\n";
  return 0;
}

int version_command() {
  int rt = 0;
  const bool have_rt = cudaRuntimeGetVersion(&rt) == cudaSuccess;
  std::cout << "peerbench " << build_info::kVersion << " (" << build_info::kGitRevision << ")\n"
            << "built with CUDA runtime " << CUDART_VERSION / 1000 << "."
            << (CUDART_VERSION % 1000) / 10 << ", NCCL " << NCCL_MAJOR << "." << NCCL_MINOR << "."
            << NCCL_PATCH << "\n";
  if (have_rt) std::cout << "CUDA runtime loaded: " << rt / 1000 << "." << (rt % 1000) / 10 << "\n";
  return 0;
}

}  // namespace peerbench::app
