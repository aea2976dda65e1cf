#include "core/model/flag_table.h"

#include <algorithm>

namespace peerbench {

namespace {

using F = FlagFamily;
using S = FlagScope;
using K = FlagKind;

}  // namespace

const std::vector<FlagInfo>& flag_table() {
  // clang-format off
  static const std::vector<FlagInfo> table{
      // code                     family      scope     kind          fails  summary
      {"host-staged",             F::kPath,   S::kPair, K::kPath,     true,  "no peer access: copies go through host memory"},
      {"nccl-shm",                F::kPath,   S::kPair, K::kPath,     true,  "NCCL used shared memory between GPUs of one host"},
      {"nccl-net",                F::kPath,   S::kPair, K::kPath,     true,  "NCCL used the network between GPUs of one host"},
      {"nccl-net-socket",         F::kPath,   S::kPair, K::kPath,     true,  "NCCL used sockets between hosts, not InfiniBand/RoCE"},
      {"below-link",              F::kBars,   S::kCase, K::kFigure,   true,  "bandwidth under its share of the link's rate"},
      {"high-latency",            F::kBars,   S::kCase, K::kFigure,   true,  "latency over its bar"},
      {"p2p-slower-than-staged",  F::kPath,   S::kPair, K::kFigure,   true,  "a peer copy slower than one through host memory"},
      {"asymmetric",              F::kBars,   S::kPair, K::kFigure,   true,  "one direction slower than the other"},
      {"data-errors",             F::kData,   S::kCase, K::kHardware, true,  "wrong data delivered"},
      {"off-nvlink",              F::kPath,   S::kCase, K::kPath,     true,  "an NVLink copy whose bytes did not cross NVLink"},
      {"link-errors",             F::kHealth, S::kGpu,  K::kHardware, true,  "NVLink error counters grew"},
      {"pcie-downtrained",        F::kHealth, S::kGpu,  K::kHardware, true,  "PCIe link under its generation or width"},
      {"nvlink-degraded",         F::kHealth, S::kGpu,  K::kHardware, true,  "NVLinks down or slower than its peers'"},
      {"fabric-unhealthy",        F::kHealth, S::kGpu,  K::kHardware, true,  "NVLink fabric registration or health failed"},
      {"below-expected",          F::kBars,   S::kCase, K::kFigure,   true,  "bandwidth under the known-good figure"},
      {"off-baseline",            F::kBars,   S::kCase, K::kFigure,   true,  "worse than the site baseline"},
      {"burn-in-errors",          F::kBurnIn, S::kCase, K::kHardware, true,  "wrong data in a burn-in cycle"},
      {"intermittent",            F::kBurnIn, S::kCase, K::kHardware, true,  "failed in some burn-in cycles"},
      {"drift",                   F::kBurnIn, S::kCase, K::kFigure,   true,  "moved the wrong way over the burn-in"},
      {"fleet-outlier",           F::kFleet,  S::kCase, K::kFigure,   true,  "worse than the fleet's median"},
  };
  // clang-format on
  return table;
}

const FlagInfo* find_flag(const std::string& code) {
  const auto& t = flag_table();
  const auto it =
      std::find_if(t.begin(), t.end(), [&](const FlagInfo& f) { return code == f.code; });
  return it == t.end() ? nullptr : &*it;
}

std::string to_string(FlagFamily f) {
  switch (f) {
    case FlagFamily::kPath:
      return "path";
    case FlagFamily::kBars:
      return "bars";
    case FlagFamily::kData:
      return "data";
    case FlagFamily::kHealth:
      return "health";
    case FlagFamily::kBurnIn:
      return "burn-in";
    case FlagFamily::kFleet:
      return "fleet";
  }
  return "path";
}

std::string scope_words(FlagScope s) {
  switch (s) {
    case FlagScope::kGpu:
      return "per GPU";
    case FlagScope::kPair:
      return "per pair";
    case FlagScope::kCase:
      return "per case";
  }
  return "per case";
}

std::string kind_words(FlagKind k) {
  switch (k) {
    case FlagKind::kHardware:
      return "evidence against the hardware";
    case FlagKind::kPath:
      return "traffic off the link: settings and peer access first";
    case FlagKind::kFigure:
      return "figures under their bars";
  }
  return "figures under their bars";
}

}  // namespace peerbench
