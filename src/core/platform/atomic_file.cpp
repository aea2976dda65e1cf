#include "core/platform/atomic_file.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace peerbench {
namespace {

std::string parent_dir(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string sys_error(int err) {
  return std::strerror(err);
}

// mkdir -p, recording the folders it made (outermost first); returns "" on success.
std::string make_dirs(const std::string& dir, std::vector<std::string>* created) {
  if (dir.empty() || dir == "." || dir == "/") return "";
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) {
    return S_ISDIR(st.st_mode) ? "" : dir + " is not a folder";
  }
  const std::string up = make_dirs(parent_dir(dir), created);
  if (!up.empty()) return up;
  if (::mkdir(dir.c_str(), 0755) != 0) {
    if (errno == EEXIST) return "";
    return "cannot create folder " + dir + ": " + sys_error(errno);
  }
  if (created) created->push_back(dir);
  return "";
}

void remove_dirs(const std::vector<std::string>& created) {
  for (auto it = created.rbegin(); it != created.rend(); ++it) ::rmdir(it->c_str());
}

// Why an existing `path` must not be replaced ("" when absent or a regular file). `mode` gets
// the permission bits of an existing regular file.
std::string refuse_target(const std::string& path, mode_t* mode) {
  if (path.empty()) return "empty path";
  if (path.back() == '/') return path + " is a folder; give a file name";
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return "";
    return sys_error(errno);
  }
  if (S_ISLNK(st.st_mode)) {
    return path +
           " is a symbolic link; peerbench does not write through links (give the file "
           "it points to)";
  }
  if (S_ISDIR(st.st_mode)) return path + " is a folder; give a file name";
  if (!S_ISREG(st.st_mode)) {
    return path +
           " exists and is not a regular file (a device, FIFO or socket); peerbench only "
           "replaces regular files";
  }
  if (mode) *mode = st.st_mode & 07777;
  return "";
}

// The process umask, read without changing it (umask(2) would race with other threads).
mode_t current_umask() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("Umask:", 0) == 0)
      return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
  }
  return 022;
}

// A temporary file beside `path`, created exclusively under an unpredictable name: "." + the
// target's name + ".XXXXXX", the name cut so that the whole fits in NAME_MAX (255 bytes) when the
// target's own name is close to it.
int create_temporary(const std::string& path, std::string* tmp) {
  constexpr std::size_t kNameMax = 255;
  constexpr std::size_t kAdded = 8;  // "." and ".XXXXXX"
  const std::string dir = parent_dir(path);
  const std::string base = base_name(path);
  std::string name = (dir == "/" ? "" : dir) + "/." + base.substr(0, kNameMax - kAdded) + ".XXXXXX";
  std::vector<char> buf(name.begin(), name.end());
  buf.push_back('\0');
  const int fd = ::mkostemp(buf.data(), O_CLOEXEC);
  if (fd >= 0) *tmp = buf.data();
  return fd;
}

bool write_all(int fd, const std::string& content) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& content, bool create_dirs) {
  auto fail = [&](const std::string& why) -> void {
    throw WriteError("cannot write " + path + ": " + why);
  };
  mode_t mode = 0644 & ~current_umask();
  const std::string refused = refuse_target(path, &mode);
  if (!refused.empty()) fail(refused);
  if (create_dirs) {
    const std::string why = make_dirs(parent_dir(path), nullptr);
    if (!why.empty()) fail(why);
  }
  std::string tmp;
  const int fd = create_temporary(path, &tmp);
  if (fd < 0) fail(sys_error(errno));
  int err = 0;
  if (!write_all(fd, content)) {
    err = errno;
  } else if (::fchmod(fd, mode) != 0 || ::fsync(fd) != 0) {
    err = errno;
  }
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    fail(sys_error(err));
  }
  // Make the rename itself durable; a folder that cannot be synced loses nothing already written.
  const int dfd = ::open(parent_dir(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

std::string check_writable(const std::string& path, bool create_dirs) {
  const std::string refused = refuse_target(path, nullptr);
  if (!refused.empty()) return refused;
  const std::string dir = parent_dir(path);
  std::vector<std::string> created;
  struct stat st {};
  if (create_dirs) {
    const std::string err = make_dirs(dir, &created);
    if (!err.empty()) {
      remove_dirs(created);
      return err;
    }
  } else if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return "folder " + dir + " does not exist";
  }
  std::string probe;
  const int fd = create_temporary(path, &probe);
  const int err = errno;
  if (fd >= 0) {
    ::close(fd);
    ::unlink(probe.c_str());
  }
  remove_dirs(created);
  if (fd < 0) return "cannot create files in " + dir + ": " + sys_error(err);
  return "";
}

}  // namespace peerbench
