// The fleet as CSV: a row per pair method placed in the fleet (or flagged outside its groups),
// per method of a pair that does not pass, and per problem of a node; every node appears.
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/base/escaped.h"
#include "core/base/text.h"
#include "core/fleet/fleet_report.h"
#include "core/fleet/fleet_verdict_words.h"
#include "core/model/sizes.h"

namespace peerbench {
namespace {

using fleet_detail::flag_summary;

// The flags of one method of a pair (`method` ""): those about the pair as a whole (NCCL's
// transport, peer access), which stood on every row of the pair, latency rows too (an audit).
std::string flags_for(const FleetPair& p, const std::string& method) {
  std::string s;
  for (const auto& f : p.flags) {
    if (f.method == method) s += (s.empty() ? "" : ";") + f.code;
  }
  return s;
}

using CsvS = out::Safe<out::Csv>;
// Flagged methods with no place in the fleet's groups (judged at a size the fleet did not take,
// or a group too small): their largest measurement, so the flag has a row (an audit: NCCL at
// 0.10 of known-good had none).
std::vector<const Measurement*> flagged_outside_groups(const FleetPair& p) {
  std::vector<const Measurement*> out;
  std::set<std::string> placed, done;
  for (const auto& pos : p.positions) placed.insert(pos.method);
  for (const auto& pos : p.short_positions) placed.insert(pos.method);
  for (const auto& f : p.flags) {
    if (f.method.empty() || placed.count(f.method) || !done.insert(f.method).second) continue;
    const Measurement* largest = nullptr;
    for (const auto& m : p.measurements) {
      if (m.method == f.method && (!largest || m.bytes > largest->bytes)) largest = &m;
    }
    if (largest) out.push_back(largest);
  }
  return out;
}

// A version gap (VersionGap) on a row of `host` at that group and size: which side of it the
// node is on, in words; "" where no gap splits that group.
std::string version_gap_cell(const std::vector<VersionGap>& gaps, const std::string& host,
                             const FleetPair& p, const FleetPosition& pos) {
  for (const auto& g : gaps) {
    if (g.method != pos.method || g.bytes != pos.bytes || g.gpu_model != p.gpu_model ||
        g.link != p.group_of(pos.method))
      continue;
    const std::string pct = format_fixed(100 * g.shortfall, 1) + " %";
    if (g.slow_hosts.count(host))
      return "slower side: " + g.slow + " is " + pct + " behind " + g.fast;
    // The lead is measured from the slower side's figure: 12 % behind is 13.6 % ahead.
    const double lead =
        g.lower_is_better ? 1 - g.fast_median / g.slow_median : g.fast_median / g.slow_median - 1;
    if (g.fast_hosts.count(host))
      return "faster side: " + g.fast + " is " + format_fixed(100 * lead, 1) + " % " +
             (g.lower_is_better ? "quicker than " : "higher than ") + g.slow;
  }
  return "";
}

// One row per pair method placed in the fleet (or flagged outside its groups); a row per method
// of a pair whose state is not a pass, with the reason (another job, held clocks: no figure to
// place; a row without a method where no method is named); a row without a pair per problem of
// the node. Reasons stood
// on every row of a pair, 2 KB each, and a node's problems on none (a review). Every row ends
// with the node's versions and, on a placed figure, the version gap that splits its group.
class FleetCsvReporter : public FleetReporter {
 public:
  std::string render(const FleetReport& r, const std::vector<PlotFile>&) const override {
    out::Writer<out::Csv> o;
    o << "node,state,file,src_pci,dst_pci,gpu_model,link,method,bytes,value,unit,fleet_median,"
         "ratio,outlier,flags,pair_state,pair_flags,reason,driver,cuda,nccl,version_gap,"
         "shares_gpus_with\n";
    for (const auto& n : r.nodes) {
      const Node node{
          out::csv_field(n.host) + "," + out::csv_field(to_string(n.state)) + "," +
              out::csv_field(n.file) + ",",
          "," + out::csv_field(n.versions.driver) + "," + out::csv_field(n.versions.cuda) + "," +
              out::csv_field(n.versions.nccl) + ",",
          "," + out::csv_field(join({n.shares_gpus_with.begin(), n.shares_gpus_with.end()}, ";")),
          n.host, &r.version_gaps};
      std::size_t rows = 0;
      for (const auto& p : n.pairs) rows += pair_rows(o, node, p);
      for (const auto& problem : n.problems) {
        o << node.head << ",,,,,,,,,,,,,," << out::csv_field(problem) << node.versions
          << node.shared << "\n";
        ++rows;
      }
      // Every node appears, measured or not, with why not.
      if (rows == 0)
        o << node.head << ",,,,,,,,,,,,,," << out::csv_field(flag_summary(n)) << node.versions
          << node.shared << "\n";
    }
    return o.str();
  }

 private:
  struct Node {
    CsvS head;      // node,state,file,
    CsvS versions;  // ,driver,cuda,nccl,   (the version_gap cell follows)
    CsvS shared;    // ,shares_gpus_with: the other nodes naming its GPUs, ";" between
    std::string host;
    const std::vector<VersionGap>* gaps;
  };

  static std::size_t pair_rows(out::Writer<out::Csv>& o, const Node& n, const FleetPair& p) {
    const CsvS pair = out::csv_field(p.src_pci) + "," + out::csv_field(p.dst_pci) + "," +
                      out::csv_field(p.gpu_model) + ",";
    const CsvS tail = out::csv_field(p.state) + "," + out::csv_field(flags_for(p, "")) + ",";
    std::size_t rows = 0;
    for (const auto& pos : p.positions) {
      o << n.head << pair << out::csv_field(p.group_of(pos.method)) << ","
        << out::csv_field(pos.method) << "," << pos.bytes << ","
        << out::fixed<out::Csv>(pos.value, 3) << ","
        << out::csv_field(fleet_unit(pos.method, pos.lower_is_better)) << ","
        << out::fixed<out::Csv>(pos.fleet_median, 3) << ","
        << out::fixed<out::Csv>(pos.goodness(), 4) << "," << (pos.outlier ? 1 : 0) << ","
        << out::csv_field(flags_for(p, pos.method)) << "," << tail << n.versions
        << out::csv_field(version_gap_cell(*n.gaps, n.host, p, pos)) << n.shared << "\n";
      ++rows;
    }
    // Short of the group's size: its figure at the largest size it has, against the fleet's
    // there (a node cut at 64 MiB had no row with a figure; an audit).
    for (const auto& pos : p.short_positions) {
      o << n.head << pair << out::csv_field(p.group_of(pos.method)) << ","
        << out::csv_field(pos.method) << "," << pos.bytes << ","
        << out::fixed<out::Csv>(pos.value, 3) << ","
        << out::csv_field(fleet_unit(pos.method, pos.lower_is_better)) << ","
        << out::fixed<out::Csv>(pos.fleet_median, 3) << ","
        << out::fixed<out::Csv>(pos.goodness(), 4) << ",0,"
        << out::csv_field(flags_for(p, pos.method)) << "," << tail
        << out::csv_field("no figure at the fleet's size " + format_size(pos.fleet_bytes) +
                          ": its largest size, beside the fleet's figures there; not judged")
        << n.versions << n.shared << "\n";
      ++rows;
    }
    for (const Measurement* m : flagged_outside_groups(p)) {
      o << n.head << pair << out::csv_field(p.group_of(m->method)) << ","
        << out::csv_field(m->method) << "," << m->bytes << "," << out::fixed<out::Csv>(m->value, 3)
        << "," << out::csv_field(fleet_unit(m->method, m->lower_is_better)) << ",,,,"
        << out::csv_field(flags_for(p, m->method)) << "," << tail << n.versions << n.shared << "\n";
      ++rows;
    }
    // A state's rows name their methods (a row without one was lost to a filter on method).
    for (const auto& [method, reason] : p.note_by_method) {
      o << n.head << pair << out::csv_field(p.group_of(method)) << "," << out::csv_field(method)
        << ",,,,,,," << out::csv_field(flags_for(p, method)) << "," << tail
        << out::csv_field(reason) << n.versions << n.shared << "\n";
      ++rows;
    }
    if (p.note_by_method.empty() && p.unsettled()) {  // a state no method gave a reason for
      o << n.head << pair << out::csv_field(p.link) << ",,,,,,,,," << tail << n.versions << n.shared
        << "\n";
      ++rows;
    }
    return rows;
  }
};

}  // namespace

std::unique_ptr<FleetReporter> make_csv_reporter() {
  return std::make_unique<FleetCsvReporter>();
}

}  // namespace peerbench
