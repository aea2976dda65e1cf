#pragma once
// Bounded reading of the small files the kernel publishes (sysfs, procfs, /.dockerenv, ...) under
// a root directory: "/" on a node, a fixture tree in the tests (tests/data/sysroot/). Every read
// is capped (kMaxSysFileBytes, kMaxSysDirEntries) and never blocks: a FIFO or device is not
// read. Nothing here throws; a file that cannot be read is nullopt.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace peerbench {

class SysRoot {
 public:
  explicit SysRoot(std::string root = "/");

  const std::string& root() const { return root_; }
  // ROOT joined with an absolute path of the node ("/proc/cmdline").
  std::string path(const std::string& node_path) const;

  // The file's bytes, at most `max` (default kMaxSysFileBytes); nullopt when it is missing, not
  // a regular file, or unreadable.
  std::optional<std::string> read(const std::string& node_path, std::size_t max = 0) const;
  // read() with surrounding white space removed.
  std::optional<std::string> read_line(const std::string& node_path) const;
  // The file's size as stat says (sysfs gives a `config` file its full size even where an
  // unprivileged read returns only 64 bytes).
  std::optional<std::uint64_t> size(const std::string& node_path) const;
  bool exists(const std::string& node_path) const;
  // A symbolic link's target as written; nullopt when the path is no link.
  std::optional<std::string> link_target(const std::string& node_path) const;
  // The node path a link resolves to, following relative links inside ROOT (at most 16 hops, each
  // step kept inside ROOT); nullopt when it leads nowhere.
  std::optional<std::string> resolve(const std::string& node_path) const;
  // Names in a folder, sorted, at most kMaxSysDirEntries ("." and ".." left out).
  std::vector<std::string> list(const std::string& node_path) const;
  // statvfs of the folder: total and free bytes.
  struct Space {
    std::uint64_t total = 0;
    std::uint64_t free = 0;
  };
  std::optional<Space> space(const std::string& node_path) const;

 private:
  std::string root_;  // without a trailing '/', "" for "/"
};

// "/a/b/../c/./d" -> "/a/c/d"; never above "/".
std::string normalize_node_path(const std::string& path);

}  // namespace peerbench
