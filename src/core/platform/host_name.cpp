#include "core/platform/host_name.h"

#include <unistd.h>

#include <cstdlib>

namespace peerbench {

std::string physical_host_name() {
  char name[256] = {0};
  if (::gethostname(name, sizeof(name) - 1) != 0) return "unknown-host";
  return name;
}

std::string logical_host_name() {
  const char* id = std::getenv(kHostIdVariable);
  return (id && *id) ? std::string(id) : physical_host_name();
}

}  // namespace peerbench
