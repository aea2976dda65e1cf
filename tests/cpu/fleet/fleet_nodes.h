#pragma once
// The fleet tests' nodes: one real run copied under other hosts' names, each written as the
// node's results file in a fleet's folder.
#include <string>

#include "core/model/results.h"
#include "core/model/schema.h"
#include "core/platform/atomic_file.h"

namespace peerbench::test {

// `d` as host `host`, its GPUs its own: each UUID gets "-host" (one UUID in two nodes is one
// machine under two names, note_shared_gpus); a GPU without a UUID keeps none.
inline RunDocument as_node(RunDocument d, const std::string& host) {
  const auto node_uuid = [&](const std::string& uuid) {
    return uuid.empty() ? uuid : uuid + "-" + host;
  };
  d.system.hosts = {host};
  for (auto& r : d.system.ranks) {
    r.host = host;
    r.gpu.uuid = node_uuid(r.gpu.uuid);
  }
  for (auto& h : d.topology->hosts) {
    h.host = host;
    for (auto& g : h.gpus) g.uuid = node_uuid(g.uuid);
  }
  return d;
}

// `d` written as `dir`/`name`.json.
inline void write_run(const std::string& dir, const std::string& name, const RunDocument& d) {
  write_file_atomically(dir + "/" + name + ".json", to_json(d).dump());
}

}  // namespace peerbench::test
