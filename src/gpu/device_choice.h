#pragma once
// Which GPU each rank drives. The rank's place on its node picks among the GPUs it sees; GPUs
// are then named by PCI bus id over all ranks, so a job where every rank sees only its own GPU
// (Slurm --gpus-per-task, CUDA_VISIBLE_DEVICES per rank) is recognised as one rank per GPU, and
// two ranks on one physical GPU are caught however the devices are numbered.
#include <string>
#include <vector>

#include "gpu/mpi_context.h"

namespace peerbench::gpu {

// PCI bus id of CUDA device `device` in this process's view ("0000:00:06.0").
std::string cuda_pci_bus_id(int device);

// Collective. Sets rank.device (and makes it current), device_of_rank, bus_id_of_rank and
// local_device_of_rank. Returns "" or, identically on every rank, why the launch cannot work
// (no GPU, or ranks sharing a GPU without allow_sharing).
std::string choose_devices(RankContext& rank, bool allow_sharing);

}  // namespace peerbench::gpu
