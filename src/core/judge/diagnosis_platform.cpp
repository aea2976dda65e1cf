// Causes of the container and the platform: /dev/shm and the IPC namespace, ACS on the PCIe path,
// the IOMMU, a hypervisor, a consumer card, CUDA's own peer-access answer, the NVLink fabric
// (diagnosis_rules.h). Node evidence (node_evidence.h) is what they read, with the run's pair
// facts and topology.
#include <algorithm>

#include "core/base/text.h"
#include "core/judge/diagnosis.h"
#include "core/judge/diagnosis_rules.h"
#include "core/judge/verdict.h"

namespace peerbench::diagnosis_detail {

namespace {

namespace cs = cause_strength;

bool road_or_nccl(const Finding& f) {
  return f.flag == "nccl-shm" || f.flag == "nccl-net" || f.flag == "host-staged" ||
         nccl_method(f.method);
}

int ranks_on(const RunDocument& d, const std::string& host) {
  int n = 0;
  for (const auto& r : d.system.ranks) n += r.host == host || d.system.hosts.size() <= 1;
  return n;
}

std::string host_of_finding(const Input& in, const Finding& f) {
  return host_of_pair(in, *f.v);
}

void shm_cause(const Input& in, const std::vector<bool>& done, const NodeEvidence* ne,
               const std::string& host, std::vector<Candidate>& out) {
  std::vector<std::string> errors;
  for (const char* p : {"Error: failed to create shared memory", "Error: failed to extend ",
                        "Error: Could not map ", "Error while creating shared memory",
                        "Error while attaching to shared memory"}) {
    for (auto& r : reasons_with(in.d, p)) errors.push_back(r);
  }
  const int ranks = ranks_on(in.d, host);
  const std::uint64_t need = nccl_shm_bytes_needed(ranks);
  const bool small = ne && shm_too_small(ne->container.shm_bytes, ranks);
  if (!small && errors.empty()) return;
  const std::string shm = ne && ne->container.shm_bytes ? shm_mib(*ne->container.shm_bytes)
                                                        : "less than NCCL asked for";
  const auto& fs = in.findings;
  Candidate c = make_candidate(
      in, "shm-too-small", errors.empty() ? cs::kLikely : cs::kConfirmed,
      {{"shm", shm}, {"need", shm_mib(need)}, {"ranks", std::to_string(ranks)}, {"host", host}},
      [&](const Finding& f) {
        const std::size_t i = static_cast<std::size_t>(&f - fs.data());
        return !done[i] && host_of_finding(in, f) == host &&
               (f.state == verdict_state::kIncomplete ? nccl_method(f.method)
                                                      : !f.flag.empty() && road_or_nccl(f));
      });
  if (c.explains.empty()) return;
  if (small)
    c.cause.evidence.push_back({"node evidence of " + host + ": container.shm_bytes",
                                shm + " (NCCL needs about " + shm_mib(need) + ")"});
  for (const auto& e : errors) c.cause.evidence.push_back({"NCCL's log", "\"" + e + "\""});
  out.push_back(std::move(c));
}

void ipc_cause(const Input& in, const std::vector<bool>& done, const NodeEvidence& ne,
               std::vector<Candidate>& out) {
  const ContainerEvidence& k = ne.container;
  if (!k.ipc_namespace_is_init || *k.ipc_namespace_is_init) return;
  const bool container = !k.runtime.empty() && k.runtime != "none";
  const int ranks = ranks_on(in.d, ne.host);
  const auto& fs = in.findings;
  Candidate c = make_candidate(
      in, container ? "container-no-ipc-host" : "ipc-namespace-private", cs::kLikely,
      {{"runtime", k.runtime},
       {"shm", k.shm_bytes ? shm_mib(*k.shm_bytes) : "of unread size"},
       {"need", shm_mib(nccl_shm_bytes_needed(ranks))},
       {"ranks", std::to_string(ranks)},
       {"host", ne.host}},
      [&](const Finding& f) {
        const std::size_t i = static_cast<std::size_t>(&f - fs.data());
        return !done[i] && !f.flag.empty() && road_or_nccl(f) && host_of_finding(in, f) == ne.host;
      });
  if (c.explains.empty()) return;
  const std::string src = "node evidence of " + ne.host + ": container";
  c.cause.evidence.push_back({src, "ipc_namespace_is_init false"});
  if (container) c.cause.evidence.push_back({src, "runtime " + k.runtime});
  for (const auto& s : k.signs) c.cause.evidence.push_back({src + ".signs", s});
  out.push_back(std::move(c));
}

}  // namespace

void container_causes(const Input& in, const std::vector<Candidate>& so_far,
                      std::vector<Candidate>& out) {
  const std::vector<bool> done = explained(in, so_far);
  if (in.d.node_evidence.empty()) {
    const std::string host = in.d.system.hosts.empty() ? "this host" : in.d.system.hosts.front();
    shm_cause(in, done, nullptr, host, out);
    return;
  }
  for (const auto& ne : in.d.node_evidence) {
    shm_cause(in, done, &ne, ne.host, out);
    ipc_cause(in, done, ne, out);
  }
}

}  // namespace peerbench::diagnosis_detail
