#include "core/present/relative_link.h"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>

namespace peerbench {
namespace {

namespace fs = std::filesystem;

// An absolute path with every existing part's symbolic links resolved, so two spellings of one
// folder give the same path.
fs::path resolved(const fs::path& p) {
  std::error_code ec;
  fs::path abs = fs::absolute(p, ec);
  if (ec) abs = p;
  fs::path out = fs::weakly_canonical(abs, ec);
  return ec ? abs.lexically_normal() : out;
}

std::string percent_encoded(const std::string& path) {
  std::string out;
  for (char ch : path) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      out += ch;
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

}  // namespace

std::string relative_link(const std::string& target, const std::string& document) {
  const fs::path from = document.empty() ? fs::path(".")
                        : fs::path(document).parent_path().empty()
                            ? fs::path(".")
                            : fs::path(document).parent_path();
  const fs::path rel = resolved(target).lexically_relative(resolved(from));
  // Different roots cannot be related: the absolute path then.
  const std::string link = rel.empty() ? resolved(target).generic_string() : rel.generic_string();
  return percent_encoded(link);
}

}  // namespace peerbench
