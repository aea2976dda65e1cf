#include "core/present/plan_text.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include "core/base/text.h"
#include "core/model/sizes.h"
#include "core/plan/element_fit.h"
#include "core/platform/input_limits.h"
#include "core/present/text_table.h"

namespace peerbench {
namespace {

// "3.2 days" for estimates a person should not wait for; "" below an hour.
std::string human_duration(double s) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(1);
  if (s >= 86400) {
    o << " (" << s / 86400 << " days)";
  } else if (s >= 3600) {
    o << " (" << s / 3600 << " hours)";
  }
  return o.str();
}

// The plan table: one row per step, at most kRowsPerMethod rows per method unless verbose (then a
// summary row of the rest). Verbose lists every pair until kMaxPlanPairsListed have been listed
// (core/platform/input_limits.h), then summarises as without it and says so in a last note: 1024
// ranks listed 10 million rows. Columns are sized for the job, the pair list comes last, so rows
// stay aligned at any rank count.
class PlanPrinter {
 public:
  static constexpr int kRowsPerMethod = 32;

  PlanPrinter(std::ostream& out, const PlanInput& in, const Plan& totals, bool verbose)
      : out_(out), in_(in), verbose_(verbose) {
    for (const auto& m : in.methods) widths_[0] = std::max(widths_[0], display_width(m.name));
    const std::int64_t n = std::max(2, in.world_size);
    widths_[1] = std::max(widths_[1], std::to_string(n * (n - 1)).size());
    out_ << "# Plan: " << count_of(in.world_size, "rank") << ", schedule " << to_string(in.schedule)
         << ", pairs " << in.pairs.text << ", " << totals.cases << " cases in " << totals.step_count
         << " steps\n";
    out_ << "# "
         << format_columns({"method", "round", "sizes", "estimate", "pairs (running at once)"},
                           widths_, kAlign)
         << "\n";
  }

  void row(const PlanStep& s) {
    if (s.round == 0) flush_hidden(s.method);  // every method starts with round 0
    const auto pairs_in_row = std::max<std::int64_t>(1, static_cast<std::int64_t>(s.pairs.size()));
    if (verbose_ && listed_pairs_ + pairs_in_row > kMaxPlanPairsListed) {
      verbose_ = false;
      stopped_listing_ = true;
    }
    if (verbose_) listed_pairs_ += pairs_in_row;
    if (!verbose_ && shown_ >= kRowsPerMethod) {
      ++hidden_steps_;
      hidden_pairs_ += static_cast<std::int64_t>(s.pairs.size());
      hidden_estimate_ += s.estimate_s;
      return;
    }
    ++shown_;
    std::string pairs = s.all_ranks ? "all " + std::to_string(in_.world_size) + " ranks" : "";
    for (const auto& p : s.pairs) {
      if (!verbose_ && pairs.size() > 60) {
        pairs += " ... (" + std::to_string(s.pairs.size()) + " pairs)";
        break;
      }
      if (!pairs.empty()) pairs += " ";
      pairs += p.src == p.dst ? "rank " + std::to_string(p.src)
                              : std::to_string(p.src) + "->" + std::to_string(p.dst);
      if (!p.applicable) pairs += "(n/a)";
    }
    line(s.method, std::to_string(s.round), sizes_text(s.sizes), s.estimate_s, pairs);
    if (verbose_) {
      for (const auto& p : s.pairs) {
        if (!p.applicable) out_ << "      " << p.src << "->" << p.dst << ": " << p.reason << "\n";
      }
    }
  }

  void finish(const Plan& totals) {
    flush_hidden("");
    const bool whole = in_.cycles == 1;
    out_ << "# Estimated time: " << estimate_text(totals.estimate_s, in_.cycles, in_.duration_s, 1)
         << (whole ? human_duration(totals.estimate_s) : "")
         << " (planning model: NVLink-class rates, not a measurement)\n";
    if (stopped_listing_) {
      out_ << "# note: -v lists at most " << kMaxPlanPairsListed
           << " pairs; the rest are summarised per method (...): give -m, --pairs or a smaller "
              "--np to list every step\n";
    }
  }

 private:
  // Rows are printed as the plan is walked (a plan of 1024 ranks has very many): fixed columns,
  // the method's as wide as the longest name, always two spaces apart (core/text_table.h).
  inline static const std::vector<Align> kAlign = {Align::kLeft, Align::kLeft, Align::kLeft,
                                                   Align::kRight, Align::kLeft};

  static std::string sizes_text(const std::vector<std::uint64_t>& sizes) {
    if (sizes.size() == 1) return format_size_compact(sizes.front());
    return format_size_compact(sizes.front()) + ".." + format_size_compact(sizes.back()) + " (" +
           std::to_string(sizes.size()) + ")";
  }

  void line(const std::string& method, const std::string& round, const std::string& sizes,
            double estimate_s, const std::string& pairs) {
    out_ << "  "
         << format_columns({method, round, sizes, format_fixed(estimate_s, 2) + " s", pairs},
                           widths_, kAlign)
         << "\n";
  }

  void flush_hidden(const std::string& next_method) {
    if (hidden_steps_ > 0) {
      line(method_, "...", "", hidden_estimate_,
           std::to_string(hidden_steps_) + " more steps, " + std::to_string(hidden_pairs_) +
               " pairs" + (stopped_listing_ ? "" : " (-v lists them)"));
    }
    method_ = next_method;
    shown_ = 0;
    hidden_steps_ = 0;
    hidden_pairs_ = 0;
    hidden_estimate_ = 0;
  }

  std::ostream& out_;
  const PlanInput& in_;
  bool verbose_;                  // every step and pair listed, until kMaxPlanPairsListed
  bool stopped_listing_ = false;  // verbose, and past kMaxPlanPairsListed
  std::int64_t listed_pairs_ = 0;
  std::vector<std::size_t> widths_ = {6, 5, 14, 9, 0};  // method, round, sizes, estimate, pairs
  std::string method_;
  int shown_ = 0;
  std::int64_t hidden_steps_ = 0;
  std::int64_t hidden_pairs_ = 0;
  double hidden_estimate_ = 0;
};

}  // namespace

void write_plan(std::ostream& out, const PlanInput& in, bool verbose) {
  const Plan totals = summarize_plan(in);  // validates before anything is printed
  PlanPrinter printer(out, in, totals, verbose);
  for_each_plan_step(in, [&](const PlanStep& s) { printer.row(s); });
  printer.finish(totals);
}

void write_plan_notes(std::ostream& out, const PlanInput& in) {
  for (const auto& line : sizes_holding_no_element(in)) out << "# note: " << line << "\n";
}

std::string format_plan(const Plan& plan, const PlanInput& in, bool verbose) {
  std::ostringstream out;
  PlanPrinter printer(out, in, plan, verbose);
  for (const auto& s : plan.steps) printer.row(s);
  printer.finish(plan);
  return out.str();
}

}  // namespace peerbench
