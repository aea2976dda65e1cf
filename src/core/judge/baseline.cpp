#include "core/judge/baseline.h"
#include "core/model/versions.h"

#include <algorithm>
#include <map>

#include "core/base/text.h"
#include "core/model/json_in.h"
#include "core/model/sizes.h"

namespace peerbench {

using nlohmann::json;

namespace {}  // namespace

RunVersions run_versions(const RunDocument& d) {
  RunVersions v;
  v.driver = d.system.driver_version;
  const std::string drv = format_cuda_version(d.system.cuda_driver_version);
  const std::string rt = format_cuda_version(d.system.cuda_runtime_version);
  v.cuda = drv == rt || rt.empty() ? drv : drv + " (runtime " + rt + ")";
  v.nccl = d.system.nccl_version;
  return v;
}

namespace {

// The GPU's topology record, found by the rank's host and PCI bus id.
const GpuTopology* topology_gpu(const RunDocument& d, int rank) {
  const auto* r = rank_info(d, rank);
  if (!r || !d.topology) return nullptr;
  for (const auto& h : d.topology->hosts) {
    if (h.host != r->host) continue;
    for (const auto& g : h.gpus) {
      if (g.pci_bus_id == r->gpu.pci_bus_id) return &g;
    }
  }
  return nullptr;
}

// "NV18", "NET", or for PCIe paths the generation and width both GPUs are capable of, so a link
// trained down shows as an outlier among its peers rather than in a group of its own.
std::string link_group(const RunDocument& d, const PairVerdict& v) {
  if (v.src < 0) {
    std::string s = "all " + std::to_string(d.system.ranks.size()) + " GPUs";
    if (d.system.hosts.size() > 1) s += " on " + std::to_string(d.system.hosts.size()) + " hosts";
    return s;
  }
  const bool pcie =
      v.link == "PIX" || v.link == "PXB" || v.link == "PHB" || v.link == "NODE" || v.link == "SYS";
  const auto* a = topology_gpu(d, v.src);
  const auto* b = topology_gpu(d, v.dst);
  if (!pcie || !a || !b) return v.link;
  // The bar the verdict judged the pair by: what both GPUs and slots support.
  const int gen = std::min(pcie_gen_bar(*a), pcie_gen_bar(*b));
  const int width = std::min(pcie_width_bar(*a), pcie_width_bar(*b));
  if (gen == 0 || width == 0) return v.link;
  return "PCIe Gen" + std::to_string(gen) + " x" + std::to_string(width) + " " + v.link;
}

int config_int(const RunDocument& d, const char* key, int absent) {
  const auto& c = d.config;
  if (!c.is_object() || !c.contains(key)) return absent;
  const auto& x = c[key];
  if (x.is_boolean()) return x.get<bool>() ? 1 : 0;
  return x.is_number() ? x.get<int>() : absent;
}

// The element type and reduction a collective's figure was judged at (the first of -d and -o,
// as the verdicts take it), where they are not float and sum: a half or prod figure set beside
// float/sum ones read as a 0.6 fleet outlier, and met a float/sum baseline entry (an audit).
std::string judged_variant(const RunDocument& d, const MethodInfo* m) {
  if (!m || !m->typed) return "";
  const auto first = [&](const char* key, const char* absent) {
    const auto& c = d.config;
    if (!c.is_object() || !c.contains(key) || !c[key].is_array() || c[key].empty() ||
        !c[key][0].is_string())
      return std::string(absent);
    return c[key][0].get<std::string>();
  };
  std::vector<std::string> parts;
  if (const std::string t = first("datatypes", "float"); t != "float") parts.push_back("-d " + t);
  if (m->reduces)
    if (const std::string o = first("ops", "sum"); o != "sum") parts.push_back("-o " + o);
  return join(parts, " ");
}

}  // namespace

std::string measurement_mode(const RunDocument& d, const MethodInfo* m) {
  std::vector<std::string> parts;
  // A key an older file lacks reads as the value its version implied: the default. -R changes
  // NCCL's buffers only, and the in-place option the all-reduce only.
  const bool nccl = !m || m->uses_nccl;
  const bool allreduce = !m || m->collective == Collective::kAllReduce;
  if (const int r = config_int(d, "local_register", 0); r && nccl)
    parts.push_back("-R " + std::to_string(r));
  // -a combines ranks' times: a method one rank times (a one-sided copy) ran as without it.
  if (const int a = config_int(d, "average", 3); a != 3 && (!m || m->workers != 1))
    parts.push_back("-a " + std::to_string(a));
  if (const int z = config_int(d, "blocking", 0)) parts.push_back("-z " + std::to_string(z));
  // A method -G cannot capture (staged, sm-latency) ran as it does without it (an audit: a mixed
  // run's staged figures were "under other settings" than every run without -G).
  if (const int g = config_int(d, "cudagraph_replays", 0); g && (!m || m->graph_capturable))
    parts.push_back("-G " + std::to_string(g));
  if (config_int(d, "allreduce_inplace", 0) && allreduce) parts.push_back("in-place");
  return join(parts, " ");
}

std::string baseline_group(const RunDocument& d, const PairVerdict& v, const MethodInfo* m) {
  std::string mode = measurement_mode(d, m);
  const std::string variant = judged_variant(d, m);
  if (!variant.empty()) mode += (mode.empty() ? "" : " ") + variant;
  return link_group(d, v) + (mode.empty() ? "" : ", " + mode);
}

namespace {

// How many of driver, CUDA and NCCL an entry is kept for.
int specificity(const BaselineEntry& e) {
  return !e.driver.empty() + !e.cuda.empty() + !e.nccl.empty();
}

// How many of the run's versions an entry is kept for: those it names and the run shares.
int shared_versions(const BaselineEntry& e, const RunVersions& v) {
  return (!e.driver.empty() && e.driver == v.driver) + (!e.cuda.empty() && e.cuda == v.cuda) +
         (!e.nccl.empty() && e.nccl == v.nccl);
}

}  // namespace

const BaselineEntry* find_baseline(const std::vector<BaselineEntry>& entries,
                                   const BaselineQuery& q) {
  const BaselineEntry* best = nullptr;
  const BaselineEntry* other_versions = nullptr;
  for (const auto& e : entries) {
    if (e.model != q.model || e.link != q.link || e.method != q.method || e.bytes != q.bytes ||
        e.ranks != q.ranks || e.group != q.group)
      continue;
    if ((!e.driver.empty() && e.driver != q.versions.driver) ||
        (!e.cuda.empty() && e.cuda != q.versions.cuda) ||
        (!e.nccl.empty() && e.nccl != q.versions.nccl)) {
      // Of entries sharing as many versions, the strictest bar: which other version a run is
      // held to must not hang on the order of the file's entries (a review saw one run fail or
      // pass as the entries were reversed), and the most lenient passed a run with no driver
      // recorded at 0.80 of healthy on the slow driver's entry (a hostile audit). The flag names
      // the versions, so a slower version is the suspect, not the link.
      const int s = shared_versions(e, q.versions);
      const int best_s = other_versions ? shared_versions(*other_versions, q.versions) : -1;
      const bool stricter = other_versions && (e.lower_is_better ? e.bar < other_versions->bar
                                                                 : e.bar > other_versions->bar);
      if (s > best_s || (s == best_s && stricter)) other_versions = &e;
      continue;
    }
    // The entry kept for the run's own versions over one for any (an edited file's stricter
    // driver entry lost to a version-less one with more pairs; an audit), then the most pairs.
    if (!best || specificity(e) > specificity(*best) ||
        (specificity(e) == specificity(*best) && e.pairs > best->pairs))
      best = &e;
  }
  return best ? best : other_versions;
}

BaselineOrigin baseline_origin_from(const JsonIn& section) {
  BaselineOrigin o;
  const auto from = section.opt("from");
  if (!from || !from->raw().is_object()) return o;
  auto list = [&](const char* key, std::vector<std::string>& out) {
    if (auto x = from->opt(key); x && x->raw().is_array()) out = x->string_array(1 << 10);
  };
  list("drivers", o.drivers);
  list("cuda", o.cuda);
  list("nccl", o.nccl);
  return o;
}

std::string baseline_version_note(const BaselineEntry& e, const BaselineOrigin& from,
                                  const RunVersions& run) {
  std::vector<std::string> then, now, entry_then, entry_now;
  auto check = [&](const char* what, const std::string& entry,
                   const std::vector<std::string>& fleet, const std::string& mine) {
    if (!entry.empty()) {  // kept per version: the run is judged by another version's entry
      if (entry == mine) return;
      entry_then.push_back(std::string(what) + " " + entry);
      entry_now.push_back(std::string(what) + " " + (mine.empty() ? "not recorded" : mine));
      return;
    }
    if (fleet.empty() || std::find(fleet.begin(), fleet.end(), mine) != fleet.end()) return;
    then.push_back(std::string(what) + " " + join(fleet, "/"));
    now.push_back(std::string(what) + " " + (mine.empty() ? "not recorded" : mine));
  };
  check("driver", e.driver, from.drivers, run.driver);
  check("CUDA", e.cuda, from.cuda, run.cuda);
  check("NCCL", e.nccl, from.nccl, run.nccl);
  if (!entry_then.empty()) {
    for (std::size_t i = 0; i < then.size(); ++i) {
      entry_then.push_back(then[i]);
      entry_now.push_back(now[i]);
    }
    return "the baseline has no entry for this run's versions; the one that judged it is for " +
           join(entry_then) + "; this run " + join(entry_now);
  }
  if (then.empty()) return "";
  return "the baseline's fleet ran " + join(then) + "; this run " + join(now);
}

json to_json(const BaselineEntry& e) {
  json j = {{"model", e.model},
            {"link", e.link},
            {"group", e.group},
            {"method", e.method},
            {"bytes", e.bytes},
            {"ranks", e.ranks},
            {"unit", e.lower_is_better ? "us" : "GB/s"},
            {"median", e.median},
            {"p25", e.p25},
            {"p75", e.p75},
            {"min", e.min},
            {"max", e.max},
            {"pairs", e.pairs},
            {"nodes", e.nodes},
            {"bar", e.bar}};
  if (!e.driver.empty()) j["driver"] = e.driver;
  if (!e.cuda.empty()) j["cuda"] = e.cuda;
  if (!e.nccl.empty()) j["nccl"] = e.nccl;
  return j;
}

namespace {

// The case an entry is for: GPU model, link, group, method, size, ranks, and its unit, which
// must be the one its method and size are judged in.
void read_entry_case(const JsonIn& in, const std::vector<MethodInfo>& catalog,
                     std::uint64_t small_max, BaselineEntry& e) {
  e.model = in.at("model").str(256);
  e.link = in.at("link").str(64);
  e.group = in.opt_str("group").value_or(e.link);
  e.method = in.at("method").str(128);
  e.bytes = static_cast<std::uint64_t>(in.at("bytes").integer(1, 1ll << 50));
  e.ranks = static_cast<int>(in.at("ranks").integer(1, 1 << 20));
  const auto unit = in.at("unit").str(16);
  if (unit != "GB/s" && unit != "us") in.at("unit").fail("'" + unit + "' is not GB/s or us");
  e.lower_is_better = unit == "us";
  // An entry no case can match judges nothing: a method that does not exist, or a unit other
  // than the one its method and size are judged in (a time at latency sizes, GB/s above).
  const MethodInfo* m = find_method(catalog, e.method);
  if (!catalog.empty() && !m) {
    std::vector<std::string> names;
    for (const auto& c : catalog) names.push_back(c.name);
    in.at("method").fail("unknown method " + quoted_value(e.method) + "; allowed: " + join(names));
  }
  const std::string fits = figure_is_time(m, e.bytes, small_max) ? "us" : "GB/s";
  if (m && unit != fits)
    in.at("unit").fail("'" + unit + "' does not fit " + e.method + " at " + format_size(e.bytes) +
                       " (judged in " + fits + " there)");
}

// The fleet's figures: their spread in order, and the pairs and nodes they came from.
void read_entry_figures(const JsonIn& in, BaselineEntry& e) {
  e.min = in.at("min").number(0, 1e9);
  e.p25 = in.at("p25").number(e.min, 1e9);
  e.median = in.at("median").number(e.p25, 1e9);
  e.p75 = in.at("p75").number(e.median, 1e9);
  e.max = in.at("max").number(e.p75, 1e9);
  if (e.median <= 0) in.at("median").fail("a median of 0 bars nothing");
  // What the writer keeps an entry for: a median of one node, or of two pairs, is no site's
  // (an edited "nodes": 1 judged 20 figures; an audit).
  e.pairs = static_cast<int>(in.at("pairs").integer(1, 1 << 30));
  e.nodes = static_cast<int>(in.at("nodes").integer(1, 1 << 30));
  const std::string again =
      ": no site median; write the baseline again (fleet --write-baseline, peerbench "
      "2026-12-03 or later keeps no such entry)";
  if (e.nodes < kBaselineMinNodes)
    in.at("nodes").fail(std::to_string(e.nodes) + " node, under the " +
                        std::to_string(kBaselineMinNodes) + " a site baseline's entry needs" +
                        again);
  if (e.pairs < kFleetMinGroupPairs)
    in.at("pairs").fail(std::to_string(e.pairs) + " pairs, under the " +
                        std::to_string(kFleetMinGroupPairs) + " a site baseline's entry needs" +
                        again);
}

// The bar, on the looser side of the entry's median.
void read_entry_bar(const JsonIn& in, BaselineEntry& e) {
  const std::string unit = e.lower_is_better ? "us" : "GB/s";
  e.bar = in.at("bar").number(1e-9, 1e9);
  // A bar on the wrong side of its own median fails the healthy nodes it was made from (an
  // edited 1.5 x median flagged a healthy node; an audit); a looser bar is the site's choice.
  if (e.lower_is_better ? e.bar < e.median : e.bar > e.median) {
    in.at("bar").fail(format_fixed(e.bar, 3) + " " + unit + " is " +
                      (e.lower_is_better ? "under" : "over") + " the entry's median " +
                      format_fixed(e.median, 3) + ": it would fail the healthy nodes it came " +
                      "from; a bar is " + (e.lower_is_better ? "at least" : "at most") +
                      " the median");
  }
}

// One entry of a baseline, each field checked as its writer gives it.
BaselineEntry baseline_entry_from(const JsonIn& in, const std::vector<MethodInfo>& catalog,
                                  std::uint64_t small_max) {
  in.only_keys({"model", "link", "group", "method", "bytes", "ranks", "unit", "median", "p25",
                "p75", "min", "max", "pairs", "nodes", "bar", "driver", "cuda", "nccl"});
  BaselineEntry e;
  read_entry_case(in, catalog, small_max, e);
  read_entry_figures(in, e);
  read_entry_bar(in, e);
  e.driver = in.opt_str("driver").value_or("");
  e.cuda = in.opt_str("cuda").value_or("");
  e.nccl = in.opt_str("nccl").value_or("");
  return e;
}

// The case an entry bars (its versions included): one bar per case.
std::string case_of(const BaselineEntry& e) {
  return join({e.model, e.link, e.group, e.method, std::to_string(e.bytes), std::to_string(e.ranks),
               e.driver, e.cuda, e.nccl},
              "\n");
}

}  // namespace

std::vector<BaselineEntry> baseline_entries_from(const JsonIn& section,
                                                 const std::vector<MethodInfo>& catalog,
                                                 std::uint64_t small_max) {
  section.only_keys({"tolerance", "written_at", "per_version", "from", "entries", "comment"});
  // The tolerance the bars were made with; a value no fleet could have used is an edit gone
  // wrong (-3 was read without a word; an audit).
  section.opt_number("tolerance", 0, 1);
  // The provenance is read where it names versions (baseline_origin_from); its other fields are
  // still of a type a writer gives ("from": "yesterday" was read without a word; an audit).
  section.opt_str("written_at");
  section.opt_bool("per_version");
  if (auto from = section.opt("from")) from->require_object();
  std::vector<BaselineEntry> out;
  // One case, one bar: a second entry for it was ignored without a word (the one of more pairs,
  // else the first, judged; an audit).
  std::map<std::string, std::size_t> entry_of_case;
  for (const auto& in : section.at("entries").array(1 << 20)) {
    BaselineEntry e = baseline_entry_from(in, catalog, small_max);
    const std::string key = case_of(e);
    const auto [it, fresh] = entry_of_case.emplace(key, out.size());
    if (!fresh) {
      in.fail("the same case as entries[" + std::to_string(it->second) + "] (" + e.method + " at " +
              format_size(e.bytes) + " on " + e.model + ", " + e.group +
              "): one bar per case; keep one");
    }
    out.push_back(std::move(e));
  }
  // An empty list judged nothing and the reports then never named the baseline (an audit).
  if (out.empty()) section.at("entries").fail("no entries: a baseline without any judges nothing");
  return out;
}

}  // namespace peerbench
