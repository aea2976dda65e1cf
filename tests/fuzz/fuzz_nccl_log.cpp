// libFuzzer target: NCCL logs are files we do not control.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/model/nccl_log.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace peerbench;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto p = parse_nccl_log(text);
  (void)summarize_transports(p.transports);
  (void)dominant_intra_path(p.graphs);
  return 0;
}
