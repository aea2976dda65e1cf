#include "core/model/sizes.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sstream>

#include "core/base/errors.h"
#include "core/base/text.h"

namespace peerbench {
namespace {

[[noreturn]] void bad_size(const std::string& flag, const std::string& text) {
  throw UsageError(flag + ": '" + text +
                   "' is not a size; use a positive whole number of bytes with an optional K, M, "
                   "G or T suffix (binary: 1K = 1024)");
}

}  // namespace

std::uint64_t parse_size(const std::string& text, const std::string& flag) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) bad_size(flag, text);
  std::size_t pos = 0;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) ++pos;
  const std::string digits = text.substr(0, pos);
  std::string suffix = ascii_lower(text.substr(pos));
  if (digits.size() > 19) bad_size(flag, text);
  errno = 0;
  const unsigned long long base = std::strtoull(digits.c_str(), nullptr, 10);
  if (errno != 0) bad_size(flag, text);
  unsigned shift = 0;
  if (!suffix.empty() && suffix != "b") {
    const std::string units = "kmgt";
    const auto u = units.find(suffix[0]);
    const std::string rest = suffix.substr(1);
    if (u == std::string::npos || !(rest.empty() || rest == "b" || rest == "ib")) {
      bad_size(flag, text);
    }
    shift = 10 * static_cast<unsigned>(u + 1);
  }
  if (base == 0) throw UsageError(flag + ": must be at least 1 byte, got '" + text + "'");
  if (shift > 0 && base > (std::numeric_limits<std::uint64_t>::max() >> shift)) {
    bad_size(flag, text);
  }
  return static_cast<std::uint64_t>(base) << shift;
}

long long parse_integer(const std::string& text, const std::string& flag, long long min,
                        long long max) {
  const auto range = "a whole number from " + std::to_string(min) + " to " + std::to_string(max);
  std::size_t start = (!text.empty() && (text[0] == '-' || text[0] == '+')) ? 1 : 0;
  bool digits = text.size() > start;
  for (std::size_t i = start; i < text.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) digits = false;
  }
  if (!digits) throw UsageError(flag + ": '" + text + "' is not " + range);
  errno = 0;
  const long long v = std::strtoll(text.c_str(), nullptr, 10);
  if (errno == ERANGE || v < min || v > max) {
    throw UsageError(flag + ": " + text + " is out of range; use " + range);
  }
  return v;
}

namespace {

// Plain decimal only: strtod also takes hex floats (0x1p-3), "inf", "nan" and leading spaces,
// none of which a person means as a timeout or a percentage.
bool is_decimal(const std::string& t) {
  std::size_t i = 0, mantissa = 0;
  if (i < t.size() && t[i] == '+') ++i;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i, ++mantissa;
  if (i < t.size() && t[i] == '.') {
    ++i;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i, ++mantissa;
  }
  if (mantissa == 0) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    std::size_t exponent = 0;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i, ++exponent;
    if (exponent == 0) return false;
  }
  return i == t.size();
}

}  // namespace

double parse_positive_number(const std::string& text, const std::string& flag) {
  char* end = nullptr;
  errno = 0;
  const double v = is_decimal(text) ? std::strtod(text.c_str(), &end) : 0;
  if (!is_decimal(text) || end == nullptr || *end != '\0' || errno != 0 || !std::isfinite(v) ||
      v <= 0) {
    throw UsageError(flag + ": '" + text + "' is not a positive decimal number");
  }
  return v;
}

// An empty path would silently mean "stdout" or "nothing": refuse it instead.
std::string non_empty_path(const std::string& path, const std::string& flag) {
  if (path.empty()) throw UsageError(flag + ": empty path; give a file name");
  // "-o=x" reaches us as "=x" (short options take the rest of the word): almost never meant.
  if (path[0] == '=') {
    throw UsageError(flag + ": '" + sanitize_for_terminal(path) +
                     "' starts with '='; give the name after a space, or ./" +
                     sanitize_for_terminal(path) + " for a file really named so");
  }
  // '-' made a file named '-' in the current folder, where users meant standard output (an audit).
  if (path == "-")
    throw UsageError(flag + ": '-' is not standard input or output here; give a file name, or ./-" +
                     " for a file really named so");
  return path;
}

std::string output_path(const std::string& path, const std::string& flag) {
  return path == "-" ? std::string() : non_empty_path(path, flag);
}

double parse_number_in(const std::string& text, const std::string& flag, double min, double max) {
  const double v = parse_positive_number(text, flag);
  if (v < min || v > max) {
    std::ostringstream m;
    // The number is positive whatever `min` says: "from 0" read as if 0 were allowed (an audit).
    m << flag << ": " << text << " is out of range; use a number ";
    if (min > 0) {
      m << "from " << min << " to " << max;
    } else {
      m << "above 0, up to " << max;
    }
    throw UsageError(m.str());
  }
  return v;
}

namespace {

// The largest binary unit that divides `bytes` exactly, while the number stays short ("1536
// KiB", "1000 B"); otherwise the largest unit under the size, to four digits ("18.63 GiB"): a
// size like 20000000000 read "19531250 KiB" (an audit). `units` from bytes up, five of them.
std::string format_size_in(std::uint64_t bytes, const char* const units[5], const char* gap) {
  int u = 0;
  std::uint64_t v = bytes;
  while (u < 4 && v >= 1024 && v % 1024 == 0) {
    v /= 1024;
    ++u;
  }
  if (v < 10000) return std::to_string(v) + gap + units[u];
  // Four significant digits, so neighbours of a sweep stay apart (1049576 and 1050576: "1.001M",
  // "1.002M"); a size that rounds up to the next unit reads in it (2^30 - 1: "1.000 GiB").
  double x = static_cast<double>(bytes);
  u = 0;
  while (u < 4 && x >= 1024 - 0.05) {
    x /= 1024;
    ++u;
  }
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*f", x < 10 ? 3 : x < 100 ? 2 : 1, x);
  return buf + std::string(gap) + units[u];
}

}  // namespace

std::string format_size(std::uint64_t bytes) {
  static constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  return format_size_in(bytes, units, " ");
}

std::string format_size_compact(std::uint64_t bytes) {
  static constexpr const char* units[] = {"", "K", "M", "G", "T"};
  return format_size_in(bytes, units, "");
}

std::string format_size_label(std::uint64_t bytes) {
  return format_size_compact(bytes) + (bytes < 1024 ? " B" : "");
}

std::uint64_t count_sweep_sizes(const SweepSpec& spec) {
  if (spec.min_bytes == 0 || spec.max_bytes == 0) {
    throw UsageError("-b/--minbytes and -e/--maxbytes: must be at least 1 byte");
  }
  if (spec.min_bytes > spec.max_bytes) {
    throw UsageError("-b/--minbytes (" + format_size(spec.min_bytes) +
                     ") is larger than -e/--maxbytes (" + format_size(spec.max_bytes) +
                     "); use min <= max");
  }
  if (spec.step_bytes == 0 && spec.step_factor < 2) {
    throw UsageError("-f/--stepfactor: must be a whole number of at least 2");
  }
  std::uint64_t count = 1;  // max itself
  const std::uint64_t span = spec.max_bytes - spec.min_bytes;
  if (spec.step_bytes) {
    count += span / spec.step_bytes + (span % spec.step_bytes ? 1 : 0);
  } else {
    for (std::uint64_t s = spec.min_bytes; s < spec.max_bytes;) {
      ++count;
      if (s > spec.max_bytes / spec.step_factor) break;  // the next step passes max
      s *= spec.step_factor;
    }
  }
  if (count > kMaxSweepSizes) {
    throw UsageError(std::string(spec.step_bytes ? "-i/--stepbytes" : "-f/--stepfactor") + ": " +
                     format_size(spec.min_bytes) + " to " + format_size(spec.max_bytes) +
                     " makes " + std::to_string(count) + " sizes; at most " +
                     std::to_string(kMaxSweepSizes) + " (use a larger step or a narrower range)");
  }
  return count;
}

std::vector<std::uint64_t> make_sweep(const SweepSpec& spec) {
  std::vector<std::uint64_t> sizes;
  sizes.reserve(count_sweep_sizes(spec));
  std::uint64_t s = spec.min_bytes;
  while (s < spec.max_bytes) {
    sizes.push_back(s);
    std::uint64_t next = spec.step_bytes ? s + spec.step_bytes : s * spec.step_factor;
    if (next <= s || (!spec.step_bytes && s > spec.max_bytes / spec.step_factor)) break;
    s = next;
  }
  sizes.push_back(spec.max_bytes);
  return sizes;
}

}  // namespace peerbench
