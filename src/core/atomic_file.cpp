#include "core/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace peerbench {
namespace {

std::string parent_dir(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string sys_error(int err) {
  return std::strerror(err);
}

// mkdir -p; returns "" on success.
std::string make_dirs(const std::string& dir) {
  if (dir.empty() || dir == "." || dir == "/") return "";
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) {
    return S_ISDIR(st.st_mode) ? "" : dir + " is not a folder";
  }
  const std::string up = make_dirs(parent_dir(dir));
  if (!up.empty()) return up;
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return "cannot create folder " + dir + ": " + sys_error(errno);
  }
  return "";
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot write " + tmp + ": " + sys_error(errno));
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw std::runtime_error("cannot write " + tmp + ": " + sys_error(err));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    throw std::runtime_error("cannot flush " + tmp + ": " + sys_error(err));
  }
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error("cannot close " + tmp + ": " + sys_error(err));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error("cannot rename " + tmp + " to " + path + ": " + sys_error(err));
  }
}

std::string check_writable(const std::string& path, bool create_dirs) {
  if (path.empty()) return "empty path";
  if (path.back() == '/') return path + " is a folder; give a file name";
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return path + " is a folder; give a file name";
  }
  const std::string dir = parent_dir(path);
  if (create_dirs) {
    const std::string err = make_dirs(dir);
    if (!err.empty()) return err;
  } else if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return "folder " + dir + " does not exist";
  }
  const std::string probe = path + ".probe." + std::to_string(::getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return "cannot create files in " + dir + ": " + sys_error(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return "";
}

}  // namespace peerbench
