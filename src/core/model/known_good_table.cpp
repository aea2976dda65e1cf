// Strict reading of the known-good table files (data/known_good/*.json) and their merge into one
// table. The files are ours, but a typo in a hand-entered figure must fail a test, not slip into
// every report: unknown keys, duplicates and inconsistent figures are refused.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "core/base/errors.h"
#include "core/base/text.h"
#include "core/model/json_in.h"
#include "core/model/known_good.h"

namespace peerbench {
namespace {

constexpr std::size_t kMaxTableItems = 100000;
constexpr long long kMaxTableBytes = 1LL << 50;
constexpr long long kMaxRanks = 1 << 20;

// A curve or gap with the place it came from, so errors found only after the merge (a model no
// file declares) still name the file and the field.
template <typename T>
struct Placed {
  T item;
  std::string file;
  std::string path;
};

struct ParsedFile {
  std::vector<Placed<KnownGoodModel>> models;
  std::vector<Placed<KnownGoodSource>> sources;
  std::vector<Placed<KnownGoodCurve>> curves;
  std::vector<Placed<KnownGoodGap>> gaps;
};

std::string nonempty_str(const JsonIn& in) {
  std::string s = in.str(4096);
  if (s.empty()) in.fail("must not be empty");
  return s;
}

double positive(const JsonIn& in) {
  const double v = in.number(0, 1e9);
  if (v <= 0) in.fail("a figure must be above 0");
  return v;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// A figure read from a matrix keeps the matrix: the figure must be its median.
void check_samples(const JsonIn& in, double value) {
  std::vector<double> v;
  for (const auto& s : in.array(kMaxTableItems)) v.push_back(positive(s));
  if (v.empty()) in.fail("must hold at least one figure");
  const double m = median_of(v);
  if (std::fabs(m - value) > 5e-4 + 1e-9 * value) {
    in.fail("median " + format_fixed(m, 4) + " is not the point's value " + format_fixed(value, 4));
  }
}

void read_point_facts(const JsonIn& in, KnownGoodPoint& p) {
  if (auto d = in.opt("detail")) p.detail = d->str(4096);
  if (auto n = in.opt("n")) n->integer(1, kMaxTableItems);
  if (auto lo = in.opt("min")) positive(*lo);
  if (auto hi = in.opt("max")) positive(*hi);
  if (auto f = in.opt("files")) f->string_array(kMaxTableItems);
  if (auto b = in.opt("beyond_2pct")) p.beyond_tolerance = b->string_array(kMaxTableItems);
  if (auto c = in.opt("cross_check")) {
    c->only_keys({"value", "source"});
    p.cross_check = positive(c->at("value"));
    p.cross_check_source = nonempty_str(c->at("source"));
  }
}

KnownGoodPoint parse_point(const JsonIn& in) {
  in.only_keys({"bytes", "value", "detail", "samples", "n", "min", "max", "files", "beyond_2pct",
                "cross_check"});
  KnownGoodPoint p;
  p.bytes = static_cast<std::uint64_t>(in.at("bytes").integer(1, kMaxTableBytes));
  p.value = positive(in.at("value"));
  if (auto s = in.opt("samples")) check_samples(*s, p.value);
  read_point_facts(in, p);
  return p;
}

std::vector<KnownGoodPoint> parse_points(const JsonIn& in) {
  std::vector<KnownGoodPoint> points;
  const auto items = in.array(kMaxTableItems);
  if (items.empty()) in.fail("a curve needs at least one point");
  for (const auto& item : items) {
    points.push_back(parse_point(item));
    if (points.size() > 1 && points[points.size() - 2].bytes >= points.back().bytes) {
      item.at("bytes").fail("sizes must grow strictly from point to point");
    }
  }
  return points;
}

NvlsState parse_nvls(const JsonIn& in) {
  const std::string s = in.str(16);
  if (s == "on") return NvlsState::kOn;
  if (s == "off") return NvlsState::kOff;
  in.fail("must be \"on\", \"off\" or null, got \"" + s + "\"");
}

KnownGoodCurve parse_curve(const JsonIn& in) {
  in.only_keys({"model", "link", "ranks", "gpus_in_system", "method", "unit", "nvls", "conditions",
                "source", "measured_on", "points", "note"});
  KnownGoodCurve c;
  c.model = nonempty_str(in.at("model"));
  c.link = nonempty_str(in.at("link"));
  if (auto r = in.opt("ranks")) c.ranks = static_cast<int>(r->integer(2, kMaxRanks));
  if (auto g = in.opt("gpus_in_system")) g->integer(1, kMaxRanks);
  c.method = nonempty_str(in.at("method"));
  c.unit = nonempty_str(in.at("unit"));
  if (c.unit != "GB/s" && c.unit != "busbw GB/s" && c.unit != "us") {
    in.at("unit").fail("must be \"GB/s\", \"busbw GB/s\" or \"us\", got \"" + c.unit + "\"");
  }
  if (auto n = in.opt("nvls")) c.nvls = parse_nvls(*n);
  if (auto s = in.opt("conditions")) c.conditions = s->str(4096);
  if (auto n = in.opt("note")) n->str(4096);
  c.source = nonempty_str(in.at("source"));
  if (auto m = in.opt("measured_on")) c.measured_on = m->str(256);
  c.points = parse_points(in.at("points"));
  return c;
}

KnownGoodGap parse_gap(const JsonIn& in) {
  in.only_keys({"model", "link", "ranks", "methods", "reason"});
  KnownGoodGap g;
  g.model = nonempty_str(in.at("model"));
  g.link = nonempty_str(in.at("link"));
  if (auto r = in.opt("ranks")) g.ranks = static_cast<int>(r->integer(2, kMaxRanks));
  g.methods = in.at("methods").string_array(1000);
  if (g.methods.empty()) in.at("methods").fail("must name at least one method");
  g.reason = nonempty_str(in.at("reason"));
  return g;
}

KnownGoodModel parse_model(const JsonIn& in) {
  in.only_keys({"model", "nvml_names", "note", "nvlinks"});
  KnownGoodModel m;
  m.model = nonempty_str(in.at("model"));
  m.nvml_names = in.at("nvml_names").string_array(100);
  if (m.nvml_names.empty()) in.at("nvml_names").fail("must list at least one name");
  if (auto n = in.opt("note")) m.note = n->str(4096);
  if (auto n = in.opt_integer("nvlinks", 1, 64)) m.nvlinks = static_cast<int>(*n);
  return m;
}

KnownGoodSource parse_source(const JsonIn& in) {
  in.only_keys({"id", "kind", "citation", "url"});
  KnownGoodSource s;
  s.id = nonempty_str(in.at("id"));
  s.kind = nonempty_str(in.at("kind"));
  s.citation = nonempty_str(in.at("citation"));
  if (auto u = in.opt("url")) s.url = u->str(4096);
  return s;
}

template <typename T, typename Parse>
void parse_list(const JsonIn& in, const std::string& key, Parse parse,
                std::vector<Placed<T>>& out) {
  auto list = in.opt(key);
  if (!list) return;
  for (const auto& item : list->array(kMaxTableItems)) {
    out.push_back({parse(item), item.file(), item.path()});
  }
}

ParsedFile parse_file(const KnownGoodText& f) {
  const auto j = parse_json_text(f.text, f.origin);
  JsonIn in(j, f.origin);
  in.only_keys({"format", "format_version", "description", "generated_by", "inputs", "not_tabled",
                "models", "sources", "curves", "gaps"});
  if (in.at("format").str(64) != "peerbench-known-good") {
    in.at("format").fail("must be \"peerbench-known-good\"");
  }
  in.at("format_version").integer(1, 1);
  ParsedFile p;
  parse_list<KnownGoodModel>(in, "models", parse_model, p.models);
  parse_list<KnownGoodSource>(in, "sources", parse_source, p.sources);
  parse_list<KnownGoodCurve>(in, "curves", parse_curve, p.curves);
  parse_list<KnownGoodGap>(in, "gaps", parse_gap, p.gaps);
  return p;
}

// Every NVML name belongs to one model, and every model is declared once.
std::set<std::string> check_models(const std::vector<Placed<KnownGoodModel>>& models) {
  std::set<std::string> names;
  std::map<std::string, std::string> owner;  // normalized NVML name -> model
  for (const auto& m : models) {
    if (!names.insert(m.item.model).second) {
      throw InputError(m.file, m.path + ".model", "model '" + m.item.model + "' declared twice");
    }
    for (const auto& n : m.item.nvml_names) {
      const auto [it, fresh] = owner.emplace(normalize_gpu_name(n), m.item.model);
      if (!fresh) {
        throw InputError(m.file, m.path + ".nvml_names",
                         "'" + n + "' already belongs to model '" + it->second + "'");
      }
    }
  }
  return names;
}

std::set<std::string> check_sources(const std::vector<Placed<KnownGoodSource>>& sources) {
  std::set<std::string> ids;
  for (const auto& s : sources) {
    if (!ids.insert(s.item.id).second) {
      throw InputError(s.file, s.path + ".id", "source '" + s.item.id + "' declared twice");
    }
  }
  return ids;
}

void check_reference(const std::set<std::string>& known, const std::string& name,
                     const std::string& what, const std::string& file, const std::string& path) {
  if (!known.count(name)) {
    throw InputError(file, path, what + " '" + name + "' is declared in no table file");
  }
}

// Curves refer to declared models and sources, and no two answer the same question.
void check_curves(const std::vector<Placed<KnownGoodCurve>>& curves,
                  const std::set<std::string>& models, const std::set<std::string>& sources) {
  std::set<std::tuple<std::string, std::string, int, std::string, NvlsState>> keys;
  for (const auto& pc : curves) {
    const auto& c = pc.item;
    check_reference(models, c.model, "model", pc.file, pc.path + ".model");
    check_reference(sources, c.source, "source", pc.file, pc.path + ".source");
    for (std::size_t i = 0; i < c.points.size(); ++i) {
      if (c.points[i].cross_check) {
        check_reference(sources, c.points[i].cross_check_source, "source", pc.file,
                        pc.path + ".points[" + std::to_string(i) + "].cross_check.source");
      }
    }
    const auto key = std::make_tuple(c.model, normalize_link_label(c.link), c.ranks.value_or(0),
                                     c.method, c.nvls);
    if (!keys.insert(key).second) {
      throw InputError(pc.file, pc.path,
                       "a second curve for " + c.model + ", " + c.link + ", " + c.method +
                           " with the same ranks and NVLS state");
    }
  }
}

}  // namespace

KnownGoodTable parse_known_good_tables(const std::vector<KnownGoodText>& files) {
  ParsedFile all;
  for (const auto& f : files) {
    auto p = parse_file(f);
    all.models.insert(all.models.end(), p.models.begin(), p.models.end());
    all.sources.insert(all.sources.end(), p.sources.begin(), p.sources.end());
    all.curves.insert(all.curves.end(), p.curves.begin(), p.curves.end());
    all.gaps.insert(all.gaps.end(), p.gaps.begin(), p.gaps.end());
  }
  const auto models = check_models(all.models);
  check_curves(all.curves, models, check_sources(all.sources));
  for (const auto& g : all.gaps) check_reference(models, g.item.model, "model", g.file, g.path);
  auto items = [](const auto& placed) {
    std::vector<std::decay_t<decltype(placed.front().item)>> out;
    for (const auto& p : placed) out.push_back(p.item);
    return out;
  };
  return KnownGoodTable(items(all.models), items(all.sources), items(all.curves), items(all.gaps));
}

const KnownGoodTable& builtin_known_good_table() {
  static const KnownGoodTable table = parse_known_good_tables(builtin_known_good_texts());
  return table;
}

}  // namespace peerbench
