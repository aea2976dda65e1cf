#include "core/base/text.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace peerbench {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string::size_type start = 0;
  for (;;) {
    const auto at = s.find(sep, start);
    if (at == std::string::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, at - start));
    start = at + 1;
  }
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string s;
  for (std::size_t i = 0; i < items.size(); ++i) s += (i ? sep : std::string()) + items[i];
  return s;
}

std::string ascii_lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string format_fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}

namespace {

// Length of the valid UTF-8 sequence at s[i] (1-4), or 0 when it is not one; `cp` gets its code
// point. Overlong forms and surrogates are not valid.
std::size_t utf8_sequence(std::string_view s, std::size_t i, unsigned* cp) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned c = b(0);
  std::size_t len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
  if (len == 0 || i + len > s.size()) return 0;
  unsigned v = c & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
  for (std::size_t k = 1; k < len; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
    v = (v << 6) | (b(k) & 0x3F);
  }
  const unsigned min = len == 2 ? 0x80 : len == 3 ? 0x800 : 0x10000;
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return len;
}

// Bidirectional overrides and isolates turn "x.json" into what reads as another name, and the
// line and paragraph separators break a line in some terminals (an audit; "Trojan Source").
bool reorders_text(unsigned cp) {
  return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200E ||
         cp == 0x200F || cp == 0x061C || cp == 0x2028 || cp == 0x2029;
}

void append_escape(std::string& out, unsigned char c) {
  static constexpr const char* hex = "0123456789abcdef";
  out += "\\x";
  out += hex[c >> 4];
  out += hex[c & 15];
}

// Escapes every byte that is a control character or not valid UTF-8 (see text.h).
std::string sanitize(std::string_view s, bool keep_newlines) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if ((c >= 0x20 && c < 0x7F) || (keep_newlines && c == '\n')) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    unsigned cp = 0;
    const std::size_t len = c >= 0x80 ? utf8_sequence(s, i, &cp) : 0;
    if (len > 0 && !(cp >= 0x80 && cp <= 0x9F) && !reorders_text(cp)) {  // C1 controls escaped
      out.append(s.substr(i, len));
      i += len;
      continue;
    }
    for (std::size_t k = 0; k < std::max<std::size_t>(len, 1); ++k) {
      append_escape(out, static_cast<unsigned char>(s[i + k]));
    }
    i += std::max<std::size_t>(len, 1);
  }
  return out;
}

}  // namespace

std::string sanitize_for_terminal(std::string_view s) {
  return sanitize(s, false);
}

std::string sanitize_lines_for_terminal(std::string_view text) {
  return sanitize(text, true);
}

namespace {

// Where to cut `word` near `at` without splitting a UTF-8 sequence or a "\xNN" escape: moved
// back to a character's start, then before an escape the cut would enter.
std::size_t cut_point(std::string_view word, std::size_t at) {
  while (at > 0 && (static_cast<unsigned char>(word[at]) & 0xC0) == 0x80) --at;
  for (std::size_t back = 1; back <= 3 && back <= at; ++back) {
    if (word[at - back] == '\\') {
      at -= back;
      break;
    }
  }
  return at;
}

// A word past kMaxErrorWord: its start and its end (a path's file name, the ':' after it), the
// bytes between counted.
std::string cut_word(std::string_view word) {
  const std::size_t head = cut_point(word, kErrorWordHead);
  const std::size_t tail = cut_point(word, word.size() - kErrorWordTail);
  return std::string(word.substr(0, head)) + "[... " + std::to_string(tail - head) + " bytes ...]" +
         std::string(word.substr(tail));
}

}  // namespace

std::string error_line(std::string_view what) {
  const std::string line = sanitize(what, false);
  std::string out;
  std::size_t start = 0;
  while (start <= line.size()) {
    const std::size_t end = std::min(line.find(' ', start), line.size());
    const std::string_view word = std::string_view(line).substr(start, end - start);
    out += word.size() > kMaxErrorWord ? cut_word(word) : std::string(word);
    if (end == line.size()) break;
    out += ' ';
    start = end + 1;
  }
  return out;
}

std::string count_of(long long n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

}  // namespace peerbench
