// Looking up a known-good figure: the model by its NVML name, the curve by link, method, ranks and
// NVLS state, the figure by size (log-size interpolation, never extrapolation).
#include "core/model/known_good.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "core/base/text.h"
#include "core/model/sizes.h"

namespace peerbench {
namespace {

// Upper case, the given characters as spaces, runs of spaces as one, no space at either end.
std::string fold(const std::string& s, const std::string& as_space) {
  std::string out;
  for (char ch : s) {
    const bool space =
        std::isspace(static_cast<unsigned char>(ch)) || as_space.find(ch) != std::string::npos;
    if (space) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    }
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

bool ranks_fit(const KnownGoodCurve& c, int ranks) {
  return !c.ranks || *c.ranks == ranks;
}

bool nvls_fits(const KnownGoodCurve& c, const std::optional<bool>& nvls) {
  if (c.nvls == NvlsState::kNotApplicable || !nvls) return true;
  return (c.nvls == NvlsState::kOn) == *nvls;
}

std::string ranks_text(const std::optional<int>& ranks) {
  return ranks ? std::to_string(*ranks) + " ranks" : "one pair or GPU at a time";
}

KnownGoodLookup unknown(std::string why) {
  KnownGoodLookup l;
  l.why_unknown = std::move(why);
  return l;
}

// Among curves that fit, one whose NVLS state the query names beats one that merely allows it.
const KnownGoodCurve* pick(const std::vector<const KnownGoodCurve*>& fit,
                           const std::optional<bool>& nvls) {
  if (fit.size() == 1) return fit.front();
  if (!nvls) return nullptr;
  const NvlsState want = *nvls ? NvlsState::kOn : NvlsState::kOff;
  const KnownGoodCurve* found = nullptr;
  for (const auto* c : fit) {
    if (c->nvls != want) continue;
    if (found) return nullptr;
    found = c;
  }
  return found;
}

}  // namespace

std::string normalize_gpu_name(const std::string& name) {
  std::string n = fold(name, "-_");
  if (n.rfind("NVIDIA ", 0) == 0) n.erase(0, 7);
  return n;
}

std::string normalize_link_label(const std::string& label) {
  return fold(label, "_");
}

std::string to_string(NvlsState s) {
  switch (s) {
    case NvlsState::kOn:
      return "on";
    case NvlsState::kOff:
      return "off";
    case NvlsState::kNotApplicable:
      break;
  }
  return "n/a";
}

std::string to_string(KnownGoodBasis b) {
  switch (b) {
    case KnownGoodBasis::kInterpolated:
      return "interpolated";
    case KnownGoodBasis::kLargestSize:
      return "largest-size";
    case KnownGoodBasis::kExact:
      break;
  }
  return "exact";
}

std::string KnownGoodFigure::describe() const {
  std::string s = format_fixed(value, unit == "us" ? 2 : 1) + " " + unit + " (" + model + ", " +
                  link + ", " + ranks_text(ranks);
  if (basis == KnownGoodBasis::kInterpolated) {
    s += "; between " + format_size(from_bytes) + " and " + format_size(to_bytes);
  } else if (basis == KnownGoodBasis::kLargestSize) {
    s += "; the table's largest size, " + format_size(from_bytes);
  } else {
    s += "; at " + format_size(from_bytes);
  }
  return s + "; source: " + source_id + ")";
}

KnownGoodTable::KnownGoodTable(std::vector<KnownGoodModel> models,
                               std::vector<KnownGoodSource> sources,
                               std::vector<KnownGoodCurve> curves, std::vector<KnownGoodGap> gaps)
    : models_(std::move(models)),
      sources_(std::move(sources)),
      curves_(std::move(curves)),
      gaps_(std::move(gaps)) {}

std::optional<std::string> KnownGoodTable::model_of(const std::string& gpu_name) const {
  const std::string n = normalize_gpu_name(gpu_name);
  if (n.empty()) return std::nullopt;
  for (const auto& m : models_) {
    for (const auto& alias : m.nvml_names) {
      if (normalize_gpu_name(alias) == n) return m.model;
    }
  }
  return std::nullopt;
}

std::optional<int> KnownGoodTable::nvlinks_of(const std::string& gpu_name) const {
  const auto model = model_of(gpu_name);
  for (const auto& m : models_) {
    if (model && m.model == *model) return m.nvlinks;
  }
  return std::nullopt;
}

const KnownGoodSource* KnownGoodTable::source(const std::string& id) const {
  for (const auto& s : sources_) {
    if (s.id == id) return &s;
  }
  return nullptr;
}

std::vector<const KnownGoodCurve*> KnownGoodTable::curves_for(const std::string& model,
                                                              const std::string& link) const {
  std::vector<const KnownGoodCurve*> out;
  for (const auto& c : curves_) {
    if (c.model == model && normalize_link_label(c.link) == link) out.push_back(&c);
  }
  return out;
}

KnownGoodLookup KnownGoodTable::lookup(const KnownGoodQuery& q) const {
  const auto model = model_of(q.gpu_name);
  if (!model) {
    std::vector<std::string> known;
    for (const auto& m : models_) known.push_back(m.model);
    return unknown("GPU model '" + q.gpu_name + "' has no known-good figures (the table knows " +
                   join(known) + ")");
  }
  const std::string link = normalize_link_label(q.link);
  std::vector<const KnownGoodCurve*> of_method, fit;
  for (const auto* c : curves_for(*model, link)) {
    if (c->method != q.method) continue;
    of_method.push_back(c);
    if (ranks_fit(*c, q.ranks) && nvls_fits(*c, q.nvls)) fit.push_back(c);
  }
  if (fit.empty()) return unknown(missing_reason(q, *model, link, of_method));
  const KnownGoodCurve* c = pick(fit, q.nvls);
  if (!c) {
    return unknown("known-good figures for " + q.method + " on " + *model + " over " + q.link +
                   " differ with NVLS on and off; the NVLS state was not given");
  }
  return figure_on(*c, q.bytes);
}

// Why no curve answers: no figures over that link at all, none for the method (with the gap entry
// that says what was searched for), or none for this rank count or NVLS state.
std::string KnownGoodTable::missing_reason(
    const KnownGoodQuery& q, const std::string& model, const std::string& link,
    const std::vector<const KnownGoodCurve*>& of_method) const {
  const std::string what = q.method + " on " + model + " over " + q.link;
  if (of_method.empty()) {
    for (const auto& g : gaps_) {
      const bool method =
          std::find(g.methods.begin(), g.methods.end(), q.method) != g.methods.end();
      if (g.model == model && normalize_link_label(g.link) == link && method &&
          (!g.ranks || *g.ranks == q.ranks)) {
        return "no known-good figure for " + what + ": " + g.reason;
      }
    }
    if (curves_for(model, link).empty()) {
      return "no known-good figures for " + model + " over " + q.link;
    }
    return "no known-good figure for " + what;
  }
  std::set<std::string> have;
  for (const auto* c : of_method) {
    have.insert(ranks_text(c->ranks) +
                (c->nvls == NvlsState::kNotApplicable ? "" : " with NVLS " + to_string(c->nvls)));
  }
  return "known-good figures for " + what + " are for " +
         join(std::vector<std::string>(have.begin(), have.end()), " and ") + ", not for " +
         std::to_string(q.ranks) + " ranks" +
         (q.nvls ? std::string(" with NVLS ") + (*q.nvls ? "on" : "off") : "");
}

KnownGoodLookup KnownGoodTable::figure_on(const KnownGoodCurve& c, std::uint64_t bytes) const {
  const auto& p = c.points;
  if (bytes < p.front().bytes) {
    return unknown(format_size(bytes) + " is below the smallest known-good size for " + c.method +
                   " on " + c.model + " over " + c.link + " (" + format_size(p.front().bytes) +
                   "); figures are not extrapolated");
  }
  KnownGoodFigure f;
  std::size_t i = 0;
  while (i + 1 < p.size() && p[i + 1].bytes <= bytes) ++i;
  f.from_bytes = f.to_bytes = p[i].bytes;
  f.value = p[i].value;
  if (p[i].bytes == bytes) {
    f.basis = KnownGoodBasis::kExact;
  } else if (i + 1 == p.size()) {
    f.basis = KnownGoodBasis::kLargestSize;
  } else {
    f.basis = KnownGoodBasis::kInterpolated;
    f.to_bytes = p[i + 1].bytes;
    const double t = std::log(double(bytes) / double(p[i].bytes)) /
                     std::log(double(p[i + 1].bytes) / double(p[i].bytes));
    f.value = p[i].value + t * (p[i + 1].value - p[i].value);
  }
  f.unit = c.unit;
  f.model = c.model;
  f.link = c.link;
  f.ranks = c.ranks;
  f.nvls = c.nvls;
  f.conditions = c.conditions;
  f.measured_on = c.measured_on;
  f.source_id = c.source;
  if (const auto* s = source(c.source)) {
    f.citation = s->citation;
    f.url = s->url;
  }
  KnownGoodLookup l;
  l.figure = std::move(f);
  return l;
}

}  // namespace peerbench
