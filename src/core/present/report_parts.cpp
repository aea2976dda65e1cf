// What the report formats share: the pieces of a run a report shows (core/present/report_parts.h).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

#include "core/base/text.h"
#include "core/judge/burn_in.h"
#include "core/judge/verdict.h"
#include "core/model/datatypes.h"
#include "core/model/figure_unit.h"
#include "core/model/known_good.h"
#include "core/model/result_index.h"
#include "core/model/sizes.h"
#include "core/model/versions.h"
#include "core/present/report.h"
#include "core/present/report_parts.h"
#include "core/present/run_progress.h"
#include "core/present/text_table.h"

namespace peerbench {
namespace report_parts {

// The type/op variants of an all-ranks method, in the order the run measured them.
std::vector<std::string> variants_of(const RunDocument& d, const std::string& method) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& r : d.results) {
    if (r.method == method && r.src < 0 && seen.insert(variant_label(r)).second)
      out.push_back(variant_label(r));
  }
  return out;
}

std::string variant_suffix(const std::string& v) {
  return v.empty() ? "" : " (" + v + ")";
}

// Methods of one scope that appear in the run's results, in the run's method order.
std::vector<const MethodInfo*> methods_in(const RunDocument& d, MethodScope scope) {
  std::vector<const MethodInfo*> out;
  for (const auto& m : d.methods) {
    if (m.scope != scope) continue;
    for (const auto& r : d.results) {
      if (r.method == m.name) {
        out.push_back(&m);
        break;
      }
    }
  }
  return out;
}

MethodColumn column_of(const RunDocument& d, const MethodInfo* m) {
  MethodColumn c;
  c.m = m;
  for (const auto& r : d.results) {
    if (r.method == m->name && r.status == ResultStatus::kOk) c.bytes = std::max(c.bytes, r.bytes);
  }
  c.time_per_op = c.bytes > 0 && figure_is_time(m, c.bytes);
  c.unit = c.time_per_op ? headline_unit(*m, c.bytes) : unit(m);
  // "@ 8 B": a bare "@ 8" read as no size at all (an audit).
  if (c.bytes) c.unit += " @ " + format_size_label(c.bytes);
  return c;
}

std::string cell(const ResultIndex& idx, const MethodColumn& c, int src, int dst) {
  const MethodInfo* m = c.m;
  if (m->bidirectional && src > dst) std::swap(src, dst);  // one result per unordered pair
  if (const auto* r = idx.largest_ok(m->name, src, dst)) {
    // The column's kind, not the cell's size: a pair whose largest size is smaller stays in GB/s.
    const double v = c.time_per_op ? (r->time_us ? r->time_us->median : 0) : headline_value(m, *r);
    std::string s = format_fixed(v, c.time_per_op ? 2 : 1);
    return s + figure_marks(*r);
  }
  for (const auto* r : idx.of(m->name, src, dst)) {
    if (r->status == ResultStatus::kNotApplicable) return "n/a";
    if (r->status == ResultStatus::kSkipped) return "skip";
    return to_string(r->status);
  }
  return "-";
}

const std::vector<FigureMark>& figure_mark_kinds() {
  // A figure that is not the link's must not read as a slow link in a table, judged or not.
  static const std::vector<FigureMark> kinds{
      {"!", "data errors", [](const Result& r) { return r.wrong > 0; }, true},
      {"c", "beside another job", [](const Result& r) { return contended(r); }, true},
      {"t", "clocks held", [](const Result& r) { return throttled(r); }, true},
      // nccl-small-graph (schema 1) showed 5.27 us unmarked beside not-judged verdicts.
      {"g", "start gate timed out (launch gaps in its times)",
       [](const Result& r) { return r.gate_timeouts > 0; }, false},
      {"h", "launch-bound (the host's enqueue rate)",
       [](const Result& r) { return r.enqueue && r.enqueue->launch_bound; }, false}};
  return kinds;
}

std::string figure_marks(const Result& r) {
  std::string s;
  for (const auto& k : figure_mark_kinds()) {
    if (k.on(r)) s += k.mark;
  }
  return s;
}

std::vector<const FigureMark*> figure_marks_in(const RunDocument& d) {
  std::vector<const FigureMark*> out;
  for (const auto& k : figure_mark_kinds()) {
    if (k.always_named || std::any_of(d.results.begin(), d.results.end(), k.on)) out.push_back(&k);
  }
  return out;
}

std::string figure_marks_legend(const RunDocument& d, const std::string& quote,
                                const std::string& between) {
  std::vector<std::string> marks;
  for (const auto* k : figure_marks_in(d))
    marks.push_back(quote + k->mark + quote + between + k->words);
  return join(marks, ", ");
}

std::vector<std::string> interference_lines(const RunDocument& d) {
  constexpr std::size_t kCasesNamed = 6;
  std::map<std::string, std::vector<std::string>> by_what;  // what was seen -> cases
  std::vector<std::string> order;
  std::vector<const Result*> all;  // the plan's measurements, then the confirmation repeats
  for (const auto& r : d.results) all.push_back(&r);
  for (const auto& r : d.confirmations) all.push_back(&r);
  for (const Result* rp : all) {
    const Result& r = *rp;
    const std::string what = interference_text(d, r);
    if (what.empty()) continue;
    if (!by_what.count(what)) order.push_back(what);
    const std::string pair = r.src < 0        ? "all ranks"
                             : r.src == r.dst ? "rank " + std::to_string(r.src)
                                              : pair_name(r.src, r.dst);
    by_what[what].push_back(r.method + variant_suffix(variant_label(r)) + " " + pair + " " +
                            format_size_compact(r.bytes) +
                            (r.attempt ? " (repeat " + std::to_string(r.attempt) + ")" : ""));
  }
  std::vector<std::string> out;
  for (const auto& what : order) {
    const auto& cases = by_what[what];
    std::vector<std::string> named(cases.begin(),
                                   cases.begin() + std::min(cases.size(), kCasesNamed));
    out.push_back(what + ": " + join(named, ", ") +
                  (cases.size() > kCasesNamed
                       ? " and " + std::to_string(cases.size() - kCasesNamed) + " more cases"
                       : ""));
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> terms_of(const RunDocument& d) {
  std::vector<std::pair<std::string, std::string>> out;
  bool nccl = false;
  for (const auto& m : d.methods) {
    out.push_back({m.name, m.summary});
    nccl = nccl || m.uses_nccl;
  }
  out.push_back({"GB/s", "1e9 bytes per second; algbw is bytes moved over time"});
  if (nccl) {
    out.push_back({"busbw",
                   "nccl-tests' bus bandwidth: algbw x 2(n-1)/n for all-reduce, x (n-1)/n "
                   "for all-gather, reduce-scatter and all-to-all, x 1 otherwise"});
    out.push_back(
        {"P2P, SHM, NET",
         "the transport NCCL chose between two ranks: GPU to GPU "
         "(NVLink or PCIe; /CUMEM, /IPC how it mapped the peer), "
         "through host shared memory (SHM/direct/direct: how each side reached it), "
         "or the network (NET/Socket over TCP, NET/IB over InfiniBand or RoCE; /0: NCCL's "
         "index of the network device)"});
    // Words of the transport cell and its flags that NCCL's log has and no reader knows (an
    // audit).
    out.push_back({"N ch", "the NCCL channels (parallel rings or trees) that connected the pair"});
    out.push_back({"GDRDMA",
                   "GPUDirect RDMA: the network card reads and writes GPU memory directly; "
                   "without it, network traffic is staged through host memory"});
  }
  out.push_back({"NVn, PCIe GenG xW", "the link between two GPUs: n NVLinks, or a PCIe path"});
  out.push_back({"known-good",
                 "what a healthy card of the model delivers over the link "
                 "(data/known_good/, with its source)"});
  return out;
}

// Link label per pair, from the verdicts.
std::map<std::pair<int, int>, std::string> links_of(const std::vector<PairVerdict>& vs) {
  std::map<std::pair<int, int>, std::string> out;
  for (const auto& v : vs) out[{v.src, v.dst}] = v.link;
  return out;
}

std::string link_label(const std::map<std::pair<int, int>, std::string>& links, int s, int t) {
  const auto it = links.find({s, t});
  return it == links.end() ? "?" : it->second;
}

std::string unit(const MethodInfo* m) {
  // Both directions' total (nccl-tests' sendrecv reports about half of it, one direction).
  const bool both = m->bidirectional && m->metric != Metric::kLatency;
  return method_unit(*m) + (both ? " both ways" : "");
}

// The host's total of an every-GPU-at-once method, per host: the sum of the ranks' medians at the
// largest size (they ran in one timed window); a GPU two ranks share carried both and is one GPU.
std::vector<std::string> host_totals(const RunDocument& d, const ResultIndex& idx,
                                     const MethodInfo* m) {
  std::uint64_t bytes = 0;
  for (const auto& r : d.results) {
    if (r.method == m->name && r.status == ResultStatus::kOk) bytes = std::max(bytes, r.bytes);
  }
  std::map<std::string, std::pair<double, std::set<std::string>>> per_host;
  for (int g : idx.gpus()) {
    const auto* r = idx.ok_at(m->name, g, g, bytes);
    const RankInfo* ri = idx.rank(g);
    if (!r || !r->algbw_gbps || !ri) continue;
    auto& [sum, cards] = per_host[ri->host];
    const std::string card =
        ri->gpu.pci_bus_id.empty() ? std::to_string(ri->gpu.index) : ri->gpu.pci_bus_id;
    cards.insert(card);
    sum += r->algbw_gbps->median;
  }
  std::vector<std::string> out;
  for (const auto& [host, total] : per_host) {
    const auto n = total.second.size();
    out.push_back(m->name + " on " + host + ": " + format_fixed(total.first, 1) + " GB/s from " +
                  std::to_string(n) + " GPU" + (n == 1 ? "" : "s") + " at once @ " +
                  format_size_compact(bytes) + " (sum of the GPUs' medians)");
  }
  return out;
}

PairTable pair_table(const RunDocument& d, const ResultIndex& idx,
                     const std::map<std::pair<int, int>, std::string>& links) {
  PairTable t;
  for (const auto* m : methods_in(d, MethodScope::kPair)) t.columns.push_back(column_of(d, m));
  if (t.columns.empty()) return t;
  for (const auto& [s, d_] : idx.pairs()) {
    PairTable::Row row{
        s, d_, pair_name(s, d_), link_label(links, s, d_), {}, transport_of(idx, s, d_)};
    for (const auto& c : t.columns) row.cells.push_back(cell(idx, c, s, d_));
    t.rows.push_back(std::move(row));
  }
  return t;
}

HostTable host_table(const RunDocument& d, const ResultIndex& idx,
                     const std::map<std::pair<int, int>, std::string>& links) {
  HostTable t;
  t.methods = methods_in(d, MethodScope::kPerGpu);
  if (t.methods.empty()) return t;
  std::vector<MethodColumn> columns;
  for (const auto* m : t.methods) columns.push_back(column_of(d, m));
  for (const auto& c : columns) t.units.push_back(c.unit);
  // "node1 GPU 0"; by PCI bus id where indexes do not tell GPUs apart (per-task binding: every
  // rank sees its GPU as index 0).
  std::map<std::string, std::set<std::string>> buses_of_label;
  auto short_label = [](const RankInfo& r) {
    return r.host + " GPU " + std::to_string(r.gpu.index);
  };
  for (int g : idx.gpus()) {
    if (const RankInfo* ri = idx.rank(g))
      buses_of_label[short_label(*ri)].insert(ri->gpu.pci_bus_id);
  }
  for (int g : idx.gpus()) {
    const RankInfo* ri = idx.rank(g);
    std::string gpu = ri ? short_label(*ri) : "?";
    if (ri && buses_of_label[gpu].size() > 1) gpu = ri->host + " " + ri->gpu.pci_bus_id;
    HostTable::Row row{pair_name(g, g), gpu, link_label(links, g, g), {}};
    for (const auto& c : columns) row.cells.push_back(cell(idx, c, g, g));
    t.rows.push_back(std::move(row));
    if (ri && !ri->host_memory.empty())
      t.memory.push_back(pair_name(g, g) + ": " + ri->host_memory);
  }
  if (t.memory.empty()) t.memory.push_back("where the pinned buffers were placed: not recorded");
  for (const auto* m : t.methods) {
    if (!m->all_gpus_at_once) continue;
    for (auto& s : host_totals(d, idx, m)) t.totals.push_back(std::move(s));
  }
  return t;
}

std::string transport_of(const ResultIndex& idx, int src, int dst) {
  const auto* p = idx.facts(src, dst);
  if (!p || !p->nccl) return "";
  if (!p->nccl->net_paths.empty()) {
    std::string s;
    for (const auto& n : p->nccl->net_paths) s += (s.empty() ? "" : ",") + n;
    return s + (p->nccl->gdrdma.value_or(false) ? "/GDRDMA" : "");
  }
  return p->nccl->details.empty() ? p->nccl->kind : p->nccl->details.front();
}

std::string system_line(const RunDocument& d) {
  std::ostringstream o;
  // Distinct GPUs, not ranks: two ranks sharing one GPU are one GPU.
  std::map<std::string, std::set<std::string>> gpus;
  for (const auto& r : d.system.ranks) {
    gpus[r.gpu.name].insert(
        r.host + "/" + (r.gpu.pci_bus_id.empty() ? std::to_string(r.gpu.index) : r.gpu.pci_bus_id));
  }
  o << d.system.ranks.size() << " ranks on " << d.system.hosts.size() << " host"
    << (d.system.hosts.size() == 1 ? "" : "s");
  for (const auto& [name, ids] : gpus) o << ", " << ids.size() << "x " << name;
  if (!d.system.driver_version.empty()) o << ", driver " << d.system.driver_version;
  if (d.system.cuda_runtime_version) {
    o << ", CUDA " << format_cuda_version(d.system.cuda_runtime_version);
  }
  if (!d.system.nccl_version.empty()) o << ", NCCL " << d.system.nccl_version;
  return o.str();
}

std::string command_line_text(const RunDocument& d) {
  return join(d.tool.command_line, " ");
}

std::string steering_environment_text(const RunDocument& d) {
  std::vector<std::string> out;
  for (const auto& [k, v] : d.environment) {
    const bool nccl =
        k.rfind("NCCL_", 0) == 0 && k.rfind("NCCL_DEBUG", 0) != 0 && k != "NCCL_VERSION";
    if (nccl || k == "CUDA_VISIBLE_DEVICES" || k == "PEERBENCH_HOST_ID") out.push_back(k + "=" + v);
  }
  return out.empty() ? "none of NCCL's or the GPU selection's variables set" : join(out, " ");
}

// Results that were not measured, grouped by method, status and reason: nothing asked for is
// dropped without saying why.
std::vector<Unmeasured> unmeasured(const RunDocument& d) {
  std::vector<Unmeasured> out;
  std::map<std::tuple<std::string, std::string, std::string>, std::size_t> group;
  std::set<std::pair<std::size_t, std::string>> listed;
  for (const auto& r : d.results) {
    if (r.status == ResultStatus::kOk) continue;
    const std::string st = to_string(r.status);
    const auto [it, fresh] = group.emplace(std::make_tuple(r.method, st, r.reason), out.size());
    if (fresh) out.push_back({r.method, st, r.reason, {}, 0});
    Unmeasured& u = out[it->second];
    const std::string p = pair_name(r.src, r.dst);
    if (listed.insert({it->second, p}).second) u.pairs.push_back(p);
    ++u.cases;
  }
  return out;
}

// The GPUs of the judged pairs: host, index, PCI bus id, UUID, serial.
std::string gpu_index_text(const CardId& c, const std::vector<CardId>& all) {
  const bool ambiguous = std::any_of(all.begin(), all.end(), [&](const CardId& o) {
    return o.host == c.host && o.gpu_index == c.gpu_index && o.pci_bus_id != c.pci_bus_id;
  });
  return std::to_string(c.gpu_index) +
         (ambiguous ? " as its rank sees it (go by the PCI id)" : std::string());
}

std::vector<CardId> cards_in(const std::vector<PairVerdict>& vs) {
  std::vector<CardId> out;
  std::set<int> seen;
  for (const auto& v : vs) {
    for (const auto& c : v.cards) {
      if (seen.insert(c.rank).second) out.push_back(c);
    }
  }
  std::sort(out.begin(), out.end(),
            [](const CardId& a, const CardId& b) { return a.rank < b.rank; });
  return out;
}

std::string serial_text(const CardId& c) {
  return c.serial.empty() ? "not recorded" : c.serial;
}

// Per pair and method: the figure beside its known-good one (data/known_good), and its source;
// or, once per pair, why there is none.

std::vector<KnownGoodRow> known_good_rows(const std::vector<PairVerdict>& vs) {
  std::vector<KnownGoodRow> out;
  for (const auto& v : vs) {
    std::set<std::string> unknown_said;
    for (const auto& m : v.methods) {
      const std::string pair = pair_name(v.src, v.dst);
      if (!m.expected) {
        if (!m.expected_basis.empty() && unknown_said.insert(m.expected_basis).second)
          out.push_back({pair, v.link, m.method, "", "", "", m.expected_basis});
        continue;
      }
      const bool us = m.unit == "us";
      const bool untrusted =
          m.state == verdict_state::kContended || m.state == verdict_state::kThrottled;
      // Beside another job or under held clocks: said beside the figure, so its ratio is not
      // read as the link's.
      out.push_back({pair, v.link, m.method,
                     (m.value ? format_fixed(*m.value, us ? 2 : 1) + " " + m.unit : "") +
                         (untrusted ? " (" + m.state + ": not the link's figure)" : ""),
                     format_fixed(*m.expected, us ? 2 : 1),
                     m.expected_ratio ? format_fixed(*m.expected_ratio, 2) : "", m.expected_basis});
    }
  }
  return out;
}

std::vector<std::string> known_good_sources(const std::vector<KnownGoodRow>& rows) {
  const KnownGoodTable& table = builtin_known_good_table();
  std::vector<std::string> out;
  for (const auto& src : table.sources()) {
    const std::string named = "source: " + src.id;
    const bool used = std::any_of(rows.begin(), rows.end(), [&](const KnownGoodRow& r) {
      const auto at = r.basis.find(named);
      if (at == std::string::npos) return false;
      const auto end = at + named.size();  // the whole id: not a prefix of a longer one
      return end == r.basis.size() || r.basis[end] == ')' || r.basis[end] == ';' ||
             r.basis[end] == ',';
    });
    if (used) out.push_back(src.id + ": " + src.citation + (src.url.empty() ? "" : " " + src.url));
  }
  return out;
}

std::string upper(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}

// A verdict as the text report shows it: upper case where it is not a pass and not neutral.
std::string verdict_word(const std::string& state) {
  if (state == verdict_state::kPass || state == verdict_state::kNotJudged ||
      state == verdict_state::kNotApplicable || state == verdict_state::kNotALink)
    return state;
  return upper(state);
}

// How a verdict state reads at a glance: only pass is good; nothing unmeasured looks like it.
Tone state_tone(const std::string& state) {
  if (state == verdict_state::kPass) return Tone::kGood;
  if (state == verdict_state::kFlagged) return Tone::kBad;
  // Not a pass, and not the link's fault: amber, as incomplete.
  if (state == verdict_state::kIncomplete || state == verdict_state::kContended ||
      state == verdict_state::kThrottled || state == verdict_state::kNoisy)
    return Tone::kWarn;
  return Tone::kNeutral;
}

Cell state_cell(const std::string& state) {
  Cell c(verdict_word(state));
  c.tone = state_tone(state);
  return c;
}

}  // namespace report_parts

int verdict_link_width(const std::vector<PairVerdict>& vs) {
  std::size_t w = 7;
  for (const auto& v : vs) w = std::max(w, v.link.size() + 2);
  return static_cast<int>(w);
}

std::string pair_name(int src, int dst) {
  if (src < 0 && dst < 0) return "all";
  if (src == dst) return "rank " + std::to_string(src);  // host<->GPU methods: its GPU
  return std::to_string(src) + "->" + std::to_string(dst);
}

}  // namespace peerbench
