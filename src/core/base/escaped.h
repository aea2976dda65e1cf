#pragma once
// One escaping layer per output kind. Every string that came from a file, an option or the
// environment leaves peerbench through a Writer<F>, and a Writer<F> takes only Safe<F> text:
// string literals of the code, numbers, and esc<F>(s) of anything else. A std::string (or a
// const char* that is not a literal) does not convert, so a reporter cannot print text of
// unknown origin unescaped: the compiler names the place.
//
// Formats: Term (a terminal or log line: controls, line breaks included, and invalid UTF-8 shown
// as \xNN), Markdown (inline text and table cells), Html (text and quoted attribute values), Csv
// (one field), Xml (text and attribute values of XML 1.0), OmLabel (an OpenMetrics label value).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace peerbench::out {

struct Term {
  static std::string escape(std::string_view s);
};
struct Markdown {
  static std::string escape(std::string_view s);
};
struct Html {
  static std::string escape(std::string_view s);
};
struct Csv {
  static std::string escape(std::string_view s);
};
struct Xml {
  static std::string escape(std::string_view s);
};
struct OmLabel {
  static std::string escape(std::string_view s);
};

template <class F>
class Writer;

// Text that is safe in format F as it is.
template <class F>
class Safe {
 public:
  Safe() = default;
  // A literal of the code is trusted: it is markup or words the code chose.
  template <std::size_t N>
  Safe(const char (&literal)[N]) : s_(literal) {}  // NOLINT: implicit on purpose
  // Anything else is escaped by the format's rules.
  static Safe escaped(std::string_view untrusted) { return Safe(F::escape(untrusted), 0); }
  // Text the code built from literals and numbers alone ("0->1"), or that a renderer of this
  // format produced with its cells escaped (a text table, a chart). Never file text.
  static Safe from_code(std::string already_safe) { return Safe(std::move(already_safe), 0); }
  Safe& operator+=(const Safe& o) {
    s_ += o.s_;
    return *this;
  }
  friend Safe operator+(Safe a, const Safe& b) { return a += b; }
  const std::string& str() const { return s_; }
  bool empty() const { return s_.empty(); }

 private:
  Safe(std::string s, int) : s_(std::move(s)) {}
  std::string s_;
};

template <class F>
Safe<F> esc(std::string_view untrusted) {
  return Safe<F>::escaped(untrusted);
}
// One CSV field: the shorthand of every CSV writer's rows.
inline Safe<Csv> csv_field(std::string_view untrusted) {
  return esc<Csv>(untrusted);
}

// A link destination in Markdown (a relative path): every byte but letters, digits and -._~/
// percent-encoded, so no path can end the link or start markup.
Safe<Markdown> markdown_link(std::string_view path);

// Numbers are safe in every format.
std::string fixed_text(double v, int decimals);  // format_fixed
template <class F>
Safe<F> fixed(double v, int decimals) {
  return Safe<F>::from_code(fixed_text(v, decimals));
}
template <class F>
Safe<F> integer(long long v) {
  return Safe<F>::from_code(std::to_string(v));
}

// Where one report of format F is written. Numbers print as std::ostream prints them.
template <class F>
class Writer {
 public:
  Writer& operator<<(const Safe<F>& s) {
    out_ += s.str();
    return *this;
  }
  // A literal of the code; a const char* that is not one does not match (nor convert to Safe).
  template <std::size_t N>
  Writer& operator<<(const char (&literal)[N]) {
    out_ += literal;
    return *this;
  }
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                                          !std::is_same_v<T, char>,
                                      int> = 0>
  Writer& operator<<(T v) {
    out_ += std::to_string(v);
    return *this;
  }
  Writer& operator<<(double v);
  // Strings of unknown origin: esc<F>(s), or a literal.
  Writer& operator<<(const std::string&) = delete;
  Writer& operator<<(std::string_view) = delete;
  Writer& operator<<(char) = delete;
  Writer& operator<<(bool) = delete;
  const std::string& str() const { return out_; }

 private:
  std::string out_;
};

std::string format_double_as_stream(double v);  // as std::ostream's default << prints it

template <class F>
Writer<F>& Writer<F>::operator<<(double v) {
  out_ += format_double_as_stream(v);
  return *this;
}

}  // namespace peerbench::out
