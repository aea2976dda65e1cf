#include "core/model/json_in.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <istream>
#include <sstream>
#include <streambuf>
#include <unordered_set>

#include "core/base/errors.h"

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
    // nlohmann reads 0 and every positive whole number as unsigned: lo applies here too.
    if (u > static_cast<unsigned long long>(hi) ||
        (lo > 0 && u < static_cast<unsigned long long>(lo))) {
      fail("number " + std::to_string(u) + " is outside " + std::to_string(lo) + " to " +
           std::to_string(hi));
    }
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

constexpr std::uint64_t kMemorySlack = 64ull << 20;

// Approximate heap cost of the DOM nlohmann builds (libstdc++, 64-bit, malloc's rounding): a
// value's slot in an array (16 bytes, plus growth), an object's map, an array's vector, a
// member's tree node holding its key and value, a string's buffer past the small-string size.
constexpr std::size_t kSlotBytes = 24;
constexpr std::size_t kObjectBytes = 64;
constexpr std::size_t kArrayBytes = 32;
constexpr std::size_t kMemberBytes = 96;

std::size_t heap_bytes(const std::string& s) {
  return s.size() > 15 ? s.size() + 17 : 0;
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

// The parser reads a file through the descriptor InputFile checked, 64 KiB at a time, without a
// copy of the whole text; it notes whether anything but white space came (an empty file).
class InputFileBuf : public std::streambuf {
 public:
  explicit InputFileBuf(InputFile& f) : f_(f) {}
  bool saw_text() const { return saw_text_; }

 protected:
  int_type underflow() override {
    const std::size_t n = f_.read_some(buf_.data(), buf_.size());
    if (n == 0) return traits_type::eof();
    if (!saw_text_) {
      saw_text_ = std::any_of(buf_.begin(), buf_.begin() + static_cast<long>(n),
                              [](char c) { return !is_space(c); });
    }
    setg(buf_.data(), buf_.data(), buf_.data() + n);
    return traits_type::to_int_type(buf_[0]);
  }

 private:
  InputFile& f_;
  std::array<char, 1 << 16> buf_{};
  bool saw_text_ = false;
};

struct ParseRules {
  int max_depth = 64;
  std::uint64_t memory_budget = 0;
  std::vector<StreamedArray>* streamed = nullptr;
};

// Builds the same DOM as nlohmann::json::parse, and also:
//  - refuses a repeated key, naming the field's path (nlohmann keeps the last of two equal keys,
//    so a second "schema_version" would silently win);
//  - refuses nesting deeper than the rules allow (hostile JSON exhausts stacks that way);
//  - hands each element of the streamed top-level arrays to its reader as soon as it is parsed,
//    then drops it, so the DOM never holds millions of results;
//  - keeps an estimate of the memory the DOM and the readers hold, and refuses a file that would
//    need more than its budget.
// (nlohmann's parser callback could drop elements too, but its DOM building is quadratic on large
// files: 100k results took 30 s instead of 2.5.)
class CheckedDomSax : public nlohmann::detail::json_sax_dom_parser<nlohmann::json> {
  using Base = nlohmann::detail::json_sax_dom_parser<nlohmann::json>;

 public:
  CheckedDomSax(nlohmann::json& root, const std::string& file, const ParseRules& rules)
      : Base(root, true), root_(root), file_(file), rules_(rules) {}

  bool start_object(std::size_t n) {
    begin_value(kObjectBytes);
    push(false);
    return Base::start_object(n);
  }
  bool start_array(std::size_t n) {
    begin_value(kArrayBytes);
    push(true);
    const bool ok = Base::start_array(n);
    maybe_start_stream();
    return ok;
  }
  bool key(std::string& k) {
    Frame& f = frames_[depth_ - 1];
    f.key = k;
    if (!f.add_key(k)) {
      throw InputError(file_, path(), "duplicate key; each key may appear once per object");
    }
    charge(kMemberBytes + heap_bytes(k));
    return Base::key(k);
  }
  bool end_object() {
    --depth_;
    const bool ok = Base::end_object();
    end_value();
    return ok;
  }
  bool end_array() {
    --depth_;
    if (depth_ < 2) stream_ = nullptr;
    const bool ok = Base::end_array();
    end_value();
    return ok;
  }
  bool null() {
    return scalar([&] { return Base::null(); });
  }
  bool boolean(bool v) {
    return scalar([&] { return Base::boolean(v); });
  }
  bool number_integer(std::int64_t v) {
    return scalar([&] { return Base::number_integer(v); });
  }
  bool number_unsigned(std::uint64_t v) {
    return scalar([&] { return Base::number_unsigned(v); });
  }
  bool number_float(double v, const std::string& s) {
    return scalar([&] { return Base::number_float(v, s); });
  }
  bool string(std::string& v) {
    return scalar([&] { return Base::string(v); }, heap_bytes(v));
  }
  bool binary(nlohmann::json::binary_t& v) {
    return scalar([&] { return Base::binary(v); }, v.size());
  }

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

  template <typename F>
  bool scalar(F&& add, std::size_t extra = 0) {
    begin_value(extra);
    const bool ok = add();
    end_value();
    return ok;
  }

  // Frames are reused, not popped: their key sets keep their buckets (fewer allocations).
  void push(bool array) {
    if (depth_ >= static_cast<std::size_t>(rules_.max_depth)) {
      throw InputError(file_, "",
                       "nested deeper than " + std::to_string(rules_.max_depth) + " levels");
    }
    if (depth_ == frames_.size()) frames_.emplace_back();
    Frame& f = frames_[depth_++];
    f.array = array;
    f.index = 0;
    f.key.clear();
    f.reset();
  }

  void charge(std::size_t bytes) {
    live_ += bytes;
    if (rules_.memory_budget && live_ > rules_.memory_budget) {
      throw InputError(file_, path(),
                       "too many small values for the file's size: reading it would take more "
                       "than " +
                           std::to_string(rules_.memory_budget >> 20) + " MiB (" +
                           std::to_string(kJsonMemoryFactor) +
                           " times the file's size plus 64 MiB); files peerbench writes need "
                           "about their own size");
    }
  }

  // A value begins in the innermost open container; an element of a streamed array starts the
  // count of what it costs.
  void begin_value(std::size_t bytes) {
    if (stream_ && depth_ == 2) mark_ = live_;
    const bool in_array = depth_ > 0 && frames_[depth_ - 1].array;
    charge(bytes + (in_array ? kSlotBytes : 0));  // an object's member was charged with its key
  }

  void end_value() {
    if (depth_ > 0 && frames_[depth_ - 1].array) ++frames_[depth_ - 1].index;
    if (stream_ && depth_ == 2) take_element();
  }

  // "results": [ -> the elements that follow go to that array's reader.
  void maybe_start_stream() {
    if (!rules_.streamed || depth_ != 2 || frames_[0].array || !root_.is_object()) return;
    for (auto& s : *rules_.streamed) {
      if (s.key != frames_[0].key) continue;
      stream_ = &s;
      stream_array_ = &root_[s.key];
      s.seen = true;
    }
  }

  void take_element() {
    auto& items = stream_array_->get_ref<nlohmann::json::array_t&>();
    const std::size_t index = frames_[1].index - 1;
    std::size_t kept = 0;
    if (!stream_->error && index >= stream_->max_items) {
      stream_->error = std::make_exception_ptr(
          InputError(file_, stream_->key,
                     "array of more than " + std::to_string(stream_->max_items) +
                         " items; at most " + std::to_string(stream_->max_items)));
    }
    if (!stream_->error) {
      try {
        kept = stream_->take(
            JsonIn(items.back(), file_, stream_->key + "[" + std::to_string(index) + "]"));
      } catch (const InputError&) {
        stream_->error = std::current_exception();  // reported in the reader's order, later
      }
    }
    items.pop_back();
    live_ = mark_;
    charge(kept);
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

  nlohmann::json& root_;
  const std::string& file_;
  ParseRules rules_;
  std::vector<Frame> frames_;
  std::size_t depth_ = 0;
  std::uint64_t live_ = 0;  // estimated bytes held by the DOM and the streamed arrays' readers
  std::uint64_t mark_ = 0;  // live_ when the streamed element being read began
  StreamedArray* stream_ = nullptr;
  nlohmann::json* stream_array_ = nullptr;
};

template <typename Input, typename SawText>
nlohmann::json parse_checked(Input&& input, const std::string& name, const ParseRules& rules,
                             SawText saw_text) {
  try {
    nlohmann::json j;
    CheckedDomSax sax(j, name, rules);
    nlohmann::json::sax_parse(std::forward<Input>(input), &sax);
    return j;
  } catch (const nlohmann::json::exception& e) {
    if (!saw_text()) throw InputError(name, "", "empty file; expected JSON");
    // parse_error for syntax, out_of_range for numbers beyond double (1e999), ...
    std::string what = e.what();
    const auto p = what.find("] ");  // drop "[json.exception.parse_error.101] "
    throw InputError(
        name, "", "not valid JSON (" + (p == std::string::npos ? what : what.substr(p + 2)) + ")");
  }
}

}  // namespace

std::size_t approx_json_bytes(const nlohmann::json& j) {
  if (j.is_object()) {
    std::size_t n = kObjectBytes;
    for (const auto& [k, v] : j.items()) n += kMemberBytes + heap_bytes(k) + approx_json_bytes(v);
    return n;
  }
  if (j.is_array()) {
    std::size_t n = kArrayBytes;
    for (const auto& v : j) n += kSlotBytes + approx_json_bytes(v);
    return n;
  }
  if (j.is_string()) return heap_bytes(j.get_ref<const std::string&>());
  return 0;
}

std::uint64_t json_memory_budget(std::uint64_t file_bytes) {
  return kJsonMemoryFactor * file_bytes + kMemorySlack;
}

nlohmann::json parse_json_text(const std::string& text, const std::string& name, int max_depth) {
  ParseRules rules;
  rules.max_depth = max_depth;
  // The whole DOM is built here (nothing streamed): a compact file of results takes about 7 times
  // its size as a DOM.
  rules.memory_budget = 4 * json_memory_budget(text.size());
  return parse_checked(text, name, rules, [&] {
    return std::any_of(text.begin(), text.end(), [](char c) { return !is_space(c); });
  });
}

nlohmann::json parse_json_file(InputFile& file, std::vector<StreamedArray>& streamed,
                               int max_depth) {
  ParseRules rules;
  rules.max_depth = max_depth;
  rules.memory_budget = json_memory_budget(file.size());
  rules.streamed = &streamed;
  InputFileBuf buf(file);
  std::istream in(&buf);
  return parse_checked(in, file.path(), rules, [&] { return buf.saw_text(); });
}

nlohmann::json load_json_file(const std::string& path, InputKind kind, int max_depth) {
  InputFile file(path, kind);
  std::vector<StreamedArray> none;
  return parse_json_file(file, none, max_depth);
}

}  // namespace peerbench
