// The fleet's machine-read formats: JUnit XML for CI systems, OpenMetrics text for Prometheus
// (node_exporter's textfile collector).
#include <algorithm>
#include <cctype>
#include <ctime>
#include <set>
#include <sstream>

#include "core/base/escaped.h"
#include "core/base/text.h"
#include "core/fleet/fleet_report.h"
#include "core/model/json_text.h"
#include "core/platform/utc_time.h"

namespace peerbench {
namespace {

using XmlW = out::Writer<out::Xml>;
using XmlS = out::Safe<out::Xml>;
XmlS x(std::string_view s) {
  return out::esc<out::Xml>(s);
}
using OmW = out::Writer<out::OmLabel>;
using OmS = out::Safe<out::OmLabel>;

struct JunitCase {
  std::string name;
  std::string failure_type, failure_message, failure_body;
  bool error = false;   // not measured, rather than measured and failed
  double seconds = 0;   // the GPU time its measurements took
  std::string skipped;  // why a measured figure was not judged (FleetPair::not_judged)
};

std::vector<JunitCase> cases_of_pair(const FleetPair& p) {
  std::set<std::string> methods;
  for (const auto& m : p.measurements) methods.insert(m.method);
  for (const auto& f : p.flags) methods.insert(f.method);  // "" = about the pair
  for (const auto& [m, why] : p.note_by_method) methods.insert(m);
  std::vector<JunitCase> out;
  for (const auto& m : methods) {
    JunitCase c{
        (m.empty() ? "pair" : m) + " " + p.name() + " [" + p.link + "]", "", "", "", false, 0, ""};
    for (const auto& x : p.measurements) {
      if (x.method == m) c.seconds += x.seconds;
    }
    for (const auto& f : p.flags) {
      if (f.method != m) continue;
      c.failure_type += (c.failure_type.empty() ? "" : ",") + f.code;
      c.failure_message += (c.failure_message.empty() ? "" : "; ") + f.message;
      c.failure_body += f.code + ": " + f.message + "\nevidence: " + json_text(f.evidence) + "\n";
    }
    const auto why = p.not_judged.find(m);
    if (c.failure_message.empty() && why != p.not_judged.end()) c.skipped = why->second;
    // Not measured, or beside another job: an error on the method's own case, so a CI history
    // of that case stays one line (it moved to a "pair" case; an audit).
    for (const auto& [method, reason] : p.note_by_method) {
      if (method != m || !c.failure_message.empty() || !p.unsettled()) continue;
      c.failure_type = p.state;
      c.failure_message = reason;
      c.error = true;
    }
    out.push_back(c);
  }
  if (p.unsettled() && p.flags.empty() && p.note_by_method.empty()) {
    out.push_back(
        {"pair " + p.name() + " [" + p.link + "]", p.state, "not measured", "", true, 0, ""});
  }
  return out;
}

std::vector<JunitCase> cases_of_node(const FleetNode& n) {
  std::vector<JunitCase> out;
  JunitCase results{"results", "", "", "", true, 0, ""};
  for (const auto& p : n.problems) {
    results.failure_type =
        to_string(n.state == NodeState::kMissing ? n.state : NodeState::kIncomplete);
    results.failure_message += (results.failure_message.empty() ? "" : "; ") + p;
  }
  out.push_back(results);
  for (const auto& p : n.pairs) {
    for (auto& c : cases_of_pair(p)) out.push_back(std::move(c));
  }
  return out;
}

XmlS seconds_text(double s) {
  return out::fixed<out::Xml>(s, 6);
}

// CI tools split a classname at its last dot into package and class: a host's own dots
// (gpu01.rack7.example.com) made every node class "com" (an audit). They become '_' here alone;
// the suite's name and hostname keep the host as written.
std::string junit_class(std::string host) {
  std::replace(host.begin(), host.end(), '.', '_');
  return "peerbench.fleet." + host;
}

void write_case(XmlW& o, const std::string& host, const JunitCase& c) {
  o << "    <testcase classname=\"" << x(junit_class(host)) << "\" name=\"" << x(c.name)
    << "\" time=\"" << seconds_text(c.seconds) << "\"";
  if (c.failure_message.empty()) {
    if (c.skipped.empty()) {
      o << "/>\n";
    } else {
      o << ">\n      <skipped message=\"" << x(c.skipped) << "\"/>\n    </testcase>\n";
    }
    return;
  }
  const XmlS element = c.error ? XmlS("error") : "failure";
  o << ">\n      <" << element << " type=\"" << x(c.failure_type) << "\" message=\""
    << x(c.failure_message) << "\">" << x(c.failure_body) << "</" << element
    << ">\n    </testcase>\n";
}

// "2026-11-29T21:59:10": the run's start in UTC, as the Ant schema's timestamp (no zone, no
// fraction); `fallback` (the time of this report) for a node without a run, or a start that is
// not such a time.
std::string junit_timestamp(const std::string& started_at, const std::string& fallback) {
  static const char kShape[] = "dddd-dd-ddTdd:dd:dd";
  if (started_at.size() < 19) return fallback;
  for (std::size_t i = 0; i < 19; ++i) {
    const bool digit = std::isdigit(static_cast<unsigned char>(started_at[i])) != 0;
    if (kShape[i] == 'd' ? !digit : started_at[i] != kShape[i]) return fallback;
  }
  std::size_t z = 19;  // past a fraction of a second, the zone must be UTC
  if (z < started_at.size() && started_at[z] == '.') {
    while (++z < started_at.size() && std::isdigit(static_cast<unsigned char>(started_at[z]))) {
    }
  }
  const std::string zone = started_at.substr(z);
  const bool utc = zone.empty() || zone == "Z" || zone == "+00:00";
  return utc ? started_at.substr(0, 19) : fallback;
}

// The Ant schema's timestamp has no zone: UTC without its "Z".
std::string now_utc() {
  return utc_now_iso8601().substr(0, 19);
}

// The version gaps (VersionGap) whose slower side this node is on, in words; "" for none. Its
// cases pass (no node is at fault), so a property carries it, beside the node's versions.
std::string slower_version_of(const std::vector<VersionGap>& gaps, const std::string& host) {
  std::string s;
  for (const auto& g : gaps) {
    if (g.slow_hosts.count(host)) s += (s.empty() ? "" : "; ") + g.text();
  }
  return s;
}

// One node's test suite, with the attributes the Ant/Jenkins schema requires of a suite inside
// <testsuites> (package, id, timestamp, hostname, time) and its system-out and system-err.
void write_suite(XmlW& o, const FleetNode& n, int id, const std::string& now,
                 const std::vector<VersionGap>& gaps) {
  const auto cases = cases_of_node(n);
  int failures = 0, errors = 0, skipped = 0;
  double case_seconds = 0;
  for (const auto& c : cases) {
    case_seconds += c.seconds;
    if (!c.failure_message.empty()) (c.error ? errors : failures)++;
    skipped += c.failure_message.empty() && !c.skipped.empty();
  }
  const std::string host = n.host.empty() ? "unnamed" : n.host;
  o << "  <testsuite name=\"" << x(host) << "\" package=\"peerbench.fleet\" id=\"" << id
    << "\" timestamp=\"" << x(junit_timestamp(n.started_at, now)) << "\" hostname=\"" << x(host)
    << "\" tests=\"" << cases.size() << "\" failures=\"" << failures << "\" errors=\"" << errors
    << "\" skipped=\"" << skipped << "\" time=\""
    << seconds_text(n.elapsed_s > 0 ? n.elapsed_s : case_seconds) << "\">\n"
    << "    <properties><property name=\"state\" value=\"" << x(to_string(n.state))
    << "\"/><property name=\"file\" value=\"" << x(n.file)
    << "\"/><property name=\"started_at\" value=\"" << x(n.started_at)
    << "\"/><property name=\"driver\" value=\"" << x(n.versions.driver)
    << "\"/><property name=\"cuda\" value=\"" << x(n.versions.cuda)
    << "\"/><property name=\"nccl\" value=\"" << x(n.versions.nccl) << "\"/>";
  if (const auto slow = slower_version_of(gaps, n.host); !slow.empty())
    o << "<property name=\"version_gap\" value=\"" << x(slow) << "\"/>";
  if (!n.shares_gpus_with.empty())
    o << "<property name=\"shares_gpus_with\" value=\""
      << x(join({n.shares_gpus_with.begin(), n.shares_gpus_with.end()}, ", ")) << "\"/>";
  o << "</properties>\n";
  for (const auto& c : cases) write_case(o, host, c);
  o << "    <system-out/>\n    <system-err/>\n  </testsuite>\n";
}

// JUnit XML as the Ant/Jenkins schema has it (tests/fixtures/junit-ant.xsd): <testsuites> with
// no attributes of its own, a suite per node.
class FleetJunitReporter : public FleetReporter {
 public:
  std::string render(const FleetReport& r, const std::vector<PlotFile>&) const override {
    XmlW o;
    const std::string now = now_utc();
    o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n";
    int id = 0;
    for (const auto& n : r.nodes) write_suite(o, n, id++, now, r.version_gaps);
    o << "</testsuites>\n";
    return o.str();
  }
};

// A label set: names from the code, values escaped by OpenMetrics' rules.
OmS labels(const std::vector<std::pair<const char*, std::string>>& kv) {
  OmS s = "{";
  bool first = true;
  for (const auto& [k, v] : kv) {
    s += (first ? OmS() : ",") + OmS::from_code(k) + "=\"" + out::esc<out::OmLabel>(v) + "\"";
    first = false;
  }
  return s + "}";
}

// A metric family's metadata: its type, its unit where it has one (the name ends in it, as
// OpenMetrics requires), and its help.
void family(OmW& o, const OmS& name, const OmS& unit, const OmS& help) {
  o << "# TYPE " << name << " gauge\n";
  if (!unit.empty()) o << "# UNIT " << name << " " << unit << "\n";
  o << "# HELP " << name << " " << help << "\n";
}

// A figure in base units: bytes per second (from GB/s, 1e9 bytes/s) or seconds (from us).
OmS base_units(double v, bool latency) {
  return latency ? out::fixed<out::OmLabel>(v * 1e-6, 9) : out::fixed<out::OmLabel>(v * 1e9, 0);
}

enum class PairFigure { kBandwidth, kLatency, kRatio };

void pair_metrics(OmW& o, const FleetReport& r, PairFigure what) {
  static const char* const kNames[] = {"peerbench_link_bandwidth_bytes_per_second",
                                       "peerbench_link_latency_seconds",
                                       "peerbench_link_fleet_ratio"};
  const OmS name = OmS::from_code(kNames[static_cast<int>(what)]);
  // Nodes worst first; a pair with no figure at its group's size has one at the largest size it
  // has (short_positions), its `bytes` saying which: a node cut at 64 MiB had no series (audit).
  for (const auto& n : r.nodes) {
    for (const auto& p : n.pairs) {
      std::vector<const FleetPosition*> figures;
      for (const auto& pos : p.positions) figures.push_back(&pos);
      for (const auto& pos : p.short_positions) figures.push_back(&pos);
      for (const FleetPosition* at : figures) {
        const FleetPosition& pos = *at;
        if (what != PairFigure::kRatio && pos.lower_is_better != (what == PairFigure::kLatency))
          continue;
        o << name
          << labels({{"host", n.host},
                     {"src_pci", p.src_pci},
                     {"dst_pci", p.dst_pci},
                     {"method", pos.method},
                     {"bytes", std::to_string(pos.bytes)},
                     {"link", p.link}})
          << " "
          << (what == PairFigure::kRatio ? out::fixed<out::OmLabel>(pos.goodness(), 4)
                                         : base_units(pos.value, pos.lower_is_better))
          << "\n";
      }
    }
  }
}

// The fleet medians, one family per unit.
void median_metrics(OmW& o, const FleetReport& r, bool latency) {
  const OmS name = latency ? OmS("peerbench_fleet_median_latency_seconds")
                           : "peerbench_fleet_median_bandwidth_bytes_per_second";
  family(o, name, latency ? OmS("seconds") : "bytes_per_second",
         latency ? OmS("fleet median of a group's latency (one small transfer)")
                 : "fleet median of a group's bandwidth (busbw for NCCL methods)");
  std::vector<const FleetGroup*> groups;
  for (const auto& g : r.groups) groups.push_back(&g);
  for (const auto& g : r.short_groups) groups.push_back(&g);  // the medians short figures meet
  for (const FleetGroup* at : groups) {
    const FleetGroup& g = *at;
    if (g.lower_is_better != latency) continue;
    o << name
      << labels({{"method", g.method},
                 {"gpu", g.gpu_model},
                 {"link", g.link},
                 {"bytes", std::to_string(g.bytes)}})
      << " " << base_units(g.median, latency) << "\n";
  }
}

void node_metrics(OmW& o, const FleetReport& r) {
  family(o, "peerbench_node_verdict", "", "1 for the node's fleet verdict, 0 for the others");
  for (const auto& n : r.nodes) {
    for (auto s :
         {NodeState::kPass, NodeState::kFlagged, NodeState::kIncomplete, NodeState::kMissing}) {
      o << "peerbench_node_verdict" << labels({{"host", n.host}, {"verdict", to_string(s)}}) << " "
        << (n.state == s ? 1 : 0) << "\n";
    }
  }
  family(o, "peerbench_node_flags", "", "flags raised on the node's pairs, fleet-outlier included");
  for (const auto& n : r.nodes)
    o << "peerbench_node_flags" << labels({{"host", n.host}}) << " " << n.flag_count() << "\n";
  family(o, "peerbench_node_hosts_sharing_gpus", "",
         "other nodes naming one of this node's GPUs (same UUID): 0 for an independent node");
  for (const auto& n : r.nodes)
    o << "peerbench_node_hosts_sharing_gpus" << labels({{"host", n.host}}) << " "
      << n.shares_gpus_with.size() << "\n";
  family(o, "peerbench_fleet_nodes", "", "nodes of the fleet by verdict");
  for (auto s :
       {NodeState::kPass, NodeState::kFlagged, NodeState::kIncomplete, NodeState::kMissing}) {
    o << "peerbench_fleet_nodes" << labels({{"verdict", to_string(s)}}) << " " << r.count(s)
      << "\n";
  }
  // The fleet's version gaps (VersionGap): nodes pass, but one version runs slower; a scrape
  // saw every node pass with no trace of it (a review).
  family(o, "peerbench_fleet_version_gap_ratio", "",
         "the slower version's group median as a share of the faster one's (under 1 worse)");
  for (const auto& g : r.version_gaps) {
    o << "peerbench_fleet_version_gap_ratio"
      << labels({{"slow", g.slow},
                 {"fast", g.fast},
                 {"method", g.method},
                 {"gpu", g.gpu_model},
                 {"link", g.link},
                 {"bytes", std::to_string(g.bytes)}})
      << " " << (g.lower_is_better ? 1 / (1 + g.shortfall) : 1 - g.shortfall) << "\n";
  }
}

// OpenMetrics text in base units (bytes per second, seconds), each family with its # UNIT and
// # HELP, ending in # EOF; parsed back by prometheus_client's OpenMetrics parser in the tests.
class FleetOpenMetricsReporter : public FleetReporter {
 public:
  std::string render(const FleetReport& r, const std::vector<PlotFile>&) const override {
    OmW o;
    family(o, "peerbench_link_bandwidth_bytes_per_second", "bytes_per_second",
           "median bandwidth of a pair at the fleet's judged size (busbw for NCCL methods)");
    pair_metrics(o, r, PairFigure::kBandwidth);
    family(o, "peerbench_link_latency_seconds", "seconds", "median time of one small transfer");
    pair_metrics(o, r, PairFigure::kLatency);
    family(o, "peerbench_link_fleet_ratio", "",
           "the pair's figure against its group's fleet median, under 1 worse (figure / "
           "median; for a latency, median / figure)");
    pair_metrics(o, r, PairFigure::kRatio);
    median_metrics(o, r, false);
    median_metrics(o, r, true);
    node_metrics(o, r);
    o << "# EOF\n";
    return o.str();
  }
};

}  // namespace

std::unique_ptr<FleetReporter> make_junit_reporter() {
  return std::make_unique<FleetJunitReporter>();
}

std::unique_ptr<FleetReporter> make_openmetrics_reporter() {
  return std::make_unique<FleetOpenMetricsReporter>();
}

}  // namespace peerbench
