#pragma once
// How much peerbench reads and lists, in one place (docs/limits.md, "Limits on what is read",
// says each). Every bound is a size or a count, so that any input ends in bounded time as well
// as memory: past one, peerbench refuses in one line naming the limit and what to give instead
// (exit code 2), or, where it only lists, stops listing and says so.
#include <cstddef>
#include <cstdint>

namespace peerbench {

// The largest file of each kind (input_file.h, input_size_limit).
inline constexpr std::uint64_t kMaxResultsFileBytes = 256ull << 20;
inline constexpr std::uint64_t kMaxExpectFileBytes = 1ull << 20;
inline constexpr std::uint64_t kMaxHostsFileBytes = 64ull << 20;
inline constexpr std::uint64_t kMaxPlotFileBytes = 16ull << 20;
inline constexpr std::uint64_t kMaxNcclLogBytes = 1024ull << 20;
// Another tool's output read by import, report, compare and fleet (core/import): as large as a
// results file, and each line at most kMaxImportLineBytes (the longest line of nccl-tests, with
// per-iteration columns and timestamps, is under 300 bytes; NCCL INFO lines under 1 KiB). A line
// past it, or a NUL byte, is refused naming the file and the line: it is no text output.
inline constexpr std::uint64_t kMaxImportFileBytes = 256ull << 20;
inline constexpr std::size_t kMaxImportLineBytes = 64u << 10;
// The PNGs of --plots together: an HTML page embeds them all.
inline constexpr std::uint64_t kMaxEmbeddedPlotBytes = 64ull << 20;

// fleet's walk of the folders given: how deep below a path given it searches, and how many
// entries (names in the folders searched, of any kind) it looks at in all. /proc/self, whose
// links lead through the whole file system, took 31-39 s before the count was bounded.
inline constexpr int kMaxFolderDepth = 8;
inline constexpr std::size_t kMaxFolderEntries = 100'000;

// fleet --hosts: names a file may hold and the bytes of one. Each name is a node of the report
// (a million took 13-16 s and 1.5 GB, most of them listed as missing).
inline constexpr std::size_t kMaxHosts = 100'000;
inline constexpr std::size_t kMaxHostNameBytes = 255;

// run --dry-run -v: the pairs a plan lists one by one; past them its rows are summarised per
// method, as without -v (1024 ranks listed 10 million rows, 675 MB, in 12-21 s).
inline constexpr std::int64_t kMaxPlanPairsListed = 100'000;

// The node's own small files read for its evidence (sysfs, procfs; core/platform/sys_root.h):
// the bytes of one file (a PCI `config` is 4096; /proc/cpuinfo's first CPU is within its first
// few KiB) and the names of one folder (PCI devices, IOMMU groups) looked at.
inline constexpr std::size_t kMaxSysFileBytes = 64u << 10;
inline constexpr std::size_t kMaxSysDirEntries = 4096;

}  // namespace peerbench
