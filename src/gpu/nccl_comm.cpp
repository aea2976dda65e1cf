#include "gpu/nccl_comm.h"

#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/platform/host_name.h"
#include "core/platform/input_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "gpu/check.h"

namespace peerbench::gpu {
namespace {

const char* env(const char* n) {
  const char* v = std::getenv(n);
  return (v && *v) ? v : nullptr;
}

// NCCL_DEBUG_FILE's %h (host name up to the first dot) and %p (pid), as NCCL expands them.
std::string expand_debug_file(const std::string& pattern) {
  std::string h = physical_host_name();  // NCCL's own: the machine's name
  if (const auto dot = h.find('.'); dot != std::string::npos) h.resize(dot);
  std::string out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size()) {
      const char c = pattern[++i];
      if (c == 'h') {
        out += h;
      } else if (c == 'p') {
        out += std::to_string(::getpid());
      } else if (c == '%') {
        out += '%';
      } else {
        out += '%';
        out += c;
      }
    } else {
      out += pattern[i];
    }
  }
  return out;
}

const std::vector<std::string> kNeeded = {"INIT", "P2P", "SHM", "NET", "GRAPH"};

std::vector<std::string> subsystem_list(const std::string& s) {
  std::vector<std::string> out;
  for (auto& x : split(s, ',')) {
    if (!x.empty()) out.push_back(x);
  }
  return out;
}

// What the user's own NCCL_DEBUG_FILE will hold, from NCCL_DEBUG's level and the subsystems logged.
std::string user_file_note(const std::string& level, const std::vector<std::string>& subsystems) {
  std::string missing;
  for (const auto& n : kNeeded) {
    bool have = false;
    for (const auto& s : subsystems) have = have || s == n || s == "ALL";
    if (!have) missing += (missing.empty() ? "" : ",") + n;
  }
  if (level != "INFO" && level != "TRACE") {
    return "NCCL_DEBUG_FILE is set by the user but NCCL_DEBUG is '" + level +
           "', not INFO: transports are not in the log";
  } else if (!missing.empty()) {
    return "user's NCCL_DEBUG_SUBSYS lacks " + missing + "; what those subsystems print is missing";
  } else {
    return "read from the user's NCCL_DEBUG_FILE";
  }
}

// The subsystems peerbench's capture asks for: the ones it needs and any more the user named.
std::string captured_subsystems() {
  // ENV: NCCL echoes the variables it read (NCCL_SHM_DISABLE...), which the diagnosis reads.
  std::string subsys = "INIT,P2P,SHM,NET,GRAPH,ENV";
  if (const char* user_subsys = env("NCCL_DEBUG_SUBSYS"); user_subsys && user_subsys[0] != '^') {
    for (const auto& s : subsystem_list(user_subsys)) {
      if (subsys.find(s) == std::string::npos) subsys += "," + s;
    }
  }
  return subsys;
}

}  // namespace

NcclLogCapture NcclLogCapture::setup() {
  NcclLogCapture c;
  // Multicast (NVLS) objects are a shared fabric resource; stay off them unless asked.
  ::setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0);
  const char* user_file = env("NCCL_DEBUG_FILE");
  const char* user_level = env("NCCL_DEBUG");
  if (user_file) {
    c.mode_ = "user-file";
    c.path_ = expand_debug_file(user_file);
    const std::string level = user_level ? user_level : "";
    const char* subsys = env("NCCL_DEBUG_SUBSYS");
    c.subsystems_ =
        subsys ? subsystem_list(subsys) : std::vector<std::string>{"INIT", "BOOTSTRAP", "ENV"};
    c.note_ = user_file_note(level, c.subsystems_);
    return c;
  }
  if (user_level) {
    c.mode_ = "not-captured";
    c.note_ =
        std::string("NCCL_DEBUG=") + user_level +
        " is set without NCCL_DEBUG_FILE, so NCCL logs to the terminal; set NCCL_DEBUG_FILE (or "
        "unset NCCL_DEBUG) to let peerbench record transports";
    return c;
  }
  const char* tmp = env("TMPDIR");
  std::string templ = std::string(tmp ? tmp : "/tmp") + "/peerbench.XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) {  // mkdtemp creates the folder with mode 0700
    c.mode_ = "not-captured";
    c.note_ = "cannot create a private folder for NCCL's log under " +
              std::string(tmp ? tmp : "/tmp") + ": " + std::strerror(errno);
    return c;
  }
  c.tmpdir_ = buf.data();
  c.path_ = c.tmpdir_ + "/nccl.log";
  const std::string subsys = captured_subsystems();
  ::setenv("NCCL_DEBUG", "INFO", 1);
  ::setenv("NCCL_DEBUG_SUBSYS", subsys.c_str(), 1);
  ::setenv("NCCL_DEBUG_FILE", c.path_.c_str(), 1);
  c.mode_ = "peerbench";
  c.subsystems_ = subsystem_list(subsys);
  c.note_ = "NCCL_DEBUG=INFO captured to a private temporary file, removed at exit";
  return c;
}

NcclLogCapture::NcclLogCapture(NcclLogCapture&& o) noexcept
    : mode_(std::move(o.mode_)),
      note_(std::move(o.note_)),
      path_(std::move(o.path_)),
      tmpdir_(std::exchange(o.tmpdir_, std::string())),
      fd_(std::exchange(o.fd_, -1)),
      subsystems_(std::move(o.subsystems_)) {}

NcclLogCapture& NcclLogCapture::operator=(NcclLogCapture&& o) noexcept {
  if (this != &o) {
    cleanup();
    mode_ = std::move(o.mode_);
    note_ = std::move(o.note_);
    path_ = std::move(o.path_);
    tmpdir_ = std::exchange(o.tmpdir_, std::string());
    fd_ = std::exchange(o.fd_, -1);
    subsystems_ = std::move(o.subsystems_);
  }
  return *this;
}

NcclLogCapture::~NcclLogCapture() {
  cleanup();
}

void NcclLogCapture::cleanup() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (tmpdir_.empty()) return;
  if (DIR* d = ::opendir(tmpdir_.c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (n == "." || n == "..") continue;
      ::unlink((tmpdir_ + "/" + n).c_str());
    }
    ::closedir(d);
  }
  ::rmdir(tmpdir_.c_str());
  tmpdir_.clear();
}

std::uint64_t NcclLogCapture::mark() const {
  struct stat st {};
  if (fd_ >= 0) return ::fstat(fd_, &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
  if (path_.empty() || ::stat(path_.c_str(), &st) != 0) return 0;
  return static_cast<std::uint64_t>(st.st_size);
}

void NcclLogCapture::detach() {
  if (mode_ != "peerbench" || fd_ >= 0 || tmpdir_.empty()) return;
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) return;  // NCCL has not opened it yet: removed at exit instead
  ::unlink(path_.c_str());
  ::rmdir(tmpdir_.c_str());
  tmpdir_.clear();
}

NcclLogParse NcclLogCapture::read(std::uint64_t from) const {
  if (path_.empty() || (mode_ != "peerbench" && mode_ != "user-file")) return {};
  if (fd_ >= 0) {
    std::string text;
    char buf[65536];
    off_t off = static_cast<off_t>(from);
    for (;;) {
      const ssize_t n = ::pread(fd_, buf, sizeof(buf), off);
      if (n <= 0) break;
      text.append(buf, static_cast<std::size_t>(n));
      off += n;
    }
    return parse_nccl_log(text);
  }
  // The user's own file: read like every other input (a regular file, bounded, never a FIFO).
  try {
    return parse_nccl_log(read_input_file_from(path_, InputKind::kNcclLog, from));
  } catch (const InputError&) {
    return {};
  }
}

namespace {

// Polls a non-blocking communicator until its last call has finished (ncclSuccess). NCCL
// forbids the next call on a communicator before that ("Attempt to use communicator before the
// previous operation returned ncclSuccess"). It busy-polls, yielding the core: an enqueue takes
// microseconds, and a sleep per call made every operation of a long queue cost tens of
// microseconds (issue 17). Only a wait past 100 ms (init, finalize) sleeps between polls.
void poll_until_done(ncclComm_t comm, double timeout_s, const std::string& what) {
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::duration<double>(timeout_s);
  const auto patience = start + std::chrono::milliseconds(100);
  for (;;) {
    ncclResult_t state = ncclSuccess;
    PB_NCCL(ncclCommGetAsyncError(comm, &state));
    if (state == ncclSuccess) return;
    if (state != ncclInProgress) {
      throw NcclError(state, what + " failed: " + ncclGetErrorString(state) + " (" +
                                 ncclGetLastError(comm) + ") at " + call_site(__FILE__, __LINE__));
    }
    if (std::chrono::steady_clock::now() > deadline) {
      throw WatchdogTimeout(what + " did not finish within " + format_fixed(timeout_s, 0) + " s");
    }
    if (std::chrono::steady_clock::now() > patience) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    } else {
      std::this_thread::yield();
    }
  }
}

}  // namespace

std::unique_ptr<NcclComm> NcclComm::create(const RankContext& ctx, double timeout_s) {
  // Rank 0's failure is broadcast before the id: thrown on rank 0 alone, it left the other ranks
  // in MPI_Bcast while rank 0 went on to the next collective (a wrong NCCL_SOCKET_IFNAME does it).
  ncclUniqueId id{};
  ncclResult_t made = ncclSuccess;
  if (ctx.rank == 0) made = ncclGetUniqueId(&id);
  int code = static_cast<int>(made);
  PB_MPI(MPI_Bcast(&code, 1, MPI_INT, 0, ctx.world));
  if (code != ncclSuccess)
    throw_nccl(static_cast<ncclResult_t>(code),
               ctx.rank == 0 ? "ncclGetUniqueId(&id)" : "ncclGetUniqueId(&id) on rank 0", __FILE__,
               __LINE__);
  PB_MPI(MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, ctx.world));
  std::unique_ptr<NcclComm> c(new NcclComm());
  c->timeout_s_ = timeout_s;
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  PB_NCCL(ncclCommInitRankConfig(&c->comm_, ctx.size, id, ctx.rank, &config));
  try {
    poll_until_done(c->comm_, timeout_s, "ncclCommInitRankConfig");
  } catch (...) {
    c->abort();
    throw;
  }
  return c;
}

NcclComm::~NcclComm() {
  if (!comm_ || aborted_) return;
  // Finalize (non-blocking: returns ncclInProgress, and is done only once the async state says
  // ncclSuccess), then destroy. Any failure on the way: abort, which never waits on peers.
  try {
    PB_NCCL(ncclCommFinalize(comm_));
    poll_until_done(comm_, timeout_s_, "ncclCommFinalize");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "peerbench: warning: %s; aborting the communicator\n", e.what());
    abort();
    return;
  }
  const ncclResult_t r = ncclCommDestroy(comm_);
  if (r != ncclSuccess) {
    std::fprintf(stderr, "peerbench: warning: ncclCommDestroy failed: %s (%s)\n",
                 ncclGetErrorString(r), ncclGetLastError(comm_));
  }
  comm_ = nullptr;
}

void NcclComm::abort() {
  if (comm_ && !aborted_) {
    aborted_ = true;
    const ncclResult_t r = ncclCommAbort(comm_);
    if (r != ncclSuccess)
      std::fprintf(stderr, "peerbench: warning: ncclCommAbort failed: %s\n", ncclGetErrorString(r));
  }
}

void NcclComm::check_async() const {
  if (!comm_ || aborted_) return;
  ncclResult_t state = ncclSuccess;
  PB_NCCL(ncclCommGetAsyncError(comm_, &state));
  if (state != ncclSuccess && state != ncclInProgress) {
    throw NcclError(state, std::string("NCCL asynchronous error: ") + ncclGetErrorString(state) +
                               " (" + ncclGetLastError(comm_) + ") at " +
                               call_site(__FILE__, __LINE__));
  }
}

void NcclComm::wait_ready(double timeout_s) const {
  poll_until_done(comm_, timeout_s, "NCCL enqueue");
}

NcclGroup::NcclGroup() {
  PB_NCCL(ncclGroupStart());
  open_ = true;
}

void NcclGroup::end() {
  open_ = false;  // whatever ncclGroupEnd returns, the group is closed on this thread
  PB_NCCL(ncclGroupEnd());
}

NcclGroup::~NcclGroup() {
  // An exception between start and end: close the group, or every later NCCL call of this
  // thread (a new communicator's init too) would join the broken one.
  if (open_) (void)ncclGroupEnd();
}

std::string nccl_version_string() {
  int v = 0;
  PB_NCCL(ncclGetVersion(&v));
  // NCCL_VERSION(X,Y,Z) = X*10000 + Y*100 + Z for versions >= 2.9
  return std::to_string(v / 10000) + "." + std::to_string((v / 100) % 100) + "." +
         std::to_string(v % 100);
}

}  // namespace peerbench::gpu
