#pragma once
// Strict, bounded reading of JSON written by peerbench (or by anyone else): every problem becomes
// one InputError naming the file and the field path, e.g. "a.json: field 'results[3].bytes':
// expected a whole number from 0 to 1e15, got string".
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace peerbench {

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

// Reads and parses a JSON file: refuses files over `max_bytes` and nesting deeper than
// `max_depth` before parsing; one InputError for unreadable, empty, truncated or non-JSON input.
nlohmann::json load_json_file(const std::string& path, std::size_t max_bytes = 256u << 20,
                              int max_depth = 64);
// Same checks on text already in memory (`name` labels errors).
nlohmann::json parse_json_text(const std::string& text, const std::string& name,
                               int max_depth = 64);

}  // namespace peerbench
