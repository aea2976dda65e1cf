// The links' own state: NVLink error counters that grew, a PCIe link trained below what GPU and
// slot support, fewer or slower NVLinks than the GPU's peers, and an unhealthy NVLink fabric.
#include <algorithm>
#include <set>

#include "core/base/text.h"
#include "core/judge/burn_in.h"
#include "core/judge/verdict_context.h"
#include "core/model/link_counters.h"

namespace peerbench::verdict_detail {

using nlohmann::json;

namespace {

void pcie_flag(PairVerdict& v, const GpuLinkHealth& h, const std::string& card) {
  std::optional<int> gen_bar = h.pcie_gen_max;
  if (h.pcie_gen_gpu_max)
    gen_bar = gen_bar ? std::min(*gen_bar, *h.pcie_gen_gpu_max) : h.pcie_gen_gpu_max;
  const bool gen_low = gen_bar && h.pcie_gen_under_load && *h.pcie_gen_under_load < *gen_bar;
  const bool width_low =
      h.pcie_width_max && h.pcie_width_under_load && *h.pcie_width_under_load < *h.pcie_width_max;
  if (!gen_low && !width_low) return;
  auto opt = [](const std::optional<int>& x) { return x ? std::to_string(*x) : std::string("?"); };
  v.flags.push_back(make_flag(
      "pcie-downtrained", "",
      "PCIe link of " + card + " ran at Gen" + opt(h.pcie_gen_under_load) + " x" +
          opt(h.pcie_width_under_load) + " under load (" + h.under_load_during +
          "); GPU and slot support Gen" + opt(gen_bar) + " x" + opt(h.pcie_width_max),
      {{"pcie_gen_under_load", h.pcie_gen_under_load ? json(*h.pcie_gen_under_load) : json()},
       {"pcie_width_under_load", h.pcie_width_under_load ? json(*h.pcie_width_under_load) : json()},
       {"pcie_gen_bar", gen_bar ? json(*gen_bar) : json()},
       {"pcie_width_bar", h.pcie_width_max ? json(*h.pcie_width_max) : json()},
       {"read_during", h.under_load_during},
       {"pci_bus_id", h.pci_bus_id}}));
}

// In a burn-in, the cycles whose counters grew on this card ("... on GPU 0 (PCI) of host"): the
// flag said "during the run" and named no cycle (an audit).
std::string burn_in_cycles_of(const Ctx& c, const CardId& card) {
  if (!c.d.burn_in || card.pci_bus_id.empty()) return "";
  // The line's end, whole: "of vm" is also the end of "of vm2" (a review).
  const std::string on = " (" + card.pci_bus_id + ") of " + card.host;
  std::vector<int> cycles;
  for (const auto& k : c.d.burn_in->cycles) {
    const bool here = std::any_of(k.counters.begin(), k.counters.end(), [&](const std::string& l) {
      return l.size() >= on.size() && l.compare(l.size() - on.size(), on.size(), on) == 0;
    });
    if (here) cycles.push_back(k.cycle);
  }
  if (cycles.empty()) return "";
  return std::string(" (in burn-in cycle") + (cycles.size() > 1 ? "s " : " ") + cycle_list(cycles) +
         " of " + std::to_string(c.d.burn_in->cycles.size()) + ")";
}

void counter_and_pcie_flags(const Ctx& c, PairVerdict& v) {
  std::set<std::pair<std::string, int>> seen;
  for (const auto& card : v.cards) {
    if (!seen.insert({card.host, card.gpu_index}).second) continue;
    const auto it = c.health.find({card.host, card.gpu_index});
    if (it == c.health.end()) continue;
    const GpuLinkHealth& h = *it->second;
    const auto grown = grown_counters(h.nvlink_errors_before, h.nvlink_errors_after);
    if (!grown.empty()) {
      std::string list;
      for (const auto& g : grown) list += (list.empty() ? "" : ", ") + g;
      v.flags.push_back(make_flag(
          "link-errors", "",
          "NVLink errors on " + card_label(card) + " during the run" + burn_in_cycles_of(c, card) +
              ": " + list,
          {{"counters", grown}, {"pci_bus_id", card.pci_bus_id}, {"serial", card.serial}}));
    }
    pcie_flag(v, h, card_label(card));
  }
}

std::string link_list(const std::vector<int>& links) {
  std::string s;
  for (int l : links) s += (s.empty() ? "" : ", ") + std::to_string(l);
  return s;
}

// nvlink-degraded: fewer links up than the GPU's peers, or a link slower than theirs.
void nvlink_degraded_flag(const Ctx& c, PairVerdict& v, const CardId& card, const GpuTopology& g) {
  // The GPUs of the same model on its host (itself included: a GPU short of links has peers
  // with more, and the fastest link is a peer's when this one's is slower).
  const auto it = c.model_links.find({card.host, g.name});
  if (it == c.model_links.end()) return;
  const int peers_up = it->second.most_up;
  const double peers_speed = it->second.fastest_gbps;
  std::vector<int> down, slow;
  for (const auto& l : g.nvlinks) {
    if (!l.active) down.push_back(l.link);
    if (l.active && l.speed_gbps && peers_speed > 0 && *l.speed_gbps < 0.99 * peers_speed)
      slow.push_back(l.link);
  }
  const bool fewer = peers_up > 0 && g.nvlinks_up < peers_up;
  if (!fewer && slow.empty()) return;
  std::string msg = card_label(card) + " has " + std::to_string(g.nvlinks_up) + " NVLinks up";
  if (fewer) {
    msg += " where its peers of the same model have " + std::to_string(peers_up);
    if (!down.empty()) msg += " (down: link " + link_list(down) + ")";
  }
  if (!slow.empty()) {
    msg += std::string(fewer ? ";" : ",") + " link " + link_list(slow) + " slower than the " +
           format_fixed(peers_speed, 3) + " GB/s of its peers' links";
  }
  v.flags.push_back(make_flag("nvlink-degraded", "", msg,
                              {{"nvlinks_up", g.nvlinks_up},
                               {"peers_nvlinks_up", peers_up},
                               {"links_down", down},
                               {"links_slow", slow},
                               {"peers_link_gbps", peers_speed},
                               {"pci_bus_id", card.pci_bus_id},
                               {"serial", card.serial}}));
}

// fabric-unhealthy: the GPU's NVLink fabric registration did not complete, failed, or reports
// degraded bandwidth or unhealthy routes (NVSwitch systems).
void fabric_flag(PairVerdict& v, const CardId& card, const GpuTopology& g) {
  if (!g.fabric) return;
  const FabricInfo& f = *g.fabric;
  std::string why;
  if (f.state == "not-started" || f.state == "in-progress") {
    why = "registration " + f.state;
  } else if (f.state == "completed" && !f.status.empty() && f.status != "Success") {
    why = "registration failed: " + f.status;
  } else if (f.state == "completed" && !f.health.empty() && f.health != "healthy") {
    why = f.health;
  }
  if (why.empty()) return;
  v.flags.push_back(make_flag("fabric-unhealthy", "",
                              "NVLink fabric of " + card_label(card) + ": " + why,
                              {{"state", f.state},
                               {"status", f.status},
                               {"health", f.health},
                               {"health_mask", f.health_mask ? json(*f.health_mask) : json()},
                               {"clique_id", f.clique_id ? json(*f.clique_id) : json()},
                               {"pci_bus_id", card.pci_bus_id}}));
}

}  // namespace

void health_flags(const Ctx& c, PairVerdict& v) {
  counter_and_pcie_flags(c, v);
  std::set<std::pair<std::string, int>> seen;
  for (const auto& card : v.cards) {
    if (!seen.insert({card.host, card.gpu_index}).second) continue;
    const auto* r = c.idx.rank(card.rank);
    const GpuTopology* g = r ? topology_gpu(c, *r) : nullptr;
    if (!g) continue;
    nvlink_degraded_flag(c, v, card, *g);
    fabric_flag(v, card, *g);
  }
}

}  // namespace peerbench::verdict_detail
