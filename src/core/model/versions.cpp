#include "core/model/versions.h"

namespace peerbench {

std::string format_cuda_version(int v) {
  return v > 0 ? std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10) : "";
}

}  // namespace peerbench
