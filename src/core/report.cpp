#include "core/report.h"
#include "core/text.h"

#include <algorithm>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include "core/run_progress.h"
#include "core/sizes.h"
#include "core/verdict.h"

namespace peerbench {
namespace {

// Methods that appear in the run's results, in the run's method order.
std::vector<const MethodInfo*> methods_in(const RunDocument& d, bool all_ranks) {
  std::vector<const MethodInfo*> out;
  for (const auto& m : d.methods) {
    const bool is_all = m.scope == MethodScope::kAllRanks;
    if (is_all != all_ranks) continue;
    for (const auto& r : d.results) {
      if (r.method == m.name) {
        out.push_back(&m);
        break;
      }
    }
  }
  return out;
}

std::vector<std::pair<int, int>> pairs_in(const RunDocument& d) {
  std::set<std::pair<int, int>> s;
  for (const auto& r : d.results) {
    if (r.src >= 0 && r.dst >= 0) s.insert({r.src, r.dst});
  }
  for (const auto& p : d.pairs) s.insert({p.src, p.dst});
  return {s.begin(), s.end()};
}

// Cell for (method, pair) at the largest size: the headline number, or the status.
std::string cell(const RunDocument& d, const MethodInfo* m, int src, int dst) {
  if (m->bidirectional && src > dst) std::swap(src, dst);  // one result per unordered pair
  if (const auto* r = largest_ok_result(d, m->name, src, dst)) {
    std::string s = format_fixed(headline_value(m, *r), m->metric == Metric::kLatency ? 2 : 1);
    if (r->wrong > 0) s += "!";
    return s;
  }
  for (const auto& r : d.results) {
    if (r.method == m->name && r.src == src && r.dst == dst) {
      if (r.status == ResultStatus::kNotApplicable) return "n/a";
      if (r.status == ResultStatus::kSkipped) return "skip";
      return to_string(r.status);
    }
  }
  return "-";
}

std::string largest_size_label(const RunDocument& d, const MethodInfo* m) {
  std::uint64_t b = 0;
  for (const auto& r : d.results) {
    if (r.method == m->name && r.status == ResultStatus::kOk) b = std::max(b, r.bytes);
  }
  return b ? format_size_compact(b) : "";
}

std::string unit(const MethodInfo* m) {
  if (m->metric == Metric::kLatency) return "us";
  return m->uses_nccl ? "busbw GB/s" : "GB/s";
}

// "GB/s @ 1G", or the unit alone when nothing was measured.
std::string unit_at(const RunDocument& d, const MethodInfo* m) {
  const std::string size = largest_size_label(d, m);
  return size.empty() ? unit(m) : unit(m) + " @ " + size;
}

std::string transport_of(const RunDocument& d, int src, int dst) {
  for (const auto& p : d.pairs) {
    if (p.src == src && p.dst == dst && p.nccl) {
      return p.nccl->details.empty() ? p.nccl->kind : p.nccl->details.front();
    }
  }
  return "";
}

std::string system_line(const RunDocument& d) {
  std::ostringstream o;
  std::map<std::string, int> gpus;
  for (const auto& r : d.system.ranks) gpus[r.gpu.name]++;
  o << d.system.ranks.size() << " ranks on " << d.system.hosts.size() << " host"
    << (d.system.hosts.size() == 1 ? "" : "s");
  for (const auto& [name, n] : gpus) o << ", " << n << "x " << name;
  if (!d.system.driver_version.empty()) o << ", driver " << d.system.driver_version;
  if (d.system.cuda_runtime_version) {
    o << ", CUDA " << d.system.cuda_runtime_version / 1000 << "."
      << (d.system.cuda_runtime_version % 1000) / 10;
  }
  if (!d.system.nccl_version.empty()) o << ", NCCL " << d.system.nccl_version;
  return o.str();
}

// Results that were not measured, grouped by method, status and reason: nothing asked for is
// dropped without saying why.
struct Unmeasured {
  std::string method, status, reason;
  std::vector<std::string> pairs;
  int cases = 0;
};
std::vector<Unmeasured> unmeasured(const RunDocument& d) {
  std::vector<Unmeasured> out;
  for (const auto& r : d.results) {
    if (r.status == ResultStatus::kOk) continue;
    const std::string st = to_string(r.status);
    auto it = std::find_if(out.begin(), out.end(), [&](const Unmeasured& u) {
      return u.method == r.method && u.status == st && u.reason == r.reason;
    });
    if (it == out.end()) {
      out.push_back({r.method, st, r.reason, {}, 0});
      it = out.end() - 1;
    }
    const std::string p = pair_name(r.src, r.dst);
    if (std::find(it->pairs.begin(), it->pairs.end(), p) == it->pairs.end()) it->pairs.push_back(p);
    ++it->cases;
  }
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

struct Counts {
  int pairs = 0, flagged = 0, pass = 0, flags = 0;
};
Counts count(const std::vector<PairVerdict>& v) {
  Counts c;
  for (const auto& p : v) {
    ++c.pairs;
    if (p.verdict == "flagged") ++c.flagged;
    if (p.verdict == "pass") ++c.pass;
    c.flags += static_cast<int>(p.flags.size());
  }
  return c;
}

// ---------------------------------------------------------------------------------------------
class TextReporter : public DocumentReporter {
 public:
  std::string render(const std::vector<ReportInput>& runs,
                     const std::vector<PlotFile>&) const override {
    std::ostringstream o;
    for (const auto& in : runs) {
      const auto& d = *in.doc;
      o << "peerbench report: " << in.path << "\n";
      o << "  run: " << system_line(d) << "\n";
      o << "  status " << d.status << ", started " << d.started_at << ", peerbench "
        << d.tool.version << " (" << d.tool.git_revision << ")\n";
      if (d.status != "complete" && d.in_progress.is_object()) {
        o << "  cut short while running: " << describe_in_progress(d.in_progress) << "\n";
      }
      o << "  NCCL transport capture: " << d.nccl.mode
        << (d.nccl.note.empty() ? "" : " (" + d.nccl.note + ")") << "\n\n";
      const auto pm = methods_in(d, false);
      if (!pm.empty()) {
        o << "Pairs at the largest size (median; '!' = data errors):\n";
        o << "  " << std::left << std::setw(8) << "pair" << std::setw(7) << "link";
        auto width = [&](const MethodInfo* m) {
          return static_cast<int>(
              std::max({std::size_t{10}, m->name.size() + 2, unit_at(d, m).size() + 2}));
        };
        for (const auto* m : pm) o << std::right << std::setw(width(m)) << m->name;
        o << "  NCCL transport\n";
        o << "  " << std::left << std::setw(15) << "";
        for (const auto* m : pm) o << std::right << std::setw(width(m)) << unit_at(d, m);
        o << "\n";
        for (const auto& [s, t] : pairs_in(d)) {
          std::string link = "?";
          for (const auto& v : in.verdicts) {
            if (v.src == s && v.dst == t) link = v.link;
          }
          o << "  " << std::left << std::setw(8) << pair_name(s, t) << std::setw(7) << link;
          for (const auto* m : pm) o << std::right << std::setw(width(m)) << cell(d, m, s, t);
          o << "  " << transport_of(d, s, t) << "\n";
        }
        o << "\n";
      }
      for (const auto* m : methods_in(d, true)) {
        o << m->name << " over all ranks (" << unit(m) << ", median):";
        for (const auto& r : d.results) {
          if (r.method != m->name || r.src >= 0) continue;
          if (r.status == ResultStatus::kOk) {
            o << "  " << format_size_compact(r.bytes) << " "
              << format_fixed(headline_value(m, r), 1);
          } else {
            o << "  " << format_size_compact(r.bytes) << " " << to_string(r.status);
          }
        }
        o << "\n";
      }
      const auto um = unmeasured(d);
      if (!um.empty()) {
        o << "\nNot measured:\n";
        for (const auto& u : um) {
          o << "  " << u.method << " " << joined(u.pairs) << " (" << u.cases << " case"
            << (u.cases == 1 ? "" : "s") << "): " << u.status
            << (u.reason.empty() ? "" : ": " + u.reason) << "\n";
        }
      }
      o << "\nVerdicts (thresholds: " << in.expectations_source << "):\n";
      for (const auto& v : in.verdicts) {
        o << "  " << std::left << std::setw(8) << pair_name(v.src, v.dst) << std::setw(7) << v.link
          << (v.verdict == "flagged" ? "FLAGGED" : v.verdict)
          << (v.observed.empty() ? "" : "  [" + v.observed + "]") << "\n";
        for (const auto& f : v.flags) {
          o << "      " << f.code << ": " << f.message << "\n";
          o << "        evidence: " << f.evidence.dump() << "\n";
        }
      }
      const auto c = count(in.verdicts);
      o << "\nSummary: " << c.pairs << " verdicts, " << c.pass << " pass, " << c.flagged
        << " flagged, " << c.flags << " flags\n";
      if (!d.errors.empty()) {
        o << "Errors recorded by the run:\n";
        for (const auto& e : d.errors) o << "  " << e << "\n";
      }
      if (runs.size() > 1) o << "\n";
    }
    return sanitize_lines_for_terminal(o.str());  // strings from the file reach a terminal
  }
};

// ---------------------------------------------------------------------------------------------
std::string md_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|' || c == '`' || c == '*' || c == '_' || c == '<' || c == '>' || c == '[' ||
        c == ']') {
      out += '\\';
    }
    if (c == '\n') {
      out += ' ';
      continue;
    }
    out += c;
  }
  return out;
}

class MarkdownReporter : public DocumentReporter {
 public:
  std::string render(const std::vector<ReportInput>& runs,
                     const std::vector<PlotFile>& plots) const override {
    std::ostringstream o;
    for (const auto& in : runs) {
      const auto& d = *in.doc;
      o << "# peerbench report\n\n";
      o << "| | |\n|---|---|\n";
      o << "| results | `" << md_escape(in.path) << "` |\n";
      o << "| system | " << md_escape(system_line(d)) << " |\n";
      o << "| hosts | " << md_escape([&] {
        std::string h;
        for (const auto& x : d.system.hosts) h += (h.empty() ? "" : ", ") + x;
        return h;
      }())
        << " |\n";
      o << "| status | " << md_escape(d.status) << " |\n";
      o << "| started | " << md_escape(d.started_at) << " |\n";
      o << "| peerbench | " << md_escape(d.tool.version + " (" + d.tool.git_revision + ")")
        << " |\n";
      o << "| NCCL capture | "
        << md_escape(d.nccl.mode + (d.nccl.note.empty() ? "" : ": " + d.nccl.note)) << " |\n";
      o << "| thresholds | " << md_escape(in.expectations_source) << " |\n\n";
      const auto c = count(in.verdicts);
      o << "**Verdict: "
        << (c.flagged ? std::to_string(c.flagged) + " of " + std::to_string(c.pairs) + " flagged"
                      : "all " + std::to_string(c.pairs) + " pass")
        << "** (" << c.flags << " flags)\n\n";
      const auto pm = methods_in(d, false);
      if (!pm.empty()) {
        o << "## Pairs at the largest size\n\nMedian of the samples; GB/s = 1e9 bytes/s; latency "
             "in us; `!` marks data errors.\n\n";
        o << "| pair | link |";
        for (const auto* m : pm) o << " " << md_escape(m->name) << " (" << unit_at(d, m) << ") |";
        o << " NCCL transport |\n|---|---|";
        for (std::size_t i = 0; i < pm.size(); ++i) o << "---:|";
        o << "---|\n";
        for (const auto& [s, t] : pairs_in(d)) {
          std::string link = "?";
          for (const auto& v : in.verdicts) {
            if (v.src == s && v.dst == t) link = v.link;
          }
          o << "| " << pair_name(s, t) << " | " << md_escape(link) << " |";
          for (const auto* m : pm) o << " " << md_escape(cell(d, m, s, t)) << " |";
          o << " " << md_escape(transport_of(d, s, t)) << " |\n";
        }
        o << "\n";
      }
      for (const auto* m : methods_in(d, true)) {
        o << "## " << md_escape(m->name)
          << " over all ranks\n\n| size | busbw GB/s (median) | min | max | time us | status "
             "|\n|---:|---:|---:|---:|---:|---|\n";
        for (const auto& r : d.results) {
          if (r.method != m->name || r.src >= 0) continue;
          if (r.status == ResultStatus::kOk && r.busbw_gbps && r.time_us) {
            o << "| " << format_size_compact(r.bytes) << " | "
              << format_fixed(r.busbw_gbps->median, 1) << " | "
              << format_fixed(r.busbw_gbps->min, 1) << " | " << format_fixed(r.busbw_gbps->max, 1)
              << " | " << format_fixed(r.time_us->median, 1) << " | ok |\n";
          } else {
            o << "| " << format_size_compact(r.bytes) << " | | | | | "
              << md_escape(to_string(r.status) + " " + r.reason) << " |\n";
          }
        }
        o << "\n";
      }
      if (const auto um = unmeasured(d); !um.empty()) {
        o << "## Not measured\n\n| method | pairs | cases | status | reason "
             "|\n|---|---|---:|---|---|\n";
        for (const auto& u : um) {
          o << "| " << md_escape(u.method) << " | " << md_escape(joined(u.pairs)) << " | "
            << u.cases << " | " << md_escape(u.status) << " | " << md_escape(u.reason) << " |\n";
        }
        o << "\n";
      }
      o << "## Verdicts\n\n| pair | link | verdict | observed |\n|---|---|---|---|\n";
      for (const auto& v : in.verdicts) {
        o << "| " << pair_name(v.src, v.dst) << " | " << md_escape(v.link_description) << " | "
          << (v.verdict == "flagged" ? "**flagged**" : md_escape(v.verdict)) << " | "
          << md_escape(v.observed) << " |\n";
      }
      bool any = false;
      for (const auto& v : in.verdicts) {
        for (const auto& f : v.flags) {
          if (!any) o << "\n### Flags\n\n";
          any = true;
          o << "- **" << md_escape(f.code) << "** " << pair_name(v.src, v.dst) << ": "
            << md_escape(f.message) << "  \n  evidence: `" << md_escape(f.evidence.dump()) << "`\n";
        }
      }
      o << "\n";
    }
    if (!plots.empty()) {
      o << "## Plots\n\n";
      for (const auto& p : plots) o << "![" << md_escape(p.caption) << "](" << p.path << ")\n\n";
    }
    return sanitize_lines_for_terminal(o.str());  // often printed to a terminal too
  }
};

// ---------------------------------------------------------------------------------------------
class HtmlReporter : public DocumentReporter {
 public:
  std::string render(const std::vector<ReportInput>& runs,
                     const std::vector<PlotFile>& plots) const override {
    std::ostringstream o;
    o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src "
         "data:; style-src 'unsafe-inline'\">"
         "<title>peerbench report</title><style>"
         "body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:"
         "1em 0}"
         "td,th{border:1px solid #bbb;padding:4px "
         "8px}th{background:#eee}td.n{text-align:right;font-family:monospace}"
         ".flagged{color:#b00;font-weight:bold}.pass{color:#070}code{font-size:90%}"
         "</style></head><body>\n";
    for (const auto& in : runs) {
      const auto& d = *in.doc;
      const auto c = count(in.verdicts);
      o << "<h1>peerbench report</h1>\n<table>";
      auto row = [&](const std::string& k, const std::string& v) {
        o << "<tr><th>" << html_escape(k) << "</th><td>" << html_escape(v) << "</td></tr>";
      };
      row("results", in.path);
      row("system", system_line(d));
      std::string hosts;
      for (const auto& h : d.system.hosts) hosts += (hosts.empty() ? "" : ", ") + h;
      row("hosts", hosts);
      row("status", d.status);
      row("started", d.started_at);
      row("peerbench", d.tool.version + " (" + d.tool.git_revision + ")");
      row("NCCL capture", d.nccl.mode + (d.nccl.note.empty() ? "" : ": " + d.nccl.note));
      row("thresholds", in.expectations_source);
      o << "</table>\n<p class=\"" << (c.flagged ? "flagged" : "pass") << "\">Verdict: "
        << (c.flagged ? std::to_string(c.flagged) + " of " + std::to_string(c.pairs) + " flagged"
                      : "all " + std::to_string(c.pairs) + " pass")
        << " (" << c.flags << " flags)</p>\n";
      const auto pm = methods_in(d, false);
      if (!pm.empty()) {
        o << "<h2>Pairs at the largest size</h2><table><tr><th>pair</th><th>link</th>";
        for (const auto* m : pm) {
          o << "<th>" << html_escape(m->name) << "<br>" << html_escape(unit_at(d, m)) << "</th>";
        }
        o << "<th>NCCL transport</th></tr>\n";
        for (const auto& [s, t] : pairs_in(d)) {
          std::string link = "?";
          for (const auto& v : in.verdicts) {
            if (v.src == s && v.dst == t) link = v.link;
          }
          o << "<tr><td>" << html_escape(pair_name(s, t)) << "</td><td>" << html_escape(link)
            << "</td>";
          for (const auto* m : pm)
            o << "<td class=\"n\">" << html_escape(cell(d, m, s, t)) << "</td>";
          o << "<td>" << html_escape(transport_of(d, s, t)) << "</td></tr>\n";
        }
        o << "</table>\n";
      }
      for (const auto* m : methods_in(d, true)) {
        o << "<h2>" << html_escape(m->name)
          << " over all ranks</h2><table><tr><th>size</th><th>busbw GB/s</th>"
             "<th>min</th><th>max</th><th>time us</th><th>status</th></tr>\n";
        for (const auto& r : d.results) {
          if (r.method != m->name || r.src >= 0) continue;
          o << "<tr><td class=\"n\">" << html_escape(format_size_compact(r.bytes)) << "</td>";
          if (r.status == ResultStatus::kOk && r.busbw_gbps && r.time_us) {
            o << "<td class=\"n\">" << format_fixed(r.busbw_gbps->median, 1)
              << "</td><td class=\"n\">" << format_fixed(r.busbw_gbps->min, 1)
              << "</td><td class=\"n\">" << format_fixed(r.busbw_gbps->max, 1)
              << "</td><td class=\"n\">" << format_fixed(r.time_us->median, 1)
              << "</td><td>ok</td>";
          } else {
            o << "<td></td><td></td><td></td><td></td><td>"
              << html_escape(to_string(r.status) + " " + r.reason) << "</td>";
          }
          o << "</tr>\n";
        }
        o << "</table>\n";
      }
      if (const auto um = unmeasured(d); !um.empty()) {
        o << "<h2>Not "
             "measured</h2><table><tr><th>method</th><th>pairs</th><th>cases</th><th>status</"
             "th><th>reason</th></tr>\n";
        for (const auto& u : um) {
          o << "<tr><td>" << html_escape(u.method) << "</td><td>" << html_escape(joined(u.pairs))
            << "</td><td class=\"n\">" << u.cases << "</td><td>" << html_escape(u.status)
            << "</td><td>" << html_escape(u.reason) << "</td></tr>\n";
        }
        o << "</table>\n";
      }
      o << "<h2>Verdicts</h2><table><tr><th>pair</th><th>link</th><th>verdict</th><th>observed</"
           "th><th>flags</th></tr>\n";
      for (const auto& v : in.verdicts) {
        o << "<tr><td>" << html_escape(pair_name(v.src, v.dst)) << "</td><td>"
          << html_escape(v.link_description) << "</td><td class=\""
          << (v.verdict == "flagged" ? "flagged" : "pass") << "\">" << html_escape(v.verdict)
          << "</td><td>" << html_escape(v.observed) << "</td><td>";
        for (const auto& f : v.flags) {
          o << "<b>" << html_escape(f.code) << "</b>: " << html_escape(f.message) << "<br><code>"
            << html_escape(f.evidence.dump()) << "</code><br>";
        }
        o << "</td></tr>\n";
      }
      o << "</table>\n";
    }
    if (!plots.empty()) {
      o << "<h2>Plots</h2>\n";
      for (const auto& p : plots) {
        // Only images we embed ourselves (data: URIs) — nothing taken from input is linked.
        if (p.data_uri.empty()) continue;
        o << "<figure><img alt=\"" << html_escape(p.caption) << "\" src=\"" << p.data_uri
          << "\" style=\"max-width:100%\"><figcaption>" << html_escape(p.caption)
          << "</figcaption></figure>\n";
      }
    }
    o << "</body></html>\n";
    return o.str();
  }
};

// ---------------------------------------------------------------------------------------------
class CsvReporter : public DocumentReporter {
 public:
  std::string render(const std::vector<ReportInput>& runs,
                     const std::vector<PlotFile>&) const override {
    std::ostringstream o;
    o << "run,method,src,dst,src_host,dst_host,bytes,status,time_us_min,time_us_median,time_us_max,"
         "algbw_gbps_min,algbw_gbps_median,algbw_gbps_max,busbw_gbps_median,wrong,round,concurrent_"
         "pairs,reason\n";
    for (const auto& in : runs) {
      const auto& d = *in.doc;
      for (const auto& r : d.results) {
        auto num = [&](const std::optional<Stats>& s, int which) -> std::string {
          if (!s) return "";
          return format_fixed(which == 0 ? s->min : which == 1 ? s->median : s->max, 3);
        };
        o << csv_field(in.path) << "," << csv_field(r.method) << ","
          << (r.src >= 0 ? std::to_string(r.src) : "") << ","
          << (r.dst >= 0 ? std::to_string(r.dst) : "") << ","
          << csv_field(r.src >= 0 ? host_of(d, r.src) : "") << ","
          << csv_field(r.dst >= 0 ? host_of(d, r.dst) : "") << "," << r.bytes << ","
          << csv_field(to_string(r.status)) << "," << num(r.time_us, 0) << "," << num(r.time_us, 1)
          << "," << num(r.time_us, 2) << "," << num(r.algbw_gbps, 0) << "," << num(r.algbw_gbps, 1)
          << "," << num(r.algbw_gbps, 2) << "," << num(r.busbw_gbps, 1) << "," << r.wrong << ","
          << r.round << "," << r.concurrent_pairs << "," << csv_field(r.reason) << "\n";
      }
    }
    return o.str();
  }
};

}  // namespace

std::string html_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string csv_field(const std::string& s_in) {
  std::string s = s_in;
  // A cell starting with = + - @ is a formula to spreadsheets; make it text.
  if (!s.empty() && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@')) s = "'" + s;
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string pair_name(int src, int dst) {
  if (src < 0 && dst < 0) return "all";
  return std::to_string(src) + "->" + std::to_string(dst);
}

std::unique_ptr<DocumentReporter> make_reporter(ReportFormat f) {
  switch (f) {
    case ReportFormat::kText:
      return std::make_unique<TextReporter>();
    case ReportFormat::kMarkdown:
      return std::make_unique<MarkdownReporter>();
    case ReportFormat::kHtml:
      return std::make_unique<HtmlReporter>();
    case ReportFormat::kCsv:
      return std::make_unique<CsvReporter>();
  }
  return std::make_unique<TextReporter>();
}

void LiveReporter::header() {
  if (verbosity_ <= 0) return;
  out_ << "#\n# " << std::left << std::setw(20) << "method" << std::setw(8) << "pair" << std::right
       << std::setw(10) << "size" << std::setw(10) << "round" << std::setw(12) << "time(us)"
       << std::setw(12) << "algbw" << std::setw(12) << "busbw" << std::setw(12) << "min-max%"
       << std::setw(10) << "#wrong"
       << "  status\n";
  out_ << "# " << std::left << std::setw(20) << "" << std::setw(8) << "" << std::right
       << std::setw(10) << "(B)" << std::setw(10) << "" << std::setw(12) << "median"
       << std::setw(12) << "(GB/s)" << std::setw(12) << "(GB/s)" << std::setw(12) << ""
       << std::setw(10) << ""
       << "\n";
  out_.flush();
}

void LiveReporter::result(const RunDocument& d, const MethodInfo* m, const Result& r) {
  (void)d;
  if (verbosity_ <= 0) return;
  out_ << "  " << std::left << std::setw(20) << r.method << std::setw(8) << pair_name(r.src, r.dst)
       << std::right << std::setw(10) << r.bytes << std::setw(10)
       << (std::to_string(r.round) +
           (r.concurrent_pairs > 1 ? "x" + std::to_string(r.concurrent_pairs) : ""));
  if (r.status == ResultStatus::kOk && r.time_us && r.algbw_gbps) {
    const bool latency = m && m->metric == Metric::kLatency;
    out_ << std::setw(12) << format_fixed(r.time_us->median, 2) << std::setw(12)
         << (latency ? "-" : format_fixed(r.algbw_gbps->median, 2)) << std::setw(12)
         << (latency ? "-"
                     : format_fixed(r.busbw_gbps ? r.busbw_gbps->median : r.algbw_gbps->median, 2));
    const auto& s = latency ? *r.time_us : *r.algbw_gbps;
    out_ << std::setw(12) << format_fixed(100.0 * relative_spread(s), 1) << std::setw(10)
         << (r.checked ? std::to_string(r.wrong) : "N/A") << "  ok";
    if (r.wrong > 0) out_ << " DATA ERRORS";
    if (r.gate_timeouts > 0) out_ << " (start gate timed out " << r.gate_timeouts << "x)";
    if (verbosity_ >= 2 && !r.sample_time_us.empty()) {
      out_ << " samples(us):";
      for (double t : r.sample_time_us) out_ << " " << format_fixed(t, 2);
    }
    if (!r.directions.empty() && verbosity_ >= 1) {
      out_ << " [";
      for (std::size_t i = 0; i < r.directions.size(); ++i) {
        out_ << (i ? ", " : "") << r.directions[i].src << "->" << r.directions[i].dst << " "
             << format_fixed(r.directions[i].algbw_gbps.median, 1);
      }
      out_ << "]";
    }
  } else {
    out_ << std::setw(12) << "-" << std::setw(12) << "-" << std::setw(12) << "-" << std::setw(12)
         << "-" << std::setw(10) << "-"
         << "  " << to_string(r.status);
    if (!r.reason.empty()) out_ << ": " << r.reason;
  }
  out_ << "\n";
  out_.flush();
  ++lines_;
}

void LiveReporter::progress(int done, int total, double elapsed_s, double remaining_s,
                            const std::string& what, bool terminal) {
  if (verbosity_ <= 0) return;
  std::ostringstream line;
  line << "# [" << done << "/" << total << "] " << format_fixed(elapsed_s, 0) << " s elapsed, ~"
       << format_fixed(remaining_s, 0) << " s left: " << what;
  if (terminal) {
    // Redrawn in place under the result lines.
    out_ << "\r" << line.str() << "\033[K\r";
  } else if (verbosity_ >= 1) {
    out_ << line.str() << "\n";  // logs get one line per update
  }
  out_.flush();
}

}  // namespace peerbench
