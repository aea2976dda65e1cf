#include "core/model/json_in.h"

#include "core/base/text.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/base/errors.h"

namespace peerbench {

std::string quoted_value(const std::string& v) {
  constexpr std::size_t kMost = 64;
  const bool cut = v.size() > kMost;
  std::string head = v.substr(0, kMost);
  while (cut && !head.empty() && (static_cast<unsigned char>(head.back()) & 0xC0) == 0x80)
    head.pop_back();  // not inside a UTF-8 sequence
  if (cut && !head.empty() && static_cast<unsigned char>(head.back()) >= 0xC0) head.pop_back();
  return "'" + sanitize_for_terminal(head) +
         (cut ? "...' (" + std::to_string(v.size()) + " bytes)" : "'");
}

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

void JsonIn::only_keys(const std::vector<std::string>& known) const {
  require_object();
  for (const auto& [k, v] : j_->items()) {
    if (std::find(known.begin(), known.end(), k) == known.end())
      fail("unknown key " + quoted_value(k) + "; allowed: " + join(known));
  }
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

}  // namespace peerbench
