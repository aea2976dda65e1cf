#pragma once
// Byte sizes as users type them (nccl-tests style: 8, 64K, 512M, 8G; binary suffixes) and the
// size sweep built from -b/-e/-f/-i.
#include <cstdint>
#include <string>
#include <vector>

namespace peerbench {

// Up to this size a bandwidth method is at latency sizes ("-b 8 -e 8"): verdicts judge its time
// per operation (Expectations::small_message_max_bytes), and reports and compare show that time.
constexpr std::uint64_t kSmallMessageMaxBytes = 64ull << 10;

// Parses "4096", "64K", "512M", "8G", "1T" (suffix case-insensitive, optional trailing 'B' or
// 'iB'). Throws UsageError naming `flag` when the text is not a positive size.
std::uint64_t parse_size(const std::string& text, const std::string& flag);

// Parses a whole number in [min, max]; throws UsageError naming `flag` otherwise.
long long parse_integer(const std::string& text, const std::string& flag, long long min,
                        long long max);

// Parses a positive decimal number (seconds, fractions); throws UsageError naming `flag`.
// A file name given to FLAG: empty, or '=x' from '-o=x', is refused naming the flag.
// '-' is refused too: it is neither standard input nor output for such a flag.
std::string non_empty_path(const std::string& path, const std::string& flag);
// -o/--output: the same, but '-' is standard output (returned as "", as if -o were not given).
std::string output_path(const std::string& path, const std::string& flag);
double parse_positive_number(const std::string& text, const std::string& flag);
// Same, within [min, max]; the error names the flag and both bounds.
double parse_number_in(const std::string& text, const std::string& flag, double min, double max);

// "8 B", "64 KiB", "512 MiB", "8 GiB", "1000 B"; a size no unit divides into a short number
// to four digits: "18.63 GiB" (20000000000), "976.6 KiB" (1000000).
std::string format_size(std::uint64_t bytes);
// Compact form for tables: "8", "64K", "512M", "8G".
std::string format_size_compact(std::uint64_t bytes);
// The compact form where it stands alone ("@ 8 B", "@ 1G"): a bare "8" read as no unit (audits).
std::string format_size_label(std::uint64_t bytes);

struct SweepSpec {
  std::uint64_t min_bytes = 0;
  std::uint64_t max_bytes = 0;
  std::uint64_t step_factor = 0;  // multiply by this (>= 2) when step_bytes == 0
  std::uint64_t step_bytes = 0;   // add this when non-zero (linear sweep)
};

// Most sizes one sweep may hold: every size is measured on every pair, so a longer sweep is a
// typing mistake (-i 1 with -e 1T), not a plan. README documents the number.
inline constexpr std::uint64_t kMaxSweepSizes = 1024;

// How many sizes the sweep holds, computed without building the list. Throws UsageError on
// min > max, a factor below 2, or more than kMaxSweepSizes sizes (naming -i or -f).
std::uint64_t count_sweep_sizes(const SweepSpec& spec);

// Sizes from min to max inclusive. The last size is max even if the steps overshoot it,
// so the size the user asked for is always measured. Validates as count_sweep_sizes does.
std::vector<std::uint64_t> make_sweep(const SweepSpec& spec);

}  // namespace peerbench
