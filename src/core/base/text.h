#pragma once
// String helpers several parts of the core need: exact splitting, fixed-point numbers, and
// strings from files made safe for a terminal.
#include <string>
#include <string_view>
#include <vector>

namespace peerbench {

// Splits at every `sep`, keeping empty fields ("a,,b," -> "a", "", "b", ""), so callers can
// refuse empty names instead of skipping them silently. "" gives one empty field.
std::vector<std::string> split(const std::string& s, char sep);

// "a, b, c": the items joined with `sep`.
std::string join(const std::vector<std::string>& items, const std::string& sep = ", ");
// "1 node", "4 nodes": a count and its noun, plural with an s.
std::string count_of(long long n, const std::string& noun);

// "nvidia h200": ASCII letters lowered, every other byte kept (for matching names and words
// read from files, not for prose).
std::string ascii_lower(std::string s);

// 395.1 with decimals = 1.
std::string format_fixed(double v, int decimals);

// A string from a results file made safe to print on a terminal: control characters (C0, DEL,
// C1 such as ESC or CSI, also newlines: fields are one line) and bytes that are not valid UTF-8
// become visible escapes like \x1b, so a GPU named "ESC[2J" cannot clear the screen or forge
// output. Valid UTF-8 text passes unchanged but for the characters that reorder or break what
// follows them (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C, U+2028, U+2029).
std::string sanitize_for_terminal(std::string_view s);
// An error message as its one line on stderr: sanitized as above, and a word (an echoed value,
// a path) past kMaxErrorWord bytes cut to its first kErrorWordHead and last kErrorWordTail bytes
// and the count between, so a 100 KB argument does not become a 100 KB line while a long CI path
// is still named whole.
inline constexpr std::size_t kMaxErrorWord = 1024;
inline constexpr std::size_t kErrorWordHead = 200;
inline constexpr std::size_t kErrorWordTail = 60;
std::string error_line(std::string_view what);
// The same for a whole rendered report: its line breaks are kept, every other control escaped.
std::string sanitize_lines_for_terminal(std::string_view text);

}  // namespace peerbench
