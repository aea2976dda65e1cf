// Finding a fleet's results files in the paths given (folders searched within bounds, each file
// once), reading them, and what to make of a file that is not a run.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/fleet/fleet_adapter.h"
#include "core/fleet/fleet_assembly.h"
#include "core/import/import.h"
#include "core/model/json_in.h"
#include "core/model/schema.h"
#include "core/platform/input_file.h"

namespace peerbench {
namespace {

constexpr const char* kTopologyFile = "a topology file (topo --json)";
constexpr const char* kSiteBaseline = "a site baseline (--write-baseline; give it as --expect)";

bool ends_with_json(const std::string& name) {
  return name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0;
}

// Another tool's output that reads as a run (nccl-tests, nvbandwidth, p2pBandwidthLatencyTest),
// told by its content whatever its name: `fleet logs/` over a folder of nccl-tests logs.
bool imported_run(const std::string& path) {
  switch (sniff_file(path)) {
    case ImportFormat::kNcclTestsText:
    case ImportFormat::kNcclTestsJson:
    case ImportFormat::kNvbandwidthText:
    case ImportFormat::kNvbandwidthJson:
    case ImportFormat::kP2pBandwidthLatency:
      return true;
    default:
      return false;
  }
}

// Searches folders for *.json (and other tools' outputs, by content) below them, `depth` levels
// under a path given. Folders are told apart by device and inode, so a symbolic link back up the
// tree (or a second link to one folder) is searched once, never in a loop; below kMaxFolderDepth
// nothing is searched. Names starting with '.' are skipped (the atomic writer's temporary files
// among them). A folder or entry that cannot be read is listed in `out.unreadable` and the rest is
// searched. Every name read counts against `max_entries`, for all the paths given together: past it
// the walk is refused, since one that has not ended by then (a link to /, /proc, /sys) would go on
// for minutes.
class FolderWalk {
 public:
  FolderWalk(ResultFiles& out, std::size_t max_entries) : out_(out), max_entries_(max_entries) {}

  // A path given: searched unless it was searched already (through a link, or given twice).
  void search(const std::string& root, const struct stat& st) {
    root_ = root;
    if (searched_.insert({st.st_dev, st.st_ino}).second) add_folder(root, 0);
  }

 private:
  std::vector<std::string> read_names(const std::string& dir) {
    std::vector<std::string> names;
    DIR* d = ::opendir(dir.c_str());
    if (!d) {
      out_.unreadable.push_back(
          {dir, std::string("folder cannot be read: ") + std::strerror(errno)});
      return names;
    }
    while (const dirent* e = ::readdir(d)) {
      const std::string_view n = e->d_name;
      if (n == "." || n == "..") continue;
      if (++entries_ > max_entries_) {
        ::closedir(d);
        refuse_too_many();
      }
      if (n[0] != '.') names.emplace_back(n);
    }
    ::closedir(d);
    std::sort(names.begin(), names.end());
    return names;
  }

  [[noreturn]] void refuse_too_many() const {
    throw UsageError("fleet: the folders searched under '" + quoted_path(root_) +
                     "' hold more than " + std::to_string(max_entries_) +
                     " entries (files and folders, links followed, up to " +
                     std::to_string(kMaxFolderDepth) + " folders deep); fleet looks at " +
                     std::to_string(max_entries_) +
                     " at most: give the folders that hold the results files, or the files");
  }

  void add_folder(const std::string& dir, int depth) {
    for (const auto& n : read_names(dir)) {
      const std::string path = (dir.back() == '/' ? dir : dir + "/") + n;  // "a/" + n, not "a//"
      struct stat st {};
      if (::stat(path.c_str(), &st) != 0) {
        // A results file that cannot be looked at (a dangling link, no permission) is listed.
        if (ends_with_json(n)) out_.files.push_back(path);
        continue;
      }
      if (!S_ISDIR(st.st_mode)) {
        // Not only regular files: the reader refuses a FIFO or device with its reason.
        // Other tools' outputs are never empty; /proc's files all say 0 bytes, and reading each
        // of them took the bounded walk of /proc/self past 10 s.
        if (ends_with_json(n) || (S_ISREG(st.st_mode) && st.st_size > 0 && imported_run(path)))
          out_.files.push_back(path);
      } else if (depth + 1 > kMaxFolderDepth) {
        out_.unreadable.push_back(
            {path, "not searched: deeper than " + std::to_string(kMaxFolderDepth) + " folders"});
      } else if (searched_.insert({st.st_dev, st.st_ino}).second) {
        add_folder(path, depth + 1);
      }
    }
  }

  ResultFiles& out_;
  std::size_t max_entries_;
  std::size_t entries_ = 0;
  std::string root_;
  std::set<std::pair<dev_t, ino_t>> searched_;
};

std::string file_stem(const std::string& path) {
  const auto slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  return ends_with_json(name) ? name.substr(0, name.size() - 5) : name;
}

}  // namespace

namespace fleet_detail {

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
std::string other_peerbench_file(const std::string& path, const std::exception& why) {
  const std::string what = not_a_run(path, why);
  return what == kTopologyFile || what == kSiteBaseline ? what : "";
}

std::vector<FleetNode> read_result_files(const ResultFiles& found, const FleetExpectations& e,
                                         std::vector<std::string>& skipped) {
  std::vector<FleetNode> nodes;
  for (const auto& [path, why] : found.unreadable) nodes.push_back(unreadable_node(path, why));
  for (const auto& f : found.files) {
    try {
      auto from_file = read_fleet_nodes(f, e);
      if (from_file.empty()) nodes.push_back(unreadable_node(f, "the run names no host"));
      for (auto& n : from_file) nodes.push_back(std::move(n));
    } catch (const std::exception& err) {
      // Named, a file that is no run is a mistake in the command: noted and left out, it let a
      // fleet pass on the one node left (`fleet topo.json node-b.json`; issue 42).
      if (found.named.count(f)) {
        const std::string what = not_a_run(f, err);
        if (!what.empty()) {
          throw UsageError("fleet: '" + quoted_path(f) + "' is " + what +
                           ", not a run; give results files (run -J) or folders of them");
        }
        nodes.push_back(unreadable_node(f, err.what()));
        continue;
      }
      const std::string other = other_peerbench_file(f, err);
      if (other.empty()) {
        nodes.push_back(unreadable_node(f, err.what()));
      } else {
        skipped.push_back(f + " is " + other + ", not a run: not counted");
      }
    }
  }
  return nodes;
}

}  // namespace fleet_detail

std::string not_a_run(const std::string& path, const std::exception& why) {
  // The reader reads the top level, the version and the kind before any field of a run: a
  // refusal of anything else is of a run's field, or of the file or its JSON, which reading it
  // again would only repeat (a 200 MB file, a second time).
  const auto* refused = dynamic_cast<const InputError*>(&why);
  if (!refused || (refused->field() != "(top level)" && refused->field() != "kind" &&
                   refused->field() != "schema_version"))
    return "";
  try {
    const nlohmann::json j = load_json_file(path);
    if (!j.is_object()) return std::string("a JSON ") + j.type_name();
    const auto kind = j.find("kind");
    if (kind != j.end() && *kind == kTopologyKind) return kTopologyFile;
    if (kind != j.end() && kind->is_string() && *kind != kRunKind)
      return "a JSON file of kind '" + sanitize_for_terminal(kind->get<std::string>()) + "'";
    if (kind == j.end() && !j.contains("schema_version")) {
      if (j.contains("baseline") && j["baseline"].is_object()) return kSiteBaseline;
      return "a JSON object with neither 'kind' nor 'schema_version'";
    }
  } catch (const std::exception&) {
  }
  return "";
}

ResultFiles collect_result_files(const std::vector<std::string>& paths, std::size_t max_entries) {
  ResultFiles out;
  FolderWalk walk(out, max_entries);
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
    if (S_ISDIR(st.st_mode)) {
      walk.search(p, st);
    } else {
      out.files.push_back(p);
      out.named.insert(p);
    }
  }
  // One file reached twice (given and in a folder given, or through a link) is one run: it was
  // counted as a rerun of its own host (an audit). Named once, it counts as named.
  std::map<std::pair<dev_t, ino_t>, std::size_t> seen;
  std::vector<std::string> once;
  for (auto& f : out.files) {
    struct stat st {};
    if (::stat(f.c_str(), &st) == 0) {
      const auto [at, first] = seen.insert({{st.st_dev, st.st_ino}, once.size()});
      if (!first) {
        if (out.named.count(f)) out.named.insert(once[at->second]);
        continue;
      }
    }
    once.push_back(std::move(f));
  }
  out.files = std::move(once);
  return out;
}

}  // namespace peerbench
