#include "core/fleet/fleet.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <set>
#include <string_view>
#include <tuple>

#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/fleet/fleet_adapter.h"
#include "core/model/json_in.h"
#include "core/model/schema.h"
#include "core/model/sizes.h"
#include "core/platform/input_file.h"

namespace peerbench {

std::string to_string(NodeState s) {
  switch (s) {
    case NodeState::kFlagged:
      return "flagged";
    case NodeState::kIncomplete:
      return "incomplete";
    case NodeState::kMissing:
      return "missing";
    case NodeState::kPass:
      return "pass";
  }
  return "pass";
}

int FleetNode::flag_count() const {
  int n = 0;
  for (const auto& p : pairs) n += static_cast<int>(p.flags.size());
  return n;
}

FlagKind flag_kind(const std::string& code) {
  const FlagInfo* f = find_flag(code);
  return f ? f->kind : FlagKind::kFigure;  // a code this version does not know: a figure's
}

std::string fleet_unit(const std::string& method, bool lower_is_better) {
  if (lower_is_better) return "us";
  return method.rfind("nccl-", 0) == 0 ? "busbw GB/s" : "GB/s";
}

std::string FleetPair::note() const {
  std::vector<std::string> parts;
  for (const auto& [method, reason] : note_by_method) parts.push_back(method + ": " + reason);
  return join(parts, "; ");
}

bool FleetNode::has_flag_of(FlagKind k) const {
  for (const auto& p : pairs) {
    for (const auto& f : p.flags) {
      if (flag_kind(f.code) == k) return true;
    }
  }
  return false;
}

int FleetReport::count(NodeState s) const {
  return static_cast<int>(
      std::count_if(nodes.begin(), nodes.end(), [s](const FleetNode& n) { return n.state == s; }));
}

namespace {

bool ends_with_json(const std::string& name) {
  return name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0;
}

// Searches `dir` for *.json below it, `depth` levels under a path given. Folders are told apart
// by device and inode, so a symbolic link back up the tree (or a second link to one folder) is
// searched once, never in a loop; below kMaxFolderDepth nothing is searched. Names starting with
// '.' are skipped (the atomic writer's temporary files among them). A folder or entry that cannot
// be read is listed in `out.unreadable` and the rest is searched.
void add_folder(const std::string& dir, int depth, std::set<std::pair<dev_t, ino_t>>& searched,
                ResultFiles& out) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) {
    out.unreadable.push_back({dir, std::string("folder cannot be read: ") + std::strerror(errno)});
    return;
  }
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(d)) {
    if (e->d_name[0] != '.') names.emplace_back(e->d_name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  for (const auto& n : names) {
    const std::string path = (dir.back() == '/' ? dir : dir + "/") + n;  // "a/" + n, not "a//"
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      // A results file that cannot be looked at (a dangling link, no permission) is listed.
      if (ends_with_json(n)) out.files.push_back(path);
      continue;
    }
    if (!S_ISDIR(st.st_mode)) {
      // Not only regular files: the reader refuses a FIFO or device with its reason.
      if (ends_with_json(n)) out.files.push_back(path);
    } else if (depth + 1 > kMaxFolderDepth) {
      out.unreadable.push_back(
          {path, "not searched: deeper than " + std::to_string(kMaxFolderDepth) + " folders"});
    } else if (searched.insert({st.st_dev, st.st_ino}).second) {
      add_folder(path, depth + 1, searched, out);
    }
  }
}

std::string file_stem(const std::string& path) {
  const auto slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  return ends_with_json(name) ? name.substr(0, name.size() - 5) : name;
}

FleetNode unreadable_node(const std::string& file, const std::string& reason) {
  FleetNode n;
  n.host = file_stem(file);
  n.file = file;
  n.problems.push_back("unreadable: " + reason);
  return n;
}

// What a *.json that is not a run is, where it is a file peerbench writes beside runs ("" for
// anything else, which stays an unreadable node): `topo --json` output and `fleet
// --write-baseline` files made a phantom incomplete node and failed the fleet (audits).
std::string other_peerbench_file(const std::string& path) {
  try {
    const nlohmann::json j = load_json_file(path);
    if (!j.is_object()) return "";
    const auto kind = j.find("kind");
    if (kind != j.end() && *kind == kTopologyKind) return "a topology file (topo --json)";
    if (kind == j.end() && !j.contains("schema_version") && j.contains("baseline") &&
        j["baseline"].is_object())
      return "a site baseline (--write-baseline; give it as --expect)";
  } catch (const std::exception&) {
  }
  return "";
}

// Whether two files hold the same bytes (a run collected twice, a backup folder beside it).
bool same_bytes(const std::string& a, const std::string& b) {
  try {
    return read_input_file(a, InputKind::kResults) == read_input_file(b, InputKind::kResults);
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

std::set<std::string> node_cases(const FleetNode& n) {
  std::set<std::string> cases;
  for (const auto& p : n.pairs) {
    for (const auto& m : p.measurements)
      cases.insert(m.method + " " + p.src_pci + "->" + p.dst_pci + " " + std::to_string(m.bytes) +
                   " x" + std::to_string(p.ranks));
  }
  return cases;
}

namespace {

// One node per host: the later run counts; the earlier ones are kept in `earlier`.
std::vector<FleetNode> resolve_duplicates(
    std::vector<FleetNode> nodes, std::vector<std::string>& notes,
    std::map<std::string, std::vector<FleetReport::EarlierRun>>& earlier) {
  std::stable_sort(nodes.begin(), nodes.end(), [](const FleetNode& a, const FleetNode& b) {
    return std::tie(a.host, a.started_at) < std::tie(b.host, b.started_at);
  });
  std::vector<FleetNode> out;
  for (auto& n : nodes) {
    if (!out.empty() && out.back().host == n.host && out.back().started_at == n.started_at &&
        !n.started_at.empty() && same_bytes(out.back().file, n.file)) {
      notes.push_back(n.host + ": " + out.back().file + " and " + n.file +
                      " hold the same run (a copy); counted once");
      continue;
    }
    if (!out.empty() && out.back().host == n.host && out.back().started_at == n.started_at &&
        !n.started_at.empty()) {
      // Which is later cannot be told: the file order would decide, and a flagged run could hide
      // behind a healthy one of the same start time (an audit). Neither is taken as the node's,
      // nor do its figures join the fleet's groups (the file named first had been judged).
      out.back().pairs.clear();
      out.back().problems.push_back("runs in " + out.back().file + " and " + n.file +
                                    " both started at " + n.started_at +
                                    ": which is later cannot be told; keep one");
      notes.push_back(n.host + ": results in " + out.back().file + " and " + n.file +
                      " started at the same time; the node is incomplete until one is kept");
      continue;
    }
    if (!out.empty() && out.back().host == n.host) {
      // Named once, with the run that counts, in the report's section of earlier runs: a note per
      // step ("the later run (B) counts", then C) read as B counting (an audit).
      const FleetNode& e = out.back();
      earlier[n.host].push_back(
          {e.file, e.flag_count(),
           !e.problems.empty() || std::any_of(e.pairs.begin(), e.pairs.end(),
                                              [](const FleetPair& p) { return p.unsettled(); }),
           node_cases(e)});
      out.back() = std::move(n);
    } else {
      out.push_back(std::move(n));
    }
  }
  return out;
}

void add_expected_hosts(std::vector<FleetNode>& nodes, const std::vector<std::string>& hosts,
                        std::vector<std::string>& notes) {
  const std::set<std::string> expected(hosts.begin(), hosts.end());
  std::set<std::string> present;
  for (const auto& n : nodes) {
    present.insert(n.host);
    if (!expected.count(n.host))
      notes.push_back(n.host + " (" + n.file + ") is not in the --hosts list; counted anyway");
  }
  for (const auto& h : expected) {
    if (present.count(h)) continue;
    FleetNode n;
    n.host = h;
    n.state = NodeState::kMissing;
    n.problems.push_back("expected (--hosts) but no results file names it");
    nodes.push_back(std::move(n));
  }
}

struct Member {
  FleetNode* node;
  FleetPair* pair;
  const Measurement* at_size = nullptr;
};

// The size a group is judged at: the largest size most of its pairs reached (ties: larger).
std::uint64_t group_size(const std::string& method, const std::vector<Member>& members) {
  std::map<std::uint64_t, int> votes;
  for (const auto& m : members) {
    std::uint64_t largest = 0;
    for (const auto& x : m.pair->measurements)
      if (x.method == method) largest = std::max(largest, x.bytes);
    if (largest) ++votes[largest];
  }
  std::uint64_t best = 0;
  int most = 0;
  for (const auto& [bytes, n] : votes) {
    if (n >= most) std::tie(best, most) = std::tie(bytes, n);
  }
  return best;
}

FleetGroup summarize_group(const std::string& method, std::uint64_t bytes,
                           std::vector<Member>& members) {
  FleetGroup g;
  g.method = method;
  g.gpu_model = members.front().pair->gpu_model;
  g.link = members.front().pair->group_of(method);
  g.bytes = bytes;
  std::vector<double> values;
  std::set<std::string> nodes;
  for (auto& m : members) {
    for (const auto& x : m.pair->measurements) {
      if (x.method == method && x.bytes == bytes) m.at_size = &x;
    }
    if (!m.at_size) continue;
    values.push_back(m.at_size->value);
    nodes.insert(m.node->host);
    g.lower_is_better = m.at_size->lower_is_better;
    g.through_host = m.at_size->through_host;
    g.both_ways = m.at_size->both_ways;
  }
  std::sort(values.begin(), values.end());
  g.pairs = static_cast<int>(values.size());
  g.nodes = static_cast<int>(nodes.size());
  if (!values.empty()) {
    g.min = values.front();
    g.max = values.back();
    g.median = quantile(values, 0.5);
    g.p25 = quantile(values, 0.25);
    g.p75 = quantile(values, 0.75);
  }
  g.judged = g.pairs >= kFleetMinGroupPairs && g.median > 0;
  return g;
}

Flag outlier_flag(const FleetGroup& g, const FleetPair& p, const FleetPosition& pos,
                  double tolerance) {
  const std::string unit = " " + fleet_unit(g.method, g.lower_is_better);
  // The precision the verdicts' own messages give (279.0 GB/s beside 278.97 for one case read as
  // two figures; an audit), and a collective over a node's GPUs counted by nodes, not "pairs".
  const int d = g.lower_is_better ? 2 : 1;
  const std::string members = p.src_pci == "all"
                                  ? count_of(g.nodes, "node")
                                  : count_of(g.pairs, "pair") + " on " + count_of(g.nodes, "node");
  Flag f;
  f.code = "fleet-outlier";
  f.method = g.method;
  // A staged copy never crosses the pair's link: the outlier named NV18 beside a host-memory
  // figure, and a technician would have worked on the NVLink (an audit).
  const std::string route = g.through_host ? " " + host_path_suspect(p.link_label) : "";
  // Both directions' sum, as the run's own flags say it (690 GB/s read as one direction).
  const std::string where = g.both_ways && p.src_pci != "all" && !p.one_gpu
                                ? "both ways together between " + p.src_pci + " and " + p.dst_pci
                                : p.name();
  f.message = g.method + " " + where + route + " " + format_fixed(pos.value, d) + unit + " at " +
              format_size(g.bytes) + " is " + format_fixed(pos.ratio, 3) + " of the fleet median " +
              format_fixed(g.median, d) + unit + " (" + g.gpu_model + ", " + g.link + ", " +
              members + "; tolerance " + format_fixed(100 * tolerance, 0) + "%)";
  f.evidence = {{"value", pos.value},     {"fleet_median", g.median},
                {"ratio", pos.ratio},     {"tolerance", tolerance},
                {"bytes", g.bytes},       {"gpu_model", g.gpu_model},
                {"link", g.link},         {"group_pairs", g.pairs},
                {"group_nodes", g.nodes}, {"fleet_p25", g.p25},
                {"fleet_p75", g.p75},     {"unit", fleet_unit(g.method, g.lower_is_better)}};
  return f;
}

void place_members(const FleetGroup& g, std::vector<Member>& members, double tolerance) {
  for (auto& m : members) {
    if (!m.at_size) {
      if (m.pair->left_out.count({g.method, g.bytes})) {
        if (!m.pair->unsettled()) {
          m.node->unplaced_at_size[g.bytes].add(g.method);
        }
        continue;
      }
      m.node->short_of_size[g.bytes].add(g.method);
      continue;
    }
    FleetPosition pos{g.method,          g.bytes, m.at_size->value, g.median, 0,
                      g.lower_is_better, false,   g.judged};
    if (g.median > 0) pos.ratio = pos.value / g.median;
    const double worse = g.lower_is_better ? pos.ratio - 1 : 1 - pos.ratio;
    // Under the ratio's last digit shown is no outlier, whatever the tolerance: at 0, identical
    // nodes were flagged "1.000 of the fleet median" (an audit).
    pos.outlier = g.judged && worse > tolerance && worse >= 0.0005;
    if (pos.outlier) {
      m.pair->flags.push_back(outlier_flag(g, *m.pair, pos, tolerance));
      // The fleet flagged it: a CSV row read "outlier 1, fleet-outlier, pair_state not-counted"
      // (its run had no bar for it) or "pass" (an audit).
      if (m.pair->state == "pass" || m.pair->state == "not-counted") m.pair->state = "flagged";
    }
    m.pair->positions.push_back(pos);
  }
}

std::vector<FleetGroup> place_in_fleet(std::vector<FleetNode>& nodes, double tolerance) {
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<Member>> by_group;
  for (auto& n : nodes) {
    for (auto& p : n.pairs) {
      std::set<std::string> methods;
      for (const auto& x : p.measurements) methods.insert(x.method);
      for (const auto& m : methods) by_group[{m, p.gpu_model, p.group_of(m)}].push_back({&n, &p});
    }
  }
  std::vector<FleetGroup> groups;
  for (auto& [key, members] : by_group) {
    const std::string& method = std::get<0>(key);
    const FleetGroup g = summarize_group(method, group_size(method, members), members);
    place_members(g, members, tolerance);
    groups.push_back(g);
  }
  return groups;
}

std::vector<VersionSpread> version_spreads(const std::vector<FleetNode>& nodes) {
  std::vector<VersionSpread> out{{"driver", {}}, {"CUDA", {}}, {"NCCL", {}}};
  for (const auto& n : nodes) {
    // A node read that recorded no version is counted as unknown: the counts add up to the nodes.
    if (n.file.empty()) continue;
    auto name = [](const std::string& v) { return v.empty() ? std::string("unknown") : v; };
    out[0].nodes_by_value[name(n.versions.driver)].push_back(n.host);
    out[1].nodes_by_value[name(n.versions.cuda)].push_back(n.host);
    out[2].nodes_by_value[name(n.versions.nccl)].push_back(n.host);
  }
  return out;
}

// "a, b, c and 4 more"
std::string some_of(const std::vector<std::string>& names, std::size_t shown = 6) {
  if (names.size() <= shown) return join(names, ", ");
  return join(std::vector<std::string>(names.begin(), names.begin() + shown), ", ") + " and " +
         std::to_string(names.size() - shown) + " more";
}

// What a node left out of its own GPUs: GPUs its topology lists that no rank ran on (--np
// smaller than the node, a GPU lost), pairs a pair method did not answer for (--pairs).
void add_own_coverage_problems(FleetNode& n) {
  if (n.gpus_listed > n.gpus_run && n.gpus_run > 0) {
    n.problems.push_back("ran on " + std::to_string(n.gpus_run) + " of the " +
                         std::to_string(n.gpus_listed) + " GPUs its topology lists");
  }
  if (!n.pairs_short.empty()) {
    n.problems.push_back(
        "measured fewer pairs than its " + std::to_string(n.gpus_run) +
        " GPUs make: " + some_of(n.pairs_short, 4) +
        (n.pairs_spec.empty() || n.pairs_spec == "all" ? "" : " (--pairs " + n.pairs_spec + ")"));
  }
}

// A node that ran fewer methods than at least half of the fleet's nodes of its GPU model, or
// fewer GPUs or pairs than it has, has not shown what they showed: it passed before on whatever
// it measured (a node run with one method of twelve, or on 2 of its 4 GPUs, passed beside nodes
// that ran everything; audits). At least half, not any: one node of three run with an extra
// method leaves the others as they were; in a tie the nodes that ran less are incomplete.
void add_coverage_problems(std::vector<FleetNode>& nodes) {
  std::map<std::string, std::map<std::string, int>> ran;  // model -> method -> nodes
  std::map<std::string, int> of_model;                    // model -> nodes
  for (const auto& n : nodes) {
    for (const auto& model : n.gpu_models) {
      for (const auto& m : n.methods_run) ++ran[model][m];
      ++of_model[model];
    }
  }
  for (auto& n : nodes) {
    if (n.file.empty() || !n.problems.empty()) continue;  // missing, unreadable, cut short: said
    add_own_coverage_problems(n);
    std::set<std::string> missing;
    std::string model_of_missing;
    int fewest = 0;  // the fewest nodes that ran one of the missing methods
    for (const auto& model : n.gpu_models) {
      for (const auto& [m, count] : ran[model]) {
        if (2 * count < of_model[model] || n.methods_run.count(m) || !missing.insert(m).second)
          continue;
        // The count and the model named together are one model's (a mixed node has several).
        if (model_of_missing.empty() || count < fewest) {
          fewest = count;
          model_of_missing = model;
        }
      }
    }
    if (missing.empty()) continue;
    n.problems.push_back("did not run " + some_of({missing.begin(), missing.end()}) + " (" +
                         std::to_string(missing.size()) + " method" +
                         (missing.size() == 1 ? "" : "s") + " run on at least " +
                         std::to_string(fewest) + " of the fleet's " +
                         std::to_string(of_model[model_of_missing]) + " " + model_of_missing +
                         " nodes): run the node as they were run");
  }
}

void set_state(FleetNode& n) {
  n.worst_ratio = 1;
  bool incomplete = !n.problems.empty();
  for (const auto& p : n.pairs) {
    incomplete = incomplete || p.unsettled();
    if (p.known_good_ratio > 0) {
      n.worst_ratio = std::min(n.worst_ratio, p.known_good_ratio);
      n.has_ratio = true;
    }
    for (const auto& pos : p.positions) {
      if (!pos.group_judged) continue;  // a group too small to judge gives no ratio (review)
      n.worst_ratio = std::min(n.worst_ratio, pos.goodness());
      n.has_ratio = true;
    }
  }
  if (n.state == NodeState::kMissing) return;
  // A node none of whose pairs was judged, or placed in a group large enough to judge it (two
  // ranks on one GPU: not a link; a -z node alone, launch-bound throughout), has shown nothing
  // about its links; it passed before (audits: a one-GPU node, a lone -z node).
  const auto judged_beside_fleet = [](const FleetPair& p) {
    return std::any_of(p.positions.begin(), p.positions.end(),
                       [](const FleetPosition& x) { return x.group_judged; });
  };
  const bool shown = std::any_of(n.pairs.begin(), n.pairs.end(), [&](const FleetPair& p) {
    return p.state != "not-counted" || judged_beside_fleet(p);
  });
  const bool unreadable = n.pairs.empty() && !n.problems.empty();  // its reason says it all
  if (!shown && !n.file.empty() && !unreadable) {
    const bool placed = std::any_of(n.pairs.begin(), n.pairs.end(),
                                    [](const FleetPair& p) { return !p.positions.empty(); });
    n.problems.push_back("nothing on this node was judged or set beside the fleet (" +
                         std::to_string(n.pairs.size()) +
                         " pairs, each not a link, not judged or not applicable" +
                         (placed ? "; its figures' fleet groups hold fewer than " +
                                       std::to_string(kFleetMinGroupPairs) + " pairs"
                                 : std::string()) +
                         ")");
    incomplete = true;
  }
  if (n.flag_count() > 0) {
    n.state = NodeState::kFlagged;
  } else {
    n.state = incomplete ? NodeState::kIncomplete : NodeState::kPass;
  }
}

// "12 cases not measured at the fleet's size 1 GiB (ce-bidir, ce-read, ...; its largest: 64 MiB)"
void say_sizes_not_measured(FleetNode& n) {
  std::uint64_t largest = 0;
  for (const auto& p : n.pairs) {
    for (const auto& m : p.measurements) largest = std::max(largest, m.bytes);
  }
  for (const auto& [bytes, at] : n.short_of_size) {
    n.problems.push_back(count_of(at.cases, "case") + " not measured at the fleet's size " +
                         format_size(bytes) + " (" +
                         some_of({at.methods.begin(), at.methods.end()}) +
                         (largest > 0 && largest < bytes ? "; its largest: " + format_size(largest)
                                                         : std::string()) +
                         ")");
  }
  for (const auto& [bytes, at] : n.unplaced_at_size) {
    n.problems.push_back(count_of(at.cases, "case") + " at the fleet's size " + format_size(bytes) +
                         " (" + some_of({at.methods.begin(), at.methods.end()}) +
                         ") measured beside another job, with clocks held or with launch gaps: "
                         "not the link's figure, measure again");
  }
}

}  // namespace

ResultFiles collect_result_files(const std::vector<std::string>& paths) {
  ResultFiles out;
  std::set<std::pair<dev_t, ino_t>> searched;
  for (const auto& p : paths) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) {
      throw UsageError("fleet: '" + quoted_path(p) + "' does not exist (" + std::strerror(errno) +
                       "); give results files or folders");
    }
    // A device or a FIFO holds no run: it was counted as an unreadable node, exit 1 (an audit).
    if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
      throw UsageError("fleet: '" + quoted_path(p) +
                       "' is not a results file or a folder (a device, FIFO or socket); give "
                       "results files or folders");
    }
    if (!S_ISDIR(st.st_mode)) {
      out.files.push_back(p);
    } else if (searched.insert({st.st_dev, st.st_ino}).second) {
      add_folder(p, 0, searched, out);
    }
  }
  // One file reached twice (given and in a folder given, or through a link) is one run: it was
  // counted as a rerun of its own host (an audit).
  std::set<std::pair<dev_t, ino_t>> seen;
  std::vector<std::string> once;
  for (auto& f : out.files) {
    struct stat st {};
    if (::stat(f.c_str(), &st) == 0 && !seen.insert({st.st_dev, st.st_ino}).second) continue;
    once.push_back(std::move(f));
  }
  out.files = std::move(once);
  return out;
}

std::vector<std::string> load_host_list(const std::string& path) {
  const std::string text = read_input_file(path, InputKind::kHosts);
  const std::string_view bom = "\xEF\xBB\xBF";  // editors on Windows start files with it
  std::size_t pos = text.compare(0, bom.size(), bom) == 0 ? bom.size() : 0;
  std::vector<std::string> hosts;
  for (std::size_t line = 1; pos < text.size(); ++line) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view name(text.data() + pos, end - pos);
    name = name.substr(0, name.find('#'));
    pos = end + 1;
    const auto b = name.find_first_not_of(" \t\r");
    if (b == std::string_view::npos) continue;
    name = name.substr(b, name.find_last_not_of(" \t\r") + 1 - b);
    const auto refuse = [&](const std::string& why) {
      throw InputError(quoted_path(path), "",
                       "--hosts file, line " + std::to_string(line) + ": " + why);
    };
    if (name.size() > kMaxHostNameBytes) {
      refuse("a host name of " + std::to_string(name.size()) + " bytes; at most " +
             std::to_string(kMaxHostNameBytes));
    }
    if (std::any_of(name.begin(), name.end(),
                    [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; })) {
      refuse("'" + sanitize_for_terminal(name) + "' holds control characters");
    }
    // "n0 n1" was read as one host that no run names: two hosts on a line, or a typo.
    if (name.find_first_of(" \t,") != std::string_view::npos)
      refuse("'" + std::string(name) + "' holds a space or comma; one host name per line");
    if (hosts.size() == kMaxHosts) refuse("more than " + std::to_string(kMaxHosts) + " host names");
    hosts.emplace_back(name);
  }
  if (hosts.empty()) {
    throw InputError(quoted_path(path), "",
                     "the --hosts file names no host (empty, or only comments)");
  }
  return hosts;
}

double quantile(const std::vector<double>& sorted, double q) {
  const double at = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(at));
  const auto hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (at - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

// One GPU is in one node: nodes that name the same UUID are one machine's results under several
// host names (a copied file, a misnamed host, PEERBENCH_HOST_ID). Three copies of one run had
// passed as three nodes (an audit). A note, not a failure: a fleet simulated on one machine with
// PEERBENCH_HOST_ID is a way to test the fleet's own workings.
int note_shared_gpus(std::vector<FleetNode>& nodes, std::vector<std::string>& notes) {
  std::map<std::string, std::set<std::string>> hosts_of;
  for (const auto& n : nodes)
    for (const auto& u : n.gpu_uuids) hosts_of[u].insert(n.host);
  std::map<std::set<std::string>, std::vector<std::string>> uuids_of;
  for (const auto& [uuid, hosts] : hosts_of)
    if (hosts.size() > 1) uuids_of[hosts].push_back(uuid);
  std::set<std::string> sharing;
  for (const auto& [hosts, uuids] : uuids_of) {
    sharing.insert(hosts.begin(), hosts.end());
    for (auto& n : nodes) {
      if (!hosts.count(n.host)) continue;
      for (const auto& h : hosts)
        if (h != n.host) n.shares_gpus_with.insert(h);
    }
    notes.push_back(some_of({hosts.begin(), hosts.end()}) + " name the same GPU" +
                    (uuids.size() > 1 ? "s" : "") + " (" + some_of(uuids) +
                    "): one GPU is in one node, so these are one machine's results under several "
                    "host names (a copied file, a misnamed host, or PEERBENCH_HOST_ID), not "
                    "independent nodes");
  }
  return static_cast<int>(sharing.size());
}

FleetReport assemble_fleet(std::vector<FleetNode> nodes, const std::vector<std::string>& hosts,
                           bool hosts_given, double tolerance) {
  FleetReport r;
  r.outlier_tolerance = tolerance;
  r.hosts_given = hosts_given;
  r.nodes = resolve_duplicates(std::move(nodes), r.notes, r.earlier_runs);
  if (hosts_given) add_expected_hosts(r.nodes, hosts, r.notes);
  r.nodes_sharing_gpus = note_shared_gpus(r.nodes, r.notes);
  r.groups = place_in_fleet(r.nodes, tolerance);
  place_short_members(r);
  for (auto& n : r.nodes) say_sizes_not_measured(n);
  add_coverage_problems(r.nodes);
  r.versions = version_spreads(r.nodes);
  r.version_gaps = version_gaps(r.nodes, r.groups, r.versions, tolerance);
  for (auto& n : r.nodes) set_state(n);
  // Flagged nodes with evidence against their hardware first: wrong data outranks a slow figure
  // (a data-corruption node was listed third, after a slow and a misconfigured one; an audit).
  std::stable_sort(r.nodes.begin(), r.nodes.end(), [](const FleetNode& a, const FleetNode& b) {
    const bool ha = !a.has_flag_of(FlagKind::kHardware), hb = !b.has_flag_of(FlagKind::kHardware);
    return std::tie(a.state, ha, a.worst_ratio, a.host) <
           std::tie(b.state, hb, b.worst_ratio, b.host);
  });
  return r;
}

// The nodes a given site baseline judged no figure of, in words.
std::string baseline_unused_text(const FleetReport& r, const FleetExpectations& e) {
  std::vector<std::string> hosts;
  int read = 0;
  for (const auto& n : r.nodes) {
    if (!n.baseline_judged) continue;
    ++read;
    if (!*n.baseline_judged) hosts.push_back(n.host);
  }
  if (hosts.empty()) return "";
  return "the site baseline (" + e.source + ") judged no figure on " +
         std::to_string(hosts.size()) + " of " + std::to_string(read) + " nodes (" +
         some_of(hosts) + "): its entries are for " + baseline_scope(e.verdicts.baseline);
}

FleetReport build_fleet(const FleetOptions& o, const std::vector<MethodInfo>& catalog) {
  const FleetExpectations e = load_fleet_expectations(o.expect_path, catalog);
  const auto hosts =
      o.hosts_file.empty() ? std::vector<std::string>{} : load_host_list(o.hosts_file);
  const ResultFiles found = collect_result_files(o.paths);
  if (found.files.empty() && found.unreadable.empty()) {
    throw UsageError("fleet: no *.json results files in the paths given");
  }
  std::vector<FleetNode> nodes;
  std::vector<std::string> skipped;
  for (const auto& [path, why] : found.unreadable) nodes.push_back(unreadable_node(path, why));
  for (const auto& f : found.files) {
    try {
      auto from_file = read_fleet_nodes(f, e);
      if (from_file.empty()) nodes.push_back(unreadable_node(f, "the run names no host"));
      for (auto& n : from_file) nodes.push_back(std::move(n));
    } catch (const std::exception& err) {
      const std::string other = other_peerbench_file(f);
      if (other.empty()) {
        nodes.push_back(unreadable_node(f, err.what()));
      } else {
        skipped.push_back(f + " is " + other + ", not a run: not counted");
      }
    }
  }
  // Only files that are not runs: nothing to pass (it read "PASS: all 0 nodes pass"; a review).
  if (nodes.empty()) {
    throw UsageError("fleet: no runs among the " + std::to_string(found.files.size()) +
                     " *.json files in the paths given (" + skipped.front() + ")");
  }
  FleetReport r =
      assemble_fleet(std::move(nodes), hosts, !o.hosts_file.empty(), e.outlier_tolerance);
  r.notes.insert(r.notes.end(), skipped.begin(), skipped.end());
  r.expectations_source = e.source;
  r.baseline_unused = baseline_unused_text(r, e);
  r.inputs = found.files;
  for (const auto* f : {&o.hosts_file, &o.expect_path}) {
    if (!f->empty()) r.inputs.push_back(*f);
  }
  return r;
}

int fleet_exit_code(const FleetReport& r) {
  return r.count(NodeState::kPass) == static_cast<int>(r.nodes.size()) ? kExitOk : kExitFlagged;
}

}  // namespace peerbench
