// libFuzzer target: any bytes given to report/compare's reader, then the verdicts and every
// reporter on whatever it accepts. Only InputError may come out; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/base/errors.h"
#include "core/judge/verdict.h"
#include "core/model/json_in.h"
#include "core/model/json_text.h"
#include "core/model/method_catalog.h"
#include "core/model/results_validate.h"
#include "core/model/schema.h"
#include "core/present/report.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace peerbench;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto j = parse_json_text(text, "fuzz.json");
    try {
      (void)expectations_from_json(j, "fuzz.json", method_catalog());
    } catch (const InputError&) {
    }
    const RunDocument d = run_document_from_json(j, "fuzz.json");
    validate_run_document(d, "fuzz.json");  // as load_run_file does
    ReportInput in;
    in.path = "fuzz.json";
    in.doc = &d;
    in.verdicts = compute_verdicts(d, {});
    for (auto f :
         {ReportFormat::kText, ReportFormat::kMarkdown, ReportFormat::kHtml, ReportFormat::kCsv}) {
      (void)make_reporter(f)->render({in}, {});
    }
    (void)json_text(to_json(d));
  } catch (const InputError&) {
  }
  return 0;
}
