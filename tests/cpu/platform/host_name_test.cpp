// The name a run records for its host: one rule for the no-launcher pre-check and the ranks.
#include "core/platform/host_name.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <optional>
#include <string>

namespace peerbench {
namespace {

// Sets PEERBENCH_HOST_ID for one scope and puts back what was there.
class HostIdScope {
 public:
  explicit HostIdScope(const char* value) {
    if (const char* was = std::getenv(kHostIdVariable)) before_ = was;
    if (value) {
      ::setenv(kHostIdVariable, value, 1);
    } else {
      ::unsetenv(kHostIdVariable);
    }
  }
  HostIdScope(const HostIdScope&) = delete;
  HostIdScope& operator=(const HostIdScope&) = delete;
  ~HostIdScope() {
    if (before_) {
      ::setenv(kHostIdVariable, before_->c_str(), 1);
    } else {
      ::unsetenv(kHostIdVariable);
    }
  }

 private:
  std::optional<std::string> before_;
};

TEST(HostName, PeerbenchHostIdNamesTheLogicalHostOnly) {
  const std::string machine = physical_host_name();
  EXPECT_FALSE(machine.empty());
  {
    HostIdScope id(nullptr);
    EXPECT_EQ(logical_host_name(), machine);
  }
  {
    HostIdScope id("rack7-n3");
    EXPECT_EQ(logical_host_name(), "rack7-n3");
    EXPECT_EQ(physical_host_name(), machine) << "NCCL's %h and the node grouping keep the machine";
  }
  {
    HostIdScope id("");  // set but empty: not a name
    EXPECT_EQ(logical_host_name(), machine);
  }
}

}  // namespace
}  // namespace peerbench
