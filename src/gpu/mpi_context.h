#pragma once
// MPI session, rank layout and the few collectives peerbench needs. Hosts are grouped by name
// (PEERBENCH_HOST_ID overrides the name, so two ranks of one machine can pose as two hosts);
// devices are picked by the rank's place on its physical node.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/platform/host_name.h"  // kHostIdVariable: the logical host (with NCCL_HOSTID)

namespace peerbench::gpu {

class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  ~MpiSession();
};

// An MPI communicator this process created (MPI_Comm_split_type): freed once, by its owner, while
// MPI is still up. Move-only: a copy would free it twice. A context that threw after the split
// had leaked it (a review).
class MpiComm {
 public:
  MpiComm() = default;
  MpiComm(const MpiComm&) = delete;
  MpiComm& operator=(const MpiComm&) = delete;
  MpiComm(MpiComm&& o) noexcept : c_(o.c_) { o.c_ = MPI_COMM_NULL; }
  MpiComm& operator=(MpiComm&& o) noexcept;
  ~MpiComm() { (void)release(); }  // teardown: a failure here has no one left to tell
  MPI_Comm get() const { return c_; }
  MPI_Comm* out() { return &c_; }  // for the call that creates it (empty before)
  // Frees it now (MPI_Comm_free); MPI_SUCCESS where there was none or MPI is already finalized.
  int release();

 private:
  MPI_Comm c_ = MPI_COMM_NULL;
};

struct RankContext {
  MPI_Comm world = MPI_COMM_WORLD;
  MpiComm node;  // ranks of this physical node
  int rank = 0;
  int size = 1;
  std::string host;  // logical host
  std::string physical_host;
  int local_rank = 0;  // on the physical node
  int local_size = 1;
  int device = -1;                        // CUDA device index
  std::vector<std::string> host_of_rank;  // logical
  std::vector<std::string> physical_host_of_rank;
  std::vector<int> local_rank_of_rank;
  // Filled once devices are chosen (gpu/device_choice.h). A rank may see only its own GPU
  // (per-task binding: CUDA_VISIBLE_DEVICES differs per rank), so GPUs are named by PCI bus id.
  std::vector<int> device_of_rank;          // each rank's device index, in its own view
  std::vector<std::string> bus_id_of_rank;  // each rank's GPU, by PCI bus id
  std::vector<int> local_device_of_rank;    // that GPU's index in THIS rank's view, or -1

  // "rank 1 on host vm, GPU 1": who failed, for error messages.
  std::string where() const;
  bool same_host(int other) const { return host_of_rank[other] == host; }
  bool same_physical_host(int other) const { return physical_host_of_rank[other] == physical_host; }
  // The lowest rank of this (logical host, physical node): the one that reads what is read once
  // per node (topology, node evidence).
  bool first_on_node() const {
    for (int q = 0; q < rank; ++q)
      if (host_of_rank[q] == host && physical_host_of_rank[q] == physical_host) return false;
    return true;
  }
  // Both ranks drive one physical GPU (--allow-gpu-sharing).
  bool same_gpu(int other) const {
    return same_physical_host(other) && bus_id_of_rank[other] == bus_id_of_rank[rank];
  }
  std::vector<std::string> hosts() const;  // unique logical hosts, in first-rank order
};

// Collective over MPI_COMM_WORLD.
RankContext make_rank_context();
// Frees the node communicator now, warning where MPI refuses (the destructor does it otherwise).
void free_rank_context(RankContext& c);

// Collectives (all throw MpiError on failure).
void barrier(MPI_Comm c);
std::vector<std::string> allgather_strings(MPI_Comm c, const std::string& mine);
std::string bcast_string(MPI_Comm c, const std::string& s, int root);
bool all_true(MPI_Comm c, bool mine);
double max_over(MPI_Comm c, double mine);
std::vector<std::uint8_t> allgather_bytes(MPI_Comm c, const void* mine, std::size_t bytes);

std::string mpi_library_version();

// Input refused before any GPU work. Under a launcher, a rank that exits early with an error
// code makes the launcher kill the others, possibly before the one that explains why has
// written its line. So every rank checks, all agree (MPI starts here if it has not), the
// first refusing rank prints its reason, and nobody leaves before that line is out.
// Returns whether any rank refused. Collective over MPI_COMM_WORLD.
bool any_rank_refuses(const std::string& my_refusal);

// The first collective of every rank under a launcher, whatever the command: every rank must run
// the same command line of the same peerbench (`identity`), or the job's collectives would not
// match and it would hang: a rank that differs from rank 0 refuses, saying so. Then, as
// any_rank_refuses, the first refusing rank prints. Returns whether the job must stop (exit 2).
bool agree_to_start(const std::string& my_refusal, const std::string& identity);

}  // namespace peerbench::gpu
