#include "core/platform/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/platform/input_limits.h"

namespace peerbench {
namespace {

constexpr std::uint64_t kMiB = 1ull << 20;

std::string mib(std::uint64_t bytes) {
  return bytes % kMiB == 0 ? std::to_string(bytes / kMiB) + " MiB"
                           : std::to_string(bytes) + " bytes";
}

// "its limit of 1 MiB (1048576 bytes)": the limit as docs/limits.md writes it, and in bytes, the
// unit the file's size is given in beside it.
std::string limit_text(std::uint64_t limit) {
  return "its limit of " + mib(limit) + " (" + std::to_string(limit) + " bytes)";
}

// What a file that is not regular is, in words.
std::string file_type(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

bool is_link(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

// Why stat() failed, in words (a link that points nowhere says so).
std::string stat_failure(const std::string& path, int err) {
  if (err == ENOENT && is_link(path)) return "is a symbolic link to nothing (dangling)";
  if (err == ELOOP) return "is a loop of symbolic links";
  if (err == ENOENT) return "does not exist";
  return std::string("cannot be read: ") + std::strerror(err);
}

}  // namespace

std::uint64_t input_size_limit(InputKind kind) {
  switch (kind) {
    case InputKind::kResults:
      return kMaxResultsFileBytes;
    case InputKind::kExpect:
      return kMaxExpectFileBytes;
    case InputKind::kHosts:
      return kMaxHostsFileBytes;
    case InputKind::kPlot:
      return kMaxPlotFileBytes;
    case InputKind::kNcclLog:
      return kMaxNcclLogBytes;
    case InputKind::kImport:
      return kMaxImportFileBytes;
  }
  return kMaxExpectFileBytes;
}

std::string input_label(InputKind kind) {
  switch (kind) {
    case InputKind::kResults:
      return "results file";
    case InputKind::kExpect:
      return "--expect file";
    case InputKind::kHosts:
      return "--hosts file";
    case InputKind::kPlot:
      return "--plots image";
    case InputKind::kNcclLog:
      return "NCCL log";
    case InputKind::kImport:
      return "imported output";
  }
  return "input file";
}

std::string quoted_path(const std::string& path) {
  return sanitize_for_terminal(path);
}

void InputFile::fail(const std::string& problem) const {
  throw InputError(quoted_path(path_), "", problem);
}

InputFile::InputFile(const std::string& path, InputKind kind) : path_(path), kind_(kind) {
  const std::string label = input_label(kind);
  if (path.empty()) throw InputError(label, "", "the path is empty; give a file");
  // stat first, so that a device is refused without being opened (opening some has effects).
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) fail(label + " " + stat_failure(path, errno));
  const std::string via = is_link(path) ? "a symbolic link to " : "";
  if (S_ISDIR(st.st_mode)) fail(label + " is " + via + "a folder; give a file");
  if (!S_ISREG(st.st_mode)) {
    fail(label + " is " + via + file_type(st.st_mode) + "; it must be a regular file");
  }
  // O_NONBLOCK: if a FIFO took the file's place since stat, open returns at once instead of
  // waiting for a writer, and the fstat below refuses it.
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd_ < 0) fail(label + " cannot be opened: " + std::strerror(errno));
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    fail(label + " changed while being opened and is no longer a regular file");
  }
  id_ = FileId{st.st_dev, st.st_ino};
  size_ = static_cast<std::uint64_t>(st.st_size);
  const std::uint64_t limit = input_size_limit(kind);
  if (size_ > limit) {
    ::close(fd_);
    fd_ = -1;
    fail(label + " is " + std::to_string(size_) + " bytes, over " + limit_text(limit));
  }
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::size_t InputFile::read_some(char* buf, std::size_t max) {
  for (;;) {
    const ssize_t n = ::read(fd_, buf, max);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(input_label(kind_) + " cannot be read: " + std::strerror(errno));
    read_ += static_cast<std::uint64_t>(n);
    if (read_ > input_size_limit(kind_)) {
      // Its size said less when it was opened: a file still being written, or one of /proc or
      // /sys, whose size says nothing of what they hold.
      fail(input_label(kind_) + " holds more than " + limit_text(input_size_limit(kind_)) + ": " +
           std::to_string(read_) + " bytes read, where its size was " + std::to_string(size_) +
           " bytes when opened (a file still being written, or one of /proc or /sys)");
    }
    return static_cast<std::size_t>(n);
  }
}

std::string InputFile::read_rest() {
  std::string text;
  if (size_ > read_) text.reserve(static_cast<std::size_t>(size_ - read_));
  char buf[1 << 16];
  while (const std::size_t n = read_some(buf, sizeof(buf))) text.append(buf, n);
  return text;
}

void InputFile::seek(std::uint64_t offset) {
  if (::lseek(fd_, static_cast<off_t>(offset), SEEK_SET) < 0) {
    fail(input_label(kind_) + " cannot be read: " + std::strerror(errno));
  }
  read_ = offset;
}

std::string read_input_file(const std::string& path, InputKind kind) {
  InputFile f(path, kind);
  return f.read_rest();
}

std::string read_input_file_from(const std::string& path, InputKind kind, std::uint64_t offset) {
  InputFile f(path, kind);
  if (offset >= f.size()) return "";
  f.seek(offset);
  return f.read_rest();
}

void refuse_output_over_inputs(const std::string& output, const std::string& flag,
                               const std::vector<std::string>& inputs) {
  if (output.empty()) return;
  struct stat out {};
  const bool exists = ::stat(output.c_str(), &out) == 0;
  for (const auto& in : inputs) {
    struct stat st {};
    const bool same = in == output || (exists && ::stat(in.c_str(), &st) == 0 &&
                                       st.st_dev == out.st_dev && st.st_ino == out.st_ino);
    if (!same) continue;
    throw UsageError(flag + " " + quoted_path(output) + " is " +
                     (in == output ? "" : "the same file as ") + "an input (" + quoted_path(in) +
                     "); peerbench does not write over what it reads: give another output path");
  }
}

}  // namespace peerbench
