#include "app/output.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>

#include "core/base/errors.h"
#include "core/fleet/fleet.h"
#include "core/import/import.h"
#include "core/model/schema.h"
#include "core/platform/atomic_file.h"
#include "core/platform/input_file.h"
#include "core/present/relative_link.h"

namespace peerbench::app {
namespace {

std::string base64(const std::string& in) {
  static constexpr const char* t =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(in[i]) << 16) |
                       (static_cast<unsigned char>(in[i + 1]) << 8) |
                       static_cast<unsigned char>(in[i + 2]);
    out += t[v >> 18];
    out += t[(v >> 12) & 63];
    out += t[(v >> 6) & 63];
    out += t[v & 63];
  }
  if (i < in.size()) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    out += t[v >> 18];
    out += t[(v >> 12) & 63];
    out += i + 1 < in.size() ? t[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

// A device or a FIFO: there is no file to replace, and a temporary file beside /dev/null could
// not be renamed over it (a report -o /dev/null was refused: issue 39).
bool is_stream(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode));
}

void write_stream(const std::string& path, const std::string& text) {
  // Non-blocking open: a FIFO nobody reads is an error now, not a wait without end.
  const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    throw WriteError("cannot write " + path + ": " +
                     (errno == ENXIO ? std::string("no process reads from it")
                                     : std::string(std::strerror(errno))));
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int why = n < 0 ? errno : EIO;
      ::close(fd);
      throw WriteError("cannot write " + path + ": " + std::strerror(why));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0 && errno != EINTR)
    throw WriteError("cannot write " + path + ": " + std::strerror(errno));
}

}  // namespace

RunDocument load_named_run(const std::string& path) {
  try {
    return load_run_or_import(path);  // peerbench's own, or another tool's output
  } catch (const InputError& e) {
    const std::string what = not_a_run(path, e);
    if (what.empty()) throw;
    throw InputError(quoted_path(path), "", what + ", not a run; give a results file (run -J)");
  }
}

void write_output(const std::string& path, const std::string& text, const std::string& flag) {
  try {
    if (is_stream(path)) {
      write_stream(path, text);
    } else {
      write_file_atomically(path, text, /*create_dirs=*/true);
    }
  } catch (const WriteError& e) {  // named the path, not the flag that gave it (an audit)
    throw UsageError(flag + ": " + e.what());
  }
}

std::string output_refusal(const std::string& path) {
  return is_stream(path) ? "" : check_writable(path, /*create_dirs=*/true);
}

// Plots made by scripts/plot.py: PNG files, embedded (HTML) or linked (Markdown).
std::vector<PlotFile> find_plots(const std::string& dir, bool embed, const std::string& output) {
  std::vector<PlotFile> plots;
  if (dir.empty()) return plots;
  DIR* d = ::opendir(dir.c_str());
  if (!d) {  // the flag first: the folder's name alone did not say which flag gave it (issue 42)
    throw UsageError("--plots: the folder '" + quoted_path(dir) + "' cannot be read (" +
                     std::strerror(errno) +
                     "); give the folder of PNG plots that scripts/plot.py or "
                     "scripts/plot_fleet.py wrote");
  }
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    if (n.size() > 4 && n.compare(n.size() - 4, 4, ".png") == 0) names.push_back(n);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  std::uint64_t embedded = 0;
  for (const auto& n : names) {
    PlotFile p;
    p.name = n;
    p.caption = n.substr(0, n.size() - 4);
    std::replace(p.caption.begin(), p.caption.end(), '_', ' ');
    p.path = (dir.back() == '/' ? dir : dir + "/") + n;
    p.link = relative_link(p.path, output);
    if (embed) {
      // Each image within its own limit, and all of them within one page's
      // (core/platform/input_file.h).
      const std::string bytes = read_input_file(p.path, InputKind::kPlot);
      embedded += bytes.size();
      if (embedded > kMaxEmbeddedPlotBytes) {
        throw UsageError("--plots: the folder '" + quoted_path(dir) + "' holds more than " +
                         std::to_string(kMaxEmbeddedPlotBytes >> 20) +
                         " MiB of PNG images; an HTML page embeds at most that: give fewer, or "
                         "--format markdown, which links them");
      }
      if (bytes.size() < 8 || bytes.compare(1, 3, "PNG") != 0) continue;  // only real PNGs
      p.data_uri = "data:image/png;base64," + base64(bytes);
    }
    plots.push_back(p);
  }
  return plots;
}

std::string stdout_write_failed(int why) {
  return std::string("standard output cannot be written (") +
         (why ? std::strerror(why) : "the write failed") + "): what was printed is cut short";
}

void emit(const std::string& text, const std::string& path, const std::vector<std::string>& inputs,
          const std::vector<PlotFile>& plots) {
  if (path.empty()) {
    errno = 0;
    std::cout << text;
    std::cout.flush();
    // Here, while errno still says why (main checks again for every other line printed).
    if (!std::cout) {
      throw WriteError(stdout_write_failed(errno));
    }
    return;
  }
  std::vector<std::string> read = inputs;
  for (const auto& p : plots) read.push_back(p.path);
  refuse_output_over_inputs(path, "-o/--output", read);
  write_output(path, text, "-o/--output");
}

}  // namespace peerbench::app
