#include "core/plan/element_fit.h"

#include "core/base/text.h"
#include "core/model/sizes.h"

namespace peerbench {

int collective_blocks(Collective c, int nranks) {
  const bool per_rank =
      c == Collective::kAllGather || c == Collective::kReduceScatter || c == Collective::kAllToAll;
  return per_rank ? nranks : 1;
}

std::uint64_t collective_size_unit(Collective c, DataType t, int nranks) {
  return type_size(t) * static_cast<std::uint64_t>(collective_blocks(c, nranks));
}

std::vector<std::string> sizes_holding_no_element(const PlanInput& in) {
  std::vector<std::string> out;
  for (const auto& m : in.methods) {
    if (!m.typed) continue;
    for (const DataType t : in.datatypes) {
      const std::uint64_t unit = collective_size_unit(m.collective, t, in.world_size);
      std::vector<std::string> small;
      for (const auto b : in.sizes)
        if (b < unit) small.push_back(format_size(b));
      if (small.empty()) continue;
      const int blocks = collective_blocks(m.collective, in.world_size);
      out.push_back(m.name + ", " + to_string(t) + ": " + join(small, ", ") +
                    (small.size() == 1 ? " holds" : " hold") + " no whole element (" +
                    (blocks > 1 ? std::to_string(blocks) + " ranks x " : std::string("one ")) +
                    to_string(t) + (blocks > 1 ? " elements" : " element") + ", " +
                    std::to_string(unit) + " B); recorded not-applicable");
    }
  }
  return out;
}

}  // namespace peerbench
