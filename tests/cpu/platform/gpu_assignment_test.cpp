// Ranks onto GPUs by PCI bus id: per-task binding (every rank sees "device 0") is one rank per
// GPU; two ranks on one bus id are caught.
#include <gtest/gtest.h>

#include "core/platform/gpu_assignment.h"

namespace peerbench {
namespace {

TEST(GpuAssignment, PerTaskBindingIsOneRankPerGpu) {
  // 2 x H200 with CUDA_VISIBLE_DEVICES per rank (shared/runs/h200x2/isolation.txt): both ranks
  // are device 0 in their own view, and their bus ids differ.
  EXPECT_EQ(shared_gpu_problem({"vm", "vm"}, {"0000:00:06.0", "0000:00:07.0"}), "");
}

TEST(GpuAssignment, TwoRanksOnOneGpuAreNamed) {
  const auto why = shared_gpu_problem({"vm", "vm"}, {"0000:00:06.0", "0000:00:06.0"});
  EXPECT_NE(why.find("host vm runs 2 ranks"), std::string::npos) << why;
  EXPECT_NE(why.find("1 distinct GPU "), std::string::npos) << why;
  EXPECT_NE(why.find("one rank per GPU"), std::string::npos) << why;
}

TEST(GpuAssignment, SameBusIdOnDifferentNodesIsFine) {
  EXPECT_EQ(shared_gpu_problem({"a", "a", "b", "b"},
                               {"0000:00:06.0", "0000:00:07.0", "0000:00:06.0", "0000:00:07.0"}),
            "");
  const auto why = shared_gpu_problem({"a", "a", "a", "b"}, {"x", "y", "x", "x"});
  EXPECT_NE(why.find("host a runs 3 ranks but they drive 2 distinct GPUs"), std::string::npos)
      << why;
}

}  // namespace
}  // namespace peerbench
