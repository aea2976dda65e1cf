#include "core/json_in.h"

#include <sys/stat.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <unordered_set>

#include "core/errors.h"

namespace peerbench {

JsonIn::JsonIn(const nlohmann::json& j, std::string file, std::string path)
    : j_(&j), file_(std::make_shared<const std::string>(std::move(file))) {
  if (!path.empty()) link_ = std::make_shared<const Link>(Link{nullptr, std::move(path), 0});
}

std::string JsonIn::path() const {
  std::vector<const Link*> chain;
  for (const Link* l = link_.get(); l; l = l->parent.get()) chain.push_back(l);
  std::string p;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const Link* l = *it;
    if (l->key.empty()) {
      p += "[" + std::to_string(l->index) + "]";
    } else {
      p += (p.empty() ? "" : ".") + l->key;
    }
  }
  return p;
}

JsonIn JsonIn::member(const nlohmann::json& v, const std::string& key) const {
  return JsonIn(&v, file_, std::make_shared<const Link>(Link{link_, key, 0}));
}

std::string JsonIn::child(const std::string& key) const {
  const std::string p = path();
  return p.empty() ? key : p + "." + key;
}

std::string JsonIn::type_name() const {
  return j_->type_name();
}

void JsonIn::fail(const std::string& problem) const {
  const std::string p = path();
  throw InputError(*file_, p.empty() ? "(top level)" : p, problem);
}

void JsonIn::require_object() const {
  if (!j_->is_object()) fail(std::string("expected an object, got ") + type_name());
}

bool JsonIn::has(const std::string& key) const {
  return j_->is_object() && j_->contains(key) && !(*j_)[key].is_null();
}

JsonIn JsonIn::at(const std::string& key) const {
  require_object();
  auto it = j_->find(key);
  if (it == j_->end()) throw InputError(*file_, child(key), "missing");
  return member(*it, key);
}

std::optional<JsonIn> JsonIn::opt(const std::string& key) const {
  require_object();
  auto it = j_->find(key);
  if (it == j_->end() || it->is_null()) return std::nullopt;
  return member(*it, key);
}

std::string JsonIn::str(std::size_t max_len) const {
  if (!j_->is_string()) fail(std::string("expected a string, got ") + type_name());
  const auto& s = j_->get_ref<const std::string&>();
  if (s.size() > max_len) fail("string longer than " + std::to_string(max_len) + " characters");
  return s;
}

double JsonIn::number(double lo, double hi) const {
  if (!j_->is_number()) fail(std::string("expected a number, got ") + type_name());
  const double v = j_->get<double>();
  if (!std::isfinite(v) || v < lo || v > hi) {
    std::ostringstream m;
    m << "number " << v << " is outside " << lo << " to " << hi;
    fail(m.str());
  }
  return v;
}

long long JsonIn::integer(long long lo, long long hi) const {
  if (!j_->is_number_integer() && !j_->is_number_unsigned()) {
    if (j_->is_number_float()) {
      const double d = j_->get<double>();
      if (std::isfinite(d) && std::floor(d) == d && d >= static_cast<double>(lo) &&
          d <= static_cast<double>(hi)) {
        return static_cast<long long>(d);
      }
    }
    fail("expected a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) +
         ", got " +
         (j_->is_number() ? std::string("fraction or out-of-range number") : type_name()));
  }
  if (j_->is_number_unsigned()) {
    const auto u = j_->get<unsigned long long>();
    if (u > static_cast<unsigned long long>(hi))
      fail("number " + std::to_string(u) + " is too large");
    return static_cast<long long>(u);
  }
  const auto v = j_->get<long long>();
  if (v < lo || v > hi) {
    fail("number " + std::to_string(v) + " is outside " + std::to_string(lo) + " to " +
         std::to_string(hi));
  }
  return v;
}

bool JsonIn::boolean() const {
  if (!j_->is_boolean()) fail(std::string("expected true or false, got ") + type_name());
  return j_->get<bool>();
}

std::vector<JsonIn> JsonIn::array(std::size_t max_items) const {
  if (!j_->is_array()) fail(std::string("expected an array, got ") + type_name());
  if (j_->size() > max_items) {
    fail("array of " + std::to_string(j_->size()) + " items; at most " + std::to_string(max_items));
  }
  std::vector<JsonIn> out;
  out.reserve(j_->size());
  for (std::size_t i = 0; i < j_->size(); ++i) {
    out.push_back(JsonIn(&(*j_)[i], file_, std::make_shared<const Link>(Link{link_, "", i})));
  }
  return out;
}

std::vector<std::string> JsonIn::string_array(std::size_t max_items) const {
  std::vector<std::string> out;
  for (const auto& e : array(max_items)) out.push_back(e.str());
  return out;
}

std::optional<std::string> JsonIn::opt_str(const std::string& key) const {
  auto o = opt(key);
  if (!o) return std::nullopt;
  return o->str();
}
std::optional<double> JsonIn::opt_number(const std::string& key, double lo, double hi) const {
  auto o = opt(key);
  if (!o) return std::nullopt;
  return o->number(lo, hi);
}
std::optional<long long> JsonIn::opt_integer(const std::string& key, long long lo,
                                             long long hi) const {
  auto o = opt(key);
  if (!o) return std::nullopt;
  return o->integer(lo, hi);
}
std::optional<bool> JsonIn::opt_bool(const std::string& key) const {
  auto o = opt(key);
  if (!o) return std::nullopt;
  return o->boolean();
}

namespace {

// nlohmann keeps the last of two equal keys, so a second "schema_version" would silently win.
// This SAX handler builds the same DOM as nlohmann::json::parse and refuses a repeated key,
// naming the field's path. (The parser's callback could see keys too, but its DOM building is
// quadratic on large files: 100k results took 30 s instead of 2.5.)
class CheckedDomSax : public nlohmann::detail::json_sax_dom_parser<nlohmann::json> {
  using Base = nlohmann::detail::json_sax_dom_parser<nlohmann::json>;

 public:
  CheckedDomSax(nlohmann::json& root, const std::string& file) : Base(root, true), file_(file) {}

  bool start_object(std::size_t n) {
    push(false);
    return Base::start_object(n);
  }
  bool start_array(std::size_t n) {
    push(true);
    return Base::start_array(n);
  }
  bool key(std::string& k) {
    Frame& f = frames_[depth_ - 1];
    f.key = k;
    if (!f.add_key(k)) {
      throw InputError(file_, path(), "duplicate key; each key may appear once per object");
    }
    return Base::key(k);
  }
  bool end_object() {
    --depth_;
    element_done();
    return Base::end_object();
  }
  bool end_array() {
    --depth_;
    element_done();
    return Base::end_array();
  }
  bool null() { return element_done(), Base::null(); }
  bool boolean(bool v) { return element_done(), Base::boolean(v); }
  bool number_integer(std::int64_t v) { return element_done(), Base::number_integer(v); }
  bool number_unsigned(std::uint64_t v) { return element_done(), Base::number_unsigned(v); }
  bool number_float(double v, const std::string& s) {
    return element_done(), Base::number_float(v, s);
  }
  bool string(std::string& v) { return element_done(), Base::string(v); }
  bool binary(nlohmann::json::binary_t& v) { return element_done(), Base::binary(v); }

 private:
  // Keys seen in the object being read. Results objects have ~25 keys: a reused vector scanned
  // linearly costs no allocation per key; past kLinear keys, a hash set takes over.
  struct Frame {
    static constexpr std::size_t kLinear = 48;
    bool array = false;
    std::size_t index = 0;
    std::string key;
    std::vector<std::string> few;  // capacity and strings reused across objects
    std::size_t nfew = 0;
    std::unordered_set<std::string> many;

    bool add_key(const std::string& k) {
      if (nfew < kLinear) {
        for (std::size_t i = 0; i < nfew; ++i) {
          if (few[i] == k) return false;
        }
        if (few.size() == nfew) few.emplace_back();
        few[nfew++].assign(k);
        return true;
      }
      if (many.empty()) many.insert(few.begin(), few.begin() + static_cast<long>(nfew));
      return many.insert(k).second;
    }
    void reset() {
      nfew = 0;
      // clear() costs the bucket count: after a large object, start afresh.
      if (many.bucket_count() > 256) {
        many = {};
      } else {
        many.clear();
      }
    }
  };

  // Frames are reused, not popped: their key sets keep their buckets (fewer allocations).
  void push(bool array) {
    if (depth_ == frames_.size()) frames_.emplace_back();
    Frame& f = frames_[depth_++];
    f.array = array;
    f.index = 0;
    f.key.clear();
    f.reset();
  }

  void element_done() {
    if (depth_ > 0 && frames_[depth_ - 1].array) ++frames_[depth_ - 1].index;
  }

  std::string path() const {
    std::string p;
    for (std::size_t d = 0; d < depth_; ++d) {
      const Frame& f = frames_[d];
      if (f.array) {
        p += "[" + std::to_string(f.index) + "]";
      } else {
        p += (p.empty() ? "" : ".") + f.key;
      }
    }
    return p;
  }

  const std::string& file_;
  std::vector<Frame> frames_;
  std::size_t depth_ = 0;
};

}  // namespace

nlohmann::json parse_json_text(const std::string& text, const std::string& name, int max_depth) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw InputError(name, "", "empty file; expected JSON");
  }
  // Depth check before parsing: deep nesting is how hostile JSON exhausts a stack.
  int depth = 0;
  bool in_string = false;
  bool escape = false;
  for (char c : text) {
    if (in_string) {
      if (escape) {
        escape = false;
      } else if (c == '\\') {
        escape = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) {
        throw InputError(name, "", "nested deeper than " + std::to_string(max_depth) + " levels");
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  try {
    nlohmann::json j;
    CheckedDomSax sax(j, name);
    nlohmann::json::sax_parse(text, &sax);
    return j;
  } catch (const nlohmann::json::exception& e) {
    // parse_error for syntax, out_of_range for numbers beyond double (1e999), ...
    std::string what = e.what();
    const auto p = what.find("] ");  // drop "[json.exception.parse_error.101] "
    throw InputError(
        name, "", "not valid JSON (" + (p == std::string::npos ? what : what.substr(p + 2)) + ")");
  }
}

nlohmann::json load_json_file(const std::string& path, std::size_t max_bytes, int max_depth) {
  struct stat st {};
  const bool known = ::stat(path.c_str(), &st) == 0;
  if (known && S_ISDIR(st.st_mode)) throw InputError(path, "", "is a folder; give a JSON file");
  const auto too_large = [&] {
    throw InputError(path, "", "larger than " + std::to_string(max_bytes) + " bytes");
  };
  if (known && S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    too_large();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open for reading");
  // Read in bounded chunks rather than trusting a size: pipes and devices have none.
  std::string text;
  if (known && S_ISREG(st.st_mode)) text.reserve(static_cast<std::size_t>(st.st_size));
  char buf[1 << 16];
  while (in.read(buf, sizeof(buf)) || in.gcount() > 0) {
    text.append(buf, static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes) too_large();
  }
  if (in.bad()) throw InputError(path, "", "read failed");
  return parse_json_text(text, path, max_depth);
}

}  // namespace peerbench
