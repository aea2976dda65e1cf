#pragma once
// Strict, bounded reading of JSON written by peerbench (or by anyone else): every problem becomes
// one InputError naming the file and the field path, e.g. "a.json: field 'results[3].bytes':
// expected a whole number from 0 to 1e15, got string". Files are read in bounded memory: large
// arrays element by element (StreamedArray), the rest within a budget of the file's size.
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/platform/input_file.h"

namespace peerbench {

// A value read from a file, for a one-line error: quoted, escaped for a terminal (a NUL would
// end the message early, a line break would forge a second line) and cut to 64 characters.
std::string quoted_value(const std::string& v);

class JsonIn {
 public:
  JsonIn(const nlohmann::json& j, std::string file, std::string path = "");

  JsonIn at(const std::string& key) const;                  // required member
  std::optional<JsonIn> opt(const std::string& key) const;  // missing or null -> nullopt
  bool has(const std::string& key) const;

  std::string str(std::size_t max_len = 1 << 16) const;
  double number(double lo, double hi) const;
  long long integer(long long lo, long long hi) const;
  bool boolean() const;
  std::vector<JsonIn> array(std::size_t max_items) const;
  std::vector<std::string> string_array(std::size_t max_items) const;
  void require_object() const;
  // An object with no key outside `known`: a key the writer does not know is a typo
  // ("tolerence", "throttle_cycles"), and a typo would switch a check off without a word.
  void only_keys(const std::vector<std::string>& known) const;

  // Convenience: optional typed members.
  std::optional<std::string> opt_str(const std::string& key) const;
  std::optional<double> opt_number(const std::string& key, double lo, double hi) const;
  std::optional<long long> opt_integer(const std::string& key, long long lo, long long hi) const;
  std::optional<bool> opt_bool(const std::string& key) const;

  const nlohmann::json& raw() const { return *j_; }
  std::string path() const;  // "results[3].bytes", built only when asked (errors)
  const std::string& file() const { return *file_; }
  [[noreturn]] void fail(const std::string& problem) const;

 private:
  // The path is a chain of links shared by children, not a string per field: reading a file of
  // 100k results touches millions of fields, and only an error needs the path spelled out.
  struct Link {
    std::shared_ptr<const Link> parent;
    std::string key;  // member name, or "" for an array element
    std::size_t index = 0;
  };
  JsonIn(const nlohmann::json* j, std::shared_ptr<const std::string> file,
         std::shared_ptr<const Link> link)
      : j_(j), file_(std::move(file)), link_(std::move(link)) {}
  JsonIn member(const nlohmann::json& v, const std::string& key) const;
  std::string child(const std::string& key) const;
  std::string type_name() const;
  const nlohmann::json* j_;
  std::shared_ptr<const std::string> file_;
  std::shared_ptr<const Link> link_;  // null at the top level
};

// A JSON file may take at most this many times its size in memory while it is read (plus 64 MiB
// for small files): the DOM and what the readers of streamed arrays keep. Files peerbench writes
// need about their own size; a file of millions of tiny values is refused instead of costing
// gigabytes.
inline constexpr std::uint64_t kJsonMemoryFactor = 3;
std::uint64_t json_memory_budget(std::uint64_t file_bytes);

// The heap bytes a DOM like `j` takes, as the budget counts them.
std::size_t approx_json_bytes(const nlohmann::json& j);

// A top-level array read element by element: `take` gets each element as soon as it is parsed
// (named "results[7]" in errors) and returns the bytes it keeps of it; the element is then
// dropped, so the document never holds the whole array (it stays there, empty). The first
// InputError of `take` is kept in `error` and later elements are skipped, so that the caller can
// report errors in its own order (a file's version before its fields).
struct StreamedArray {
  std::string key;
  std::size_t max_items = 0;
  std::function<std::size_t(const JsonIn& element)> take;
  std::exception_ptr error;  // set by the parser
  bool seen = false;         // the key was there, holding an array
};

// Parses a file opened and checked by InputFile (core/platform/input_file.h), reading it through
// its descriptor. One InputError for empty, truncated or non-JSON input, nesting deeper than
// `max_depth`, duplicate keys, or more memory than json_memory_budget allows.
nlohmann::json parse_json_file(InputFile& file, std::vector<StreamedArray>& streamed,
                               int max_depth = 64);
// InputFile + parse_json_file, nothing streamed. `kind` sets the size limit and the messages.
nlohmann::json load_json_file(const std::string& path, InputKind kind = InputKind::kResults,
                              int max_depth = 64);
// Same checks on text already in memory (`name` labels errors).
nlohmann::json parse_json_text(const std::string& text, const std::string& name,
                               int max_depth = 64);

}  // namespace peerbench
