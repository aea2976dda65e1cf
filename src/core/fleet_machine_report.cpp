// The fleet's machine-read formats: JUnit XML for CI systems, OpenMetrics text for Prometheus
// (node_exporter's textfile collector).
#include <set>
#include <sstream>

#include "core/fleet_report.h"
#include "core/text.h"

namespace peerbench {
namespace {

// XML 1.0 has no way to carry most control characters, even escaped: drop them.
std::string xml_escape(const std::string& s) {
  std::string clean;
  for (char c : s) {
    if (static_cast<unsigned char>(c) >= 0x20 || c == '\n' || c == '\t') clean += c;
  }
  return html_escape(clean);
}

struct JunitCase {
  std::string name;
  std::string failure_type, failure_message, failure_body;
  bool error = false;  // not measured, rather than measured and failed
};

std::vector<JunitCase> cases_of_pair(const FleetPair& p) {
  std::set<std::string> methods;
  for (const auto& m : p.measurements) methods.insert(m.method);
  for (const auto& f : p.flags) methods.insert(f.method);  // "" = about the pair
  std::vector<JunitCase> out;
  for (const auto& m : methods) {
    JunitCase c{(m.empty() ? "pair" : m) + " " + p.name() + " [" + p.link + "]", "", "", "", false};
    for (const auto& f : p.flags) {
      if (f.method != m) continue;
      c.failure_type += (c.failure_type.empty() ? "" : ",") + f.code;
      c.failure_message += (c.failure_message.empty() ? "" : "; ") + f.message;
      c.failure_body += f.code + ": " + f.message + "\nevidence: " + f.evidence.dump() + "\n";
    }
    out.push_back(c);
  }
  if (p.unsettled() && p.flags.empty()) {
    out.push_back({"pair " + p.name() + " [" + p.link + "]", p.state,
                   p.note.empty() ? "not measured" : p.note, "", true});
  }
  return out;
}

std::vector<JunitCase> cases_of_node(const FleetNode& n) {
  std::vector<JunitCase> out;
  JunitCase results{"results", "", "", "", true};
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

void write_case(std::ostringstream& o, const std::string& host, const JunitCase& c) {
  o << "    <testcase classname=\"peerbench.fleet." << xml_escape(host) << "\" name=\""
    << xml_escape(c.name) << "\"";
  if (c.failure_message.empty()) {
    o << "/>\n";
    return;
  }
  o << ">\n      <" << (c.error ? "error" : "failure") << " type=\"" << xml_escape(c.failure_type)
    << "\" message=\"" << xml_escape(c.failure_message) << "\">" << xml_escape(c.failure_body)
    << "</" << (c.error ? "error" : "failure") << ">\n    </testcase>\n";
}

class FleetJunitReporter : public FleetReporter {
 public:
  std::string render(const FleetReport& r, const std::vector<PlotFile>&) const override {
    std::ostringstream body;
    int tests = 0, failures = 0, errors = 0;
    for (const auto& n : r.nodes) {
      const auto cases = cases_of_node(n);
      int f = 0, e = 0;
      for (const auto& c : cases) {
        if (c.failure_message.empty()) continue;
        (c.error ? e : f)++;
      }
      body << "  <testsuite name=\"" << xml_escape(n.host) << "\" tests=\"" << cases.size()
           << "\" failures=\"" << f << "\" errors=\"" << e << "\" skipped=\"0\">\n"
           << "    <properties><property name=\"state\" value=\"" << to_string(n.state)
           << "\"/><property name=\"file\" value=\"" << xml_escape(n.file)
           << "\"/><property name=\"driver\" value=\"" << xml_escape(n.versions.driver)
           << "\"/><property name=\"cuda\" value=\"" << xml_escape(n.versions.cuda)
           << "\"/><property name=\"nccl\" value=\"" << xml_escape(n.versions.nccl)
           << "\"/></properties>\n";
      for (const auto& c : cases) write_case(body, n.host, c);
      body << "  </testsuite>\n";
      tests += static_cast<int>(cases.size());
      failures += f;
      errors += e;
    }
    std::ostringstream o;
    o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"peerbench fleet\" tests=\""
      << tests << "\" failures=\"" << failures << "\" errors=\"" << errors << "\">\n"
      << body.str() << "</testsuites>\n";
    return o.str();
  }
};

std::string label_value(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string labels(const std::vector<std::pair<std::string, std::string>>& kv) {
  std::string s = "{";
  for (const auto& [k, v] : kv) s += (s.size() > 1 ? "," : "") + k + "=\"" + label_value(v) + "\"";
  return s + "}";
}

void family(std::ostringstream& o, const std::string& name, const std::string& help) {
  o << "# TYPE " << name << " gauge\n# HELP " << name << " " << help << "\n";
}

void pair_metrics(std::ostringstream& o, const FleetReport& r, bool latency, bool ratio) {
  for (const auto& n : r.nodes) {
    for (const auto& p : n.pairs) {
      for (const auto& pos : p.positions) {
        if (!ratio && pos.lower_is_better != latency) continue;
        const std::string name = ratio     ? "peerbench_link_fleet_ratio"
                                 : latency ? "peerbench_link_latency_seconds"
                                           : "peerbench_link_bandwidth_gbps";
        const double v = ratio ? pos.ratio : latency ? pos.value * 1e-6 : pos.value;
        o << name
          << labels({{"host", n.host},
                     {"src_pci", p.src_pci},
                     {"dst_pci", p.dst_pci},
                     {"method", pos.method},
                     {"bytes", std::to_string(pos.bytes)},
                     {"link", p.link}})
          << " " << format_fixed(v, latency ? 9 : 4) << "\n";
      }
    }
  }
}

void node_metrics(std::ostringstream& o, const FleetReport& r) {
  family(o, "peerbench_node_verdict", "1 for the node's fleet verdict, 0 for the others");
  for (const auto& n : r.nodes) {
    for (auto s :
         {NodeState::kPass, NodeState::kFlagged, NodeState::kIncomplete, NodeState::kMissing}) {
      o << "peerbench_node_verdict" << labels({{"host", n.host}, {"verdict", to_string(s)}}) << " "
        << (n.state == s ? 1 : 0) << "\n";
    }
  }
  family(o, "peerbench_node_flags", "flags raised on the node's pairs, fleet-outlier included");
  for (const auto& n : r.nodes)
    o << "peerbench_node_flags" << labels({{"host", n.host}}) << " " << n.flag_count() << "\n";
  family(o, "peerbench_fleet_nodes", "nodes of the fleet by verdict");
  for (auto s :
       {NodeState::kPass, NodeState::kFlagged, NodeState::kIncomplete, NodeState::kMissing}) {
    o << "peerbench_fleet_nodes" << labels({{"verdict", to_string(s)}}) << " " << r.count(s)
      << "\n";
  }
}

class FleetOpenMetricsReporter : public FleetReporter {
 public:
  std::string render(const FleetReport& r, const std::vector<PlotFile>&) const override {
    std::ostringstream o;
    family(o, "peerbench_link_bandwidth_gbps",
           "median bandwidth of a pair at the fleet's judged size, GB/s (1e9 bytes/s)");
    pair_metrics(o, r, false, false);
    family(o, "peerbench_link_latency_seconds", "median time of one small transfer");
    pair_metrics(o, r, true, false);
    family(o, "peerbench_link_fleet_ratio",
           "the pair's figure divided by its group's fleet median");
    pair_metrics(o, r, false, true);
    family(o, "peerbench_fleet_median", "fleet median of a group (GB/s, or seconds for latency)");
    for (const auto& g : r.groups) {
      o << "peerbench_fleet_median"
        << labels({{"method", g.method},
                   {"gpu", g.gpu_model},
                   {"link", g.link},
                   {"bytes", std::to_string(g.bytes)}})
        << " " << format_fixed(g.lower_is_better ? g.median * 1e-6 : g.median, 9) << "\n";
    }
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
