// Finding a fleet's results files in the paths given (folders searched, each file once), and
// what to make of a file that is not a run.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "core/base/errors.h"
#include "core/fleet/fleet_assembly.h"
#include "core/model/json_in.h"
#include "core/model/schema.h"
#include "core/platform/input_file.h"

namespace peerbench {
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

}  // namespace fleet_detail

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

}  // namespace peerbench
