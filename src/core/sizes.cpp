#include "core/sizes.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "core/errors.h"

namespace peerbench {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

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
  std::string suffix = lower(text.substr(pos));
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
  if (!digits || text.size() > 19) {
    throw UsageError(flag + ": '" + text + "' is not " + range);
  }
  const long long v = std::stoll(text);
  if (v < min || v > max) throw UsageError(flag + ": " + text + " is out of range; use " + range);
  return v;
}

double parse_positive_number(const std::string& text, const std::string& flag) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end == nullptr || *end != '\0' || errno != 0 || !std::isfinite(v) || v <= 0) {
    throw UsageError(flag + ": '" + text + "' is not a positive number");
  }
  return v;
}

std::string format_size(std::uint64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  std::uint64_t v = bytes;
  while (u < 4 && v >= 1024 && v % 1024 == 0) {
    v /= 1024;
    ++u;
  }
  return std::to_string(v) + " " + units[u];
}

std::string format_size_compact(std::uint64_t bytes) {
  static const char* units[] = {"", "K", "M", "G", "T"};
  int u = 0;
  std::uint64_t v = bytes;
  while (u < 4 && v >= 1024 && v % 1024 == 0) {
    v /= 1024;
    ++u;
  }
  return std::to_string(v) + units[u];
}

std::vector<std::uint64_t> make_sweep(const SweepSpec& spec) {
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
  std::vector<std::uint64_t> sizes;
  std::uint64_t s = spec.min_bytes;
  while (s < spec.max_bytes) {
    sizes.push_back(s);
    std::uint64_t next = spec.step_bytes ? s + spec.step_bytes : s * spec.step_factor;
    if (next <= s) break;  // overflow guard
    s = next;
  }
  sizes.push_back(spec.max_bytes);
  return sizes;
}

}  // namespace peerbench
