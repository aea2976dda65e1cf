#include "gpu/watchdog.h"

#include <chrono>
#include <thread>

#include "core/base/text.h"
#include "gpu/check.h"
#include "gpu/nccl_comm.h"

namespace peerbench::gpu {

void wait_with_watchdog(cudaEvent_t done, const NcclComm* comm, double timeout_s,
                        const std::string& what) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int polls = 0;
  for (;;) {
    const cudaError_t e = cudaEventQuery(done);
    if (e == cudaSuccess) return;
    if (e != cudaErrorNotReady) throw_cuda(e, "cudaEventQuery(done)", __FILE__, __LINE__);
    if (comm) comm->check_async();
    if (std::chrono::steady_clock::now() > deadline) {
      throw WatchdogTimeout(what + " did not finish within --timeout " +
                            format_fixed(timeout_s, timeout_s < 10 ? 1 : 0) + " s");
    }
    // Spin briefly (short operations), then back off to spare the CPU.
    if (++polls > 2000) std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

}  // namespace peerbench::gpu
