#include "core/platform/sys_root.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <memory>

#include "core/base/text.h"
#include "core/platform/input_limits.h"

namespace peerbench {

std::string normalize_node_path(const std::string& path) {
  std::vector<std::string> parts;
  for (const auto& p : split(path, '/')) {
    if (p.empty() || p == ".") continue;
    if (p == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(p);
  }
  std::string out;
  for (const auto& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

SysRoot::SysRoot(std::string root) : root_(std::move(root)) {
  while (!root_.empty() && root_.back() == '/') root_.pop_back();
}

std::string SysRoot::path(const std::string& node_path) const {
  return root_ + normalize_node_path(node_path);
}

std::optional<std::string> SysRoot::read(const std::string& node_path, std::size_t max) const {
  if (max == 0) max = kMaxSysFileBytes;
  const int fd = ::open(path(node_path).c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::unique_ptr<int, void (*)(int*)> closer(new int(fd), [](int* f) {
    ::close(*f);
    delete f;
  });
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  std::string out;
  char buf[4096];
  while (out.size() < max) {
    const ssize_t n = ::read(fd, buf, std::min(sizeof(buf), max - out.size()));
    if (n < 0) return out.empty() ? std::nullopt : std::optional<std::string>(out);
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

std::optional<std::string> SysRoot::read_line(const std::string& node_path) const {
  auto text = read(node_path);
  if (!text) return std::nullopt;
  const auto b = text->find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return std::string();
  return text->substr(b, text->find_last_not_of(" \t\r\n") - b + 1);
}

std::optional<std::uint64_t> SysRoot::size(const std::string& node_path) const {
  struct stat st {};
  if (::stat(path(node_path).c_str(), &st) != 0) return std::nullopt;
  return static_cast<std::uint64_t>(st.st_size);
}

bool SysRoot::exists(const std::string& node_path) const {
  struct stat st {};
  return ::lstat(path(node_path).c_str(), &st) == 0;
}

std::optional<std::string> SysRoot::link_target(const std::string& node_path) const {
  char buf[4096];
  const ssize_t n = ::readlink(path(node_path).c_str(), buf, sizeof(buf));
  if (n <= 0 || static_cast<std::size_t>(n) >= sizeof(buf)) return std::nullopt;
  return std::string(buf, static_cast<std::size_t>(n));
}

std::optional<std::string> SysRoot::resolve(const std::string& node_path) const {
  // Resolved component by component, so that links inside the tree (sysfs' ../../devices/...)
  // stay inside ROOT and an absolute link is read against ROOT, not the machine's "/".
  std::vector<std::string> todo = split(normalize_node_path(node_path), '/');
  std::string done;  // the node path resolved so far; "" is "/"
  int hops = 0;
  std::size_t i = 0;
  while (i < todo.size()) {
    const std::string part = todo[i++];
    if (part.empty()) continue;
    const std::string next = normalize_node_path(done + "/" + part);
    const auto target = link_target(next);
    if (!target) {
      done = next;
      continue;
    }
    if (++hops > 16) return std::nullopt;
    // The link's target, then the components after the link, resolved from the top again.
    const std::string base = target->front() == '/' ? "" : done;
    auto rest = split(normalize_node_path(base + "/" + *target), '/');
    rest.insert(rest.end(), todo.begin() + static_cast<long>(i), todo.end());
    todo = std::move(rest);
    i = 0;
    done.clear();
  }
  if (done.empty()) done = "/";
  if (!exists(done)) return std::nullopt;
  return done;
}

std::vector<std::string> SysRoot::list(const std::string& node_path) const {
  std::vector<std::string> out;
  DIR* d = ::opendir(path(node_path).c_str());
  if (!d) return out;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    out.push_back(name);
    if (out.size() >= kMaxSysDirEntries) break;
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<SysRoot::Space> SysRoot::space(const std::string& node_path) const {
  struct statvfs s {};
  if (::statvfs(path(node_path).c_str(), &s) != 0) return std::nullopt;
  const std::uint64_t unit = s.f_frsize ? s.f_frsize : s.f_bsize;
  return Space{static_cast<std::uint64_t>(s.f_blocks) * unit,
               static_cast<std::uint64_t>(s.f_bavail) * unit};
}

}  // namespace peerbench
