#pragma once
// Bounded waits for GPU work. Every wait on the GPU goes through here, so a stuck copy engine, a
// kernel spinning on a peer that never answers, or an NCCL operation whose peer vanished ends as
// a WatchdogTimeout naming what was waited for, never as a hang.
#include <cuda_runtime.h>

#include <string>

namespace peerbench::gpu {

class NcclComm;

// Waits for `done` (an event recorded after the work) by polling; checks NCCL's asynchronous
// error state while waiting when `comm` is given. Throws WatchdogTimeout after `timeout_s`.
void wait_with_watchdog(cudaEvent_t done, const NcclComm* comm, double timeout_s,
                        const std::string& what);

}  // namespace peerbench::gpu
