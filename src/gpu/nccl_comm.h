#pragma once
// NCCL communicator over all ranks (unique id broadcast over MPI), the capture of NCCL's INFO
// log that tells which transport it chose, and a watchdog wait that notices NCCL's async errors.
#include <cuda_runtime.h>
#include <nccl.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/model/nccl_log.h"
#include "gpu/mpi_context.h"

namespace peerbench::gpu {

// Decides, before the first NCCL call of the process, where NCCL's INFO log goes:
//  - user set NCCL_DEBUG_FILE: leave everything; read their file afterwards (mode user-file)
//  - user set NCCL_DEBUG without a file: leave it on their terminal (mode not-captured)
//  - otherwise: NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS with INIT,P2P,SHM,NET,GRAPH, and
//    NCCL_DEBUG_FILE in a private 0700 folder, removed at exit (mode peerbench)
class NcclLogCapture {
 public:
  static NcclLogCapture setup();
  NcclLogCapture() = default;
  NcclLogCapture(const NcclLogCapture&) = delete;
  NcclLogCapture& operator=(const NcclLogCapture&) = delete;
  NcclLogCapture(NcclLogCapture&& o) noexcept;
  NcclLogCapture& operator=(NcclLogCapture&& o) noexcept;
  ~NcclLogCapture();

  const std::string& mode() const { return mode_; }
  const std::string& note() const { return note_; }
  const std::vector<std::string>& subsystems() const { return subsystems_; }
  // Parses what this process's NCCL wrote from byte `from` on (see mark()), so a run reads only
  // its own communicator's lines even when one process runs several jobs.
  NcclLogParse read(std::uint64_t from = 0) const;
  std::uint64_t mark() const;  // current size of the log
  // Once NCCL has opened its log file: keep a descriptor and remove the file and its folder, so
  // nothing is left on disk even if the process is killed. Reads go through the descriptor.
  void detach();
  // Removes the private folder now (paths that end the process without destructors).
  void remove_files() noexcept { cleanup(); }

 private:
  void cleanup() noexcept;
  std::string mode_ = "not-used";
  std::string note_;
  std::string path_;
  std::string tmpdir_;
  int fd_ = -1;
  std::vector<std::string> subsystems_;
};

class NcclComm {
 public:
  // Collective over ctx.world. Non-blocking init polled with a deadline, so a rank that never
  // arrives is a timeout, not a hang.
  static std::unique_ptr<NcclComm> create(const RankContext& ctx, double timeout_s);
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;
  ~NcclComm();

  ncclComm_t get() const { return comm_; }
  bool aborted() const { return aborted_; }
  void abort();
  // Throws NcclError if NCCL reported an asynchronous error.
  void check_async() const;
  // The communicator is non-blocking (so init and hangs can be watched): after each call that
  // returns ncclInProgress, wait until NCCL has finished enqueueing before the next call.
  void wait_ready(double timeout_s) const;

 private:
  NcclComm() = default;
  ncclComm_t comm_ = nullptr;
  bool aborted_ = false;
  double timeout_s_ = 60;
};

// ncclGroupStart ... ncclGroupEnd that cannot be left open: an exception between the two ends
// the group in the destructor (NCCL's group state is per thread and outlives communicators).
class NcclGroup {
 public:
  NcclGroup();
  NcclGroup(const NcclGroup&) = delete;
  NcclGroup& operator=(const NcclGroup&) = delete;
  ~NcclGroup();
  void end();  // ncclGroupEnd, checked

 private:
  bool open_ = false;
};

std::string nccl_version_string();

}  // namespace peerbench::gpu
