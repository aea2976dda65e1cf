// The method registry: the implementation of each catalogue entry. The catalogue
// (core/model/method_catalog.def) names each method's factory, make_<id>(), defined by its file
// under methods/; each implementation names the entry it implements, and make_methods() refuses a
// registry that disagrees with the catalogue. Adding a method is its file and its entry there.
#include <stdexcept>

#include "core/base/text.h"
#include "core/model/method_catalog.h"
#include "gpu/method.h"

namespace peerbench::gpu {

#define PEERBENCH_METHOD(id, info) std::unique_ptr<Method> make_##id();
#include "core/model/method_catalog.def"
#undef PEERBENCH_METHOD

namespace {

std::vector<std::unique_ptr<Method>> implementations() {
  std::vector<std::unique_ptr<Method>> m;
#define PEERBENCH_METHOD(id, info) m.push_back(make_##id());
#include "core/model/method_catalog.def"
#undef PEERBENCH_METHOD
  return m;
}

bool named(const std::vector<std::unique_ptr<Method>>& methods, const std::string& name) {
  for (const auto& m : methods) {
    if (m->info().name == name) return true;
  }
  return false;
}

// An entry's facts that follow from its implementation's behaviour, where they differ.
void behaviour_mismatches(const MethodInfo& entry, const Method& m, std::vector<std::string>& out) {
  const MethodInfo does = described(m);
  if (does.workers != entry.workers)
    out.push_back(entry.name + ": the catalogue says workers " + std::to_string(entry.workers) +
                  ", its implementation has " + std::to_string(does.workers));
  if (does.start_gated != entry.start_gated)
    out.push_back(entry.name + ": the catalogue says start_gated " +
                  (entry.start_gated ? "true" : "false") + ", its implementation " +
                  (does.start_gated ? "uses" : "skips") + " the start gate");
}

}  // namespace

std::vector<std::string> catalogue_mismatches(const std::vector<MethodInfo>& catalog,
                                              const std::vector<std::unique_ptr<Method>>& methods) {
  std::vector<std::string> out;
  std::vector<std::string> order_catalog, order_methods;
  for (const auto& e : catalog) {
    order_catalog.push_back(e.name);
    if (!named(methods, e.name))
      out.push_back("catalogue entry " + e.name + " has no implementation");
  }
  for (const auto& m : methods) {
    const MethodInfo* entry = find_method(catalog, m->info().name);
    if (!entry) {
      out.push_back("implementation " + m->info().name + " has no catalogue entry");
      continue;
    }
    order_methods.push_back(entry->name);
    behaviour_mismatches(*entry, *m, out);
  }
  if (out.empty() && order_methods != order_catalog)
    out.push_back("the implementations come in another order than the catalogue's: " +
                  join(order_methods));
  return out;
}

std::vector<std::string> registered_factories() {
  return {
#define PEERBENCH_METHOD(id, info) #id,
#include "core/model/method_catalog.def"
#undef PEERBENCH_METHOD
  };
}

std::vector<std::unique_ptr<Method>> make_methods() {
  auto methods = implementations();
  const auto wrong = catalogue_mismatches(peerbench::method_catalog(), methods);
  if (!wrong.empty()) {
    throw std::logic_error("the method registry disagrees with core/model/method_catalog.def: " +
                           join(wrong, "; "));
  }
  return methods;
}

}  // namespace peerbench::gpu
