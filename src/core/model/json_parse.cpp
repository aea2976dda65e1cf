// Parsing JSON files and text under limits: depth, the memory a document may take against the
// file's size, and the long arrays streamed out while parsing (json_in.h, StreamedArray).
#include "core/model/json_in.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <istream>
#include <sstream>
#include <streambuf>
#include <unordered_set>

#include "core/base/errors.h"

namespace peerbench {

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
  // linearly costs no allocation per key, and comparing hashes first keeps the scan off memcmp
  // (it was a sixth of `report`'s time on 100k results); past kLinear keys, a hash set takes over.
  struct Frame {
    static constexpr std::size_t kLinear = 48;
    bool array = false;
    std::size_t index = 0;
    std::string key;
    std::vector<std::string> few;  // capacity and strings reused across objects
    std::vector<std::size_t> few_hash;
    std::size_t nfew = 0;
    std::unordered_set<std::string> many;

    bool add_key(const std::string& k) {
      if (nfew < kLinear) {
        const std::size_t h = std::hash<std::string>{}(k);
        for (std::size_t i = 0; i < nfew; ++i) {
          if (few_hash[i] == h && few[i] == k) return false;
        }
        if (few.size() == nfew) {
          few.emplace_back();
          few_hash.emplace_back();
        }
        few_hash[nfew] = h;
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
