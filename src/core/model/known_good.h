#pragma once
// Known-good figures: what a healthy GPU model delivers over a link, per method and size, with the
// source of every figure (data/known_good/*.json, compiled into the binary; README.md there).
// GPU-free: the caller says which model (as NVML/CUDA name it), link, rank count, method and size;
// the table answers with the expected figure or says why it has none.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace peerbench {

// One table size and its figure. Optional facts are kept for reports and tests.
struct KnownGoodPoint {
  std::uint64_t bytes = 0;
  double value = 0;
  std::string detail;                         // where in the source the figure was read
  std::optional<double> cross_check;          // the same case measured by another tool
  std::string cross_check_source;             // its source id
  std::vector<std::string> beyond_tolerance;  // runs more than 2 % from a derived median
};

// NCCL's NVLink SHARP algorithm (all-reduce through NVSwitch): on, off, or not part of the case.
enum class NvlsState { kNotApplicable, kOn, kOff };

// Figures of one model, link, rank count and method, from one source, by size.
struct KnownGoodCurve {
  std::string model;         // canonical model, e.g. "H100 SXM"
  std::string link;          // canonical link label, e.g. "NV18", "PCIe Gen5 x16"
  std::optional<int> ranks;  // ranks in the job; nullopt: one pair or GPU alone, any job size
  std::string method;        // peerbench method name
  std::string unit;          // "GB/s", "busbw GB/s" or "us" (peerbench's headline figure)
  NvlsState nvls = NvlsState::kNotApplicable;
  std::string conditions;              // how the source measured it, in words
  std::string source;                  // source id
  std::string measured_on;             // the GPU name the source printed
  std::vector<KnownGoodPoint> points;  // sorted by bytes, sizes distinct
};

struct KnownGoodModel {
  std::string model;
  std::vector<std::string> nvml_names;  // the names NVML/CUDA print for it
  std::string note;
  std::optional<int> nvlinks;  // NVLinks per GPU of the model, where the table says (node evidence)
};

struct KnownGoodSource {
  std::string id;
  std::string kind;  // "peerbench-run", "public", "cross-check"
  std::string citation;
  std::string url;
};

// A model and link searched for in vain: the table says so rather than staying silent.
struct KnownGoodGap {
  std::string model;
  std::string link;
  std::optional<int> ranks;  // nullopt: any rank count
  std::vector<std::string> methods;
  std::string reason;
};

struct KnownGoodQuery {
  std::string gpu_name;  // as NVML/CUDA report it: "NVIDIA H200", "NVIDIA A100-SXM4-80GB"
  std::string link;      // "NV18", "NV12", "PCIe Gen5 x16" (case and spaces do not matter)
  int ranks = 0;         // ranks in the job (GPUs copying at once for h2d-all/d2h-all)
  std::string method;
  std::uint64_t bytes = 0;
  // Whether NCCL may use NVLS (NCCL_NVLS_ENABLE); nullopt when not known.
  std::optional<bool> nvls;
};

enum class KnownGoodBasis {
  kExact,         // a table size
  kInterpolated,  // between two table sizes, linear on a log-size axis
  kLargestSize,   // above the largest table size: that size's figure (never extrapolated)
};

struct KnownGoodFigure {
  double value = 0;
  std::string unit;
  KnownGoodBasis basis = KnownGoodBasis::kExact;
  std::uint64_t from_bytes = 0;  // table sizes the figure comes from (equal unless interpolated)
  std::uint64_t to_bytes = 0;
  std::string model;
  std::string link;
  std::optional<int> ranks;
  NvlsState nvls = NvlsState::kNotApplicable;
  std::string conditions;
  std::string measured_on;
  std::string source_id;
  std::string citation;  // the source's citation, one line
  std::string url;
  // "345.9 busbw GB/s at 4 GiB (H200 SXM, NV18, 2 ranks; peerbench runs ...)"
  std::string describe() const;
};

struct KnownGoodLookup {
  std::optional<KnownGoodFigure> figure;
  std::string why_unknown;  // set when there is no figure: unknown model, no row, size too small
  bool found() const { return figure.has_value(); }
};

class KnownGoodTable {
 public:
  KnownGoodTable() = default;
  KnownGoodTable(std::vector<KnownGoodModel> models, std::vector<KnownGoodSource> sources,
                 std::vector<KnownGoodCurve> curves, std::vector<KnownGoodGap> gaps);

  KnownGoodLookup lookup(const KnownGoodQuery& q) const;
  // The canonical model for a name NVML/CUDA print, or nullopt; never matches across models.
  std::optional<std::string> model_of(const std::string& gpu_name) const;
  // NVLinks per GPU of the model NVML/CUDA names so, where the table gives the count.
  std::optional<int> nvlinks_of(const std::string& gpu_name) const;
  const KnownGoodSource* source(const std::string& id) const;

  const std::vector<KnownGoodModel>& models() const { return models_; }
  const std::vector<KnownGoodSource>& sources() const { return sources_; }
  const std::vector<KnownGoodCurve>& curves() const { return curves_; }
  const std::vector<KnownGoodGap>& gaps() const { return gaps_; }

 private:
  std::vector<const KnownGoodCurve*> curves_for(const std::string& model,
                                                const std::string& link) const;
  std::string missing_reason(const KnownGoodQuery& q, const std::string& model,
                             const std::string& link,
                             const std::vector<const KnownGoodCurve*>& of_method) const;
  KnownGoodLookup figure_on(const KnownGoodCurve& c, std::uint64_t bytes) const;

  std::vector<KnownGoodModel> models_;
  std::vector<KnownGoodSource> sources_;
  std::vector<KnownGoodCurve> curves_;
  std::vector<KnownGoodGap> gaps_;
};

// One table file's text and the name its errors carry ("data/known_good/public.json").
struct KnownGoodText {
  std::string origin;
  std::string text;
};

// Parses and merges table files strictly: unknown keys, duplicate curves, unsorted or repeated
// sizes, figures <= 0, a 'samples' list whose median is not the figure, curves naming a model or
// source no file declares, and NVML names claimed by two models are refused with InputError
// naming the file and the field.
KnownGoodTable parse_known_good_tables(const std::vector<KnownGoodText>& files);

// The tables compiled into this build (data/known_good/*.json), parsed once per process on first
// use (a few milliseconds; the verdicts and the report's sources had each parsed their own copy).
const KnownGoodTable& builtin_known_good_table();
// The compiled-in texts themselves (tests compare them with the files in the source tree).
std::vector<KnownGoodText> builtin_known_good_texts();

// "NVIDIA A100-SXM4-80GB" -> "A100 SXM4 80GB": case folded, "NVIDIA " dropped, '-' and '_' as
// spaces, runs of spaces as one. Only for comparing names; never shown.
std::string normalize_gpu_name(const std::string& name);
// "nv18" -> "NV18", "pcie gen5  x16" -> "PCIE GEN5 X16": case and spacing folded, for comparing.
std::string normalize_link_label(const std::string& label);

std::string to_string(NvlsState s);
std::string to_string(KnownGoodBasis b);

}  // namespace peerbench
