#include "core/base/escaped.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "core/base/text.h"

namespace peerbench::out {

namespace {

// Plain printable ASCII without any of `special`: nothing to escape (most strings, at any size of
// report: one copy, no temporaries).
bool plain(std::string_view s, std::string_view special) {
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f || special.find(c) != std::string_view::npos) return false;
  }
  return true;
}

}  // namespace

std::string format_double_as_stream(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

std::string fixed_text(double v, int decimals) {
  return format_fixed(v, decimals);
}

std::string Term::escape(std::string_view s) {
  return sanitize_for_terminal(s);
}

// CommonMark: a backslash before ASCII punctuation makes it literal. These are the characters
// that would start markup in a paragraph or end a table cell; line breaks would end the cell.
std::string Markdown::escape(std::string_view s) {
  if (plain(s, "\\|`*_<>[]&~")) return std::string(s);
  std::string out;
  for (char c : sanitize_lines_for_terminal(s)) {
    if (c == '\n') {
      out += ' ';
      continue;
    }
    if (std::string_view("\\|`*_<>[]&~").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

Safe<Markdown> markdown_link(std::string_view path) {
  static constexpr const char* hex = "0123456789ABCDEF";
  std::string out;
  for (char c : path) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || std::string_view("-._~/").find(c) != std::string_view::npos) {
      out += c;
    } else {
      out += '%';
      out += hex[u >> 4];
      out += hex[u & 15];
    }
  }
  return Safe<Markdown>::from_code(out);
}

std::string Html::escape(std::string_view s) {
  if (plain(s, "&<>\"'")) return std::string(s);
  std::string out;
  for (char c : sanitize_lines_for_terminal(s)) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// XML 1.0 cannot carry most control characters even as references: they are shown as \xNN,
// like invalid UTF-8, and the rest is escaped as in HTML.
// HTML's rules, and line breaks and tabs as character references: a parser reads a raw one in an
// attribute as a space ("n2\nline2" came back "n2 line2", another host's name; an audit).
std::string Xml::escape(std::string_view s) {
  std::string out;
  for (char c : Html::escape(s)) {
    if (c == '\n') {
      out += "&#10;";
    } else if (c == '\r') {
      out += "&#13;";
    } else if (c == '\t') {
      out += "&#9;";
    } else {
      out += c;
    }
  }
  return out;
}

// A field that starts with = + - @ (or a tab or carriage return, which spreadsheets strip first)
// is a formula to a spreadsheet: it is made text. Fields holding a comma, quote or line break are
// quoted.
std::string Csv::escape(std::string_view raw) {
  std::string s = sanitize_lines_for_terminal(raw);
  if (!raw.empty() && std::string_view("=+-@\t\r").find(raw[0]) != std::string_view::npos) {
    s = "'" + s;
  }
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// OpenMetrics label values escape backslash, double quote and line feed, and nothing else; the
// other controls are first shown as \xNN (whose backslash is then escaped).
std::string OmLabel::escape(std::string_view s) {
  std::string out;
  for (char c : sanitize_lines_for_terminal(s)) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace peerbench::out
