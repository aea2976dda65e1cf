#pragma once
// Why, and what to do next: from a run (its verdicts and flags, recorded environment, peer-access
// facts, NCCL's transports and reasons, topology, link health, GPU activity and node evidence) to
// the causes that explain its flags, each once for everything it explains, with the evidence read,
// ranked strongest first, and a Next line (the cause table, cause_table.h, words each).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model/diagnosis.h"
#include "core/model/results.h"

namespace peerbench {

// The causes of `verdicts` (the run's, or those `report` judged again). Empty where nothing is
// flagged or held (a passing run has no Next line). A flag no cause read explains gets an
// "unknown" cause whose Next line names the measurement that would tell.
std::vector<DiagnosedCause> diagnose(const RunDocument& d,
                                     const std::vector<PairVerdict>& verdicts);

// "0->1", or "all ranks" for the all-ranks verdict, "GPU 2 host link" for a host<->GPU one.
std::string diagnosis_pair_label(int src, int dst);

// The bytes of /dev/shm NCCL needs for `ranks` ranks on one host: its SHM transport maps one
// buffer of 9637888 bytes per channel and direction of each ordered pair of local ranks (NCCL
// 2.28's log, ../shared/runs/h200x2/nccl-shm.rank0.log), on the 4 channels it took with P2P off
// (p2p-disabled.json), as files under /dev/shm where its cuMem host memory is unavailable.
std::uint64_t nccl_shm_bytes_needed(int ranks);
// The one /dev/shm rule, of diagnose() and `peerbench doctor` alike: a /dev/shm of `shm_bytes`
// (nullopt: unread) is too small for `ranks` ranks on a host where it holds less than
// nccl_shm_bytes_needed(ranks); one rank shares no memory.
bool shm_too_small(const std::optional<std::uint64_t>& shm_bytes, int ranks);
// Whether a switch of NCCL's (NCCL_P2P_DISABLE, NCCL_SHM_DISABLE, NCCL_IB_DISABLE), set to
// `value`, is on: set and not 0, as diagnose() and doctor read it.
bool nccl_switch_on(const std::string& value);
// "setpci -s A ECAP_ACS+0x6.w=0000 and setpci -s B ...": the commands that clear the ACS control
// register of each bridge (acs-redirect's {setpci}, for diagnose() and doctor alike).
std::string setpci_acs_off(const std::vector<std::string>& bridges);
// "74 MiB": a /dev/shm size as causes say it (rounded up).
std::string shm_mib(std::uint64_t bytes);

}  // namespace peerbench
