#include "gpu/numa_host_buffer.h"

#include <cuda_runtime.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/model/sizes.h"
#include "gpu/check.h"
#include "gpu/cuda_raii.h"

namespace peerbench::gpu {
namespace {

// Linux memory policies (linux/mempolicy.h); called through syscall() so no libnuma is needed.
// Preferred, not bound: on a node short of memory the kernel takes pages elsewhere instead of
// killing the rank, and where they landed is read back and recorded.
constexpr int kMpolPreferred = 1;
constexpr int kMaxNodes = 1024;
constexpr std::size_t kMaskWords = kMaxNodes / (8 * sizeof(unsigned long));

// Asks for [p, p + bytes) on `node`; "" on success, else why not (containers may refuse mbind).
std::string prefer_node(void* p, std::size_t bytes, int node) {
  if (node < 0 || node >= kMaxNodes) return "node " + std::to_string(node) + " out of range";
  unsigned long mask[kMaskWords] = {};
  mask[static_cast<std::size_t>(node) / (8 * sizeof(unsigned long))] |=
      1ul << (static_cast<std::size_t>(node) % (8 * sizeof(unsigned long)));
  // The kernel reads maxnode - 1 bits.
  if (syscall(SYS_mbind, p, bytes, kMpolPreferred, mask, kMaxNodes + 1, 0) != 0) {
    return std::string("mbind: ") + std::strerror(errno);
  }
  return "";
}

// Where the pages are, from up to 64 pages spread over the buffer (move_pages without a target
// only reports).
struct Placement {
  std::string text;    // "on NUMA node 0", "on NUMA nodes 0 (48 of 64 pages sampled), 1 (16)"
  bool known = false;  // the kernel said where the pages are
  int only = -1;       // the node when all sampled pages are on one, else -1
};

Placement nodes_of(void* p, std::size_t bytes) {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t pages = std::max<std::size_t>(1, bytes / page);
  const std::size_t n = std::min<std::size_t>(64, pages);
  std::vector<void*> addrs(n);
  for (std::size_t i = 0; i < n; ++i) addrs[i] = static_cast<char*>(p) + (i * pages / n) * page;
  std::vector<int> status(n, -1);
  if (syscall(SYS_move_pages, 0, n, addrs.data(), nullptr, status.data(), 0) != 0)
    return {"(node unknown)", false, -1};
  std::map<int, int> count;
  for (int s : status) count[s] += 1;
  if (count.size() == 1 && count.begin()->first >= 0) {
    const int node = count.begin()->first;
    return {"on NUMA node " + std::to_string(node), true, node};
  }
  std::string s = "on NUMA nodes ";
  for (const auto& [node, k] : count) {
    s += (s.back() == ' ' ? "" : ", ") +
         (node >= 0 ? std::to_string(node) : std::string("not resident")) + " (" +
         std::to_string(k) +
         (s.back() == ' ' ? " of " + std::to_string(n) + " pages sampled)" : ")");
  }
  return {s, true, -1};
}

}  // namespace

NumaHostBuffer NumaHostBuffer::allocate(std::size_t bytes, std::optional<int> node) {
  NumaHostBuffer b;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    throw std::runtime_error("mmap of " + format_size(bytes) +
                             " of host memory failed: " + std::strerror(errno));
  }
  b.p_ = p;
  b.bytes_ = bytes;
  const std::string bind_error = node ? prefer_node(p, bytes, *node) : "";
  // First touch places the pages: under the policy on its node, else near this rank's CPUs
  // (bound near the GPU at start-up). A pattern, not zeros: zero pages could stay shared.
  std::memset(p, 0x5A, bytes);
  b.registration_ = HostRegistration::register_memory(p, bytes);
  const Placement at = nodes_of(p, bytes);
  std::string where = at.text;
  if (!node) {
    where += ", GPU's node unknown (sysfs gives none); first touched by a thread near the GPU";
  } else if (!bind_error.empty()) {
    where += ", not placed on the GPU's node " + std::to_string(*node) + " (" + bind_error +
             "); first touched by a thread near the GPU";
  } else if (at.only == *node) {
    where += " (the GPU's node, asked for with mbind)";
  } else if (!at.known) {
    where += ", asked for on the GPU's node " + std::to_string(*node) + " with mbind";
  } else {
    where += ", not all on the GPU's node " + std::to_string(*node) +
             " (asked for; the node was short of memory)";
  }
  b.placement_ = format_size(bytes) + " pinned " + where;
  return b;
}

NumaHostBuffer::NumaHostBuffer(NumaHostBuffer&& o) noexcept
    : p_(std::exchange(o.p_, nullptr)),
      bytes_(std::exchange(o.bytes_, 0)),
      registration_(std::move(o.registration_)),
      placement_(std::move(o.placement_)) {}

NumaHostBuffer& NumaHostBuffer::operator=(NumaHostBuffer&& o) noexcept {
  if (this != &o) {
    release();
    p_ = std::exchange(o.p_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
    registration_ = std::move(o.registration_);
    placement_ = std::move(o.placement_);
  }
  return *this;
}

NumaHostBuffer::~NumaHostBuffer() {
  release();
}

void NumaHostBuffer::release() noexcept {
  registration_ = HostRegistration{};
  if (p_) munmap(p_, bytes_);
  p_ = nullptr;
}

}  // namespace peerbench::gpu
