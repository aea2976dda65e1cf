#include "core/model/schema_diagnosis.h"

namespace peerbench {

using nlohmann::json;

namespace {

constexpr std::size_t kMaxListed = 100'000;  // pairs, GPUs, evidence of one cause
constexpr std::size_t kMaxText = 4096;

}  // namespace

json to_json(const DiagnosedCause& c) {
  json ev = json::array();
  for (const auto& e : c.evidence) ev.push_back({{"source", e.source}, {"fact", e.fact}});
  return {{"code", c.code}, {"strength", c.strength}, {"host", c.host},     {"pairs", c.pairs},
          {"gpus", c.gpus}, {"flags", c.flags},       {"states", c.states}, {"summary", c.summary},
          {"next", c.next}, {"evidence", ev}};
}

json diagnosis_json(const std::vector<DiagnosedCause>& causes) {
  json a = json::array();
  for (const auto& c : causes) a.push_back(to_json(c));
  return a;
}

// Codes are read as written: a newer peerbench's cause this one's table lacks is still shown
// (its summary and Next line travel with it).
DiagnosedCause diagnosed_cause_from(const JsonIn& in) {
  DiagnosedCause c;
  c.code = in.at("code").str(64);
  c.strength = in.at("strength").str(32);
  c.host = in.opt_str("host").value_or("");
  if (auto a = in.opt("pairs")) c.pairs = a->string_array(kMaxListed);
  if (auto a = in.opt("gpus")) c.gpus = a->string_array(kMaxListed);
  if (auto a = in.opt("flags")) c.flags = a->string_array(kMaxListed);
  if (auto a = in.opt("states")) c.states = a->string_array(kMaxListed);
  c.summary = in.at("summary").str(kMaxText);
  c.next = in.opt_str("next").value_or("");
  if (auto evs = in.opt("evidence")) {
    for (const auto& e : evs->array(kMaxListed))
      c.evidence.push_back({e.at("source").str(kMaxText), e.at("fact").str(kMaxText)});
  }
  return c;
}

}  // namespace peerbench
