#include "core/model/link_counters.h"

#include <map>
#include <optional>

namespace peerbench {

std::vector<std::string> grown_counters(const std::vector<NvLinkErrorCounts>& before_list,
                                        const std::vector<NvLinkErrorCounts>& after) {
  std::map<int, const NvLinkErrorCounts*> before;
  for (const auto& b : before_list) before[b.link] = &b;
  std::vector<std::string> out;
  for (const auto& a : after) {
    const auto it = before.find(a.link);
    if (it == before.end()) continue;
    const NvLinkErrorCounts& b = *it->second;
    const std::pair<const char*,
                    std::pair<std::optional<std::uint64_t>, std::optional<std::uint64_t>>>
        counters[] = {{"replay", {b.replay, a.replay}},
                      {"recovery", {b.recovery, a.recovery}},
                      {"crc_flit", {b.crc_flit, a.crc_flit}}};
    for (const auto& [name, ba] : counters) {
      if (ba.first && ba.second && *ba.second > *ba.first) {
        out.push_back("link " + std::to_string(a.link) + " " + name + " +" +
                      std::to_string(*ba.second - *ba.first));
      }
    }
  }
  return out;
}

}  // namespace peerbench
