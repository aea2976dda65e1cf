// Host<->GPU methods (h2d, d2h, h2d-all, d2h-all) in the core: their plan steps, their per-GPU
// verdicts against the PCIe link, validation of their one-rank results, the report's host table,
// and the real 2 x H200 run of them (results/examples/h200x2-host.json).
#include <gtest/gtest.h>

#include <set>

#include "core/base/errors.h"
#include "core/judge/verdict.h"
#include "core/model/results_validate.h"
#include "core/model/schema.h"
#include "core/plan/plan.h"
#include "core/present/plan_text.h"
#include "core/present/report.h"
#include "test_docs.h"

namespace peerbench {
namespace {

using test::kGiB;

PlanInput host_plan_input(int n, const std::string& pairs = "all") {
  PlanInput in;
  in.world_size = n;
  in.host_of_rank.assign(static_cast<std::size_t>(n), "node");
  for (const auto& m : method_catalog()) {
    if (m.family == "host") in.methods.push_back(m);
  }
  in.pairs = parse_pair_filter(pairs);
  in.sizes = {1 << 20, kGiB};
  return in;
}

TEST(HostPlan, OneStepPerGpuAndOneStepForEveryGpuAtOnce) {
  const Plan p = make_plan(host_plan_input(4));
  std::map<std::string, std::vector<const PlanStep*>> by_method;
  for (const auto& s : p.steps) by_method[s.method].push_back(&s);
  for (const char* solo : {"h2d", "d2h"}) {
    ASSERT_EQ(by_method[solo].size(), 4u) << solo;
    for (int r = 0; r < 4; ++r) {
      const PlanStep& s = *by_method[solo][r];
      ASSERT_EQ(s.pairs.size(), 1u);
      EXPECT_EQ(s.pairs[0].src, r);
      EXPECT_EQ(s.pairs[0].dst, r) << "a GPU and its host: src = dst";
      EXPECT_FALSE(s.all_ranks);
    }
  }
  for (const char* all : {"h2d-all", "d2h-all"}) {
    ASSERT_EQ(by_method[all].size(), 1u) << all;
    EXPECT_EQ(by_method[all][0]->pairs.size(), 4u) << "every GPU in one step";
  }
  EXPECT_EQ(p.cases, 4 * 4 * 2) << "4 methods x 4 GPUs x 2 sizes";
  const std::string table = format_plan(p, host_plan_input(4), false);
  EXPECT_NE(table.find("rank 0 rank 1 rank 2 rank 3"), std::string::npos) << table;
}

TEST(HostPlan, OneRankIsEnoughForHostMethodsAlone) {
  const auto c = method_catalog();
  EXPECT_EQ(minimum_ranks({"h2d", "d2h-all"}, c), 1);
  EXPECT_EQ(minimum_ranks({"h2d", "ce-write"}, c), 2);
  EXPECT_EQ(minimum_ranks({"nccl-allreduce"}, c), 1) << "a collective runs on one rank too";
  EXPECT_EQ(minimum_ranks({"nccl-allreduce", "nccl-sendrecv"}, c), 2);
  const Plan p = make_plan(host_plan_input(1));
  EXPECT_EQ(p.cases, 4 * 2) << "4 methods x 1 GPU x 2 sizes";
}

TEST(HostPlan, ExplicitPairsMeasureTheGpusTheyName) {
  const Plan p = make_plan(host_plan_input(4, "2-3"));
  std::set<int> gpus;
  for (const auto& s : p.steps) {
    for (const auto& pp : s.pairs) gpus.insert(pp.src);
  }
  EXPECT_EQ(gpus, (std::set<int>{2, 3}));
  // Filters about links between GPUs keep every GPU: h2d is not a link between two GPUs.
  const Plan intra = make_plan(host_plan_input(4, "intra-host"));
  EXPECT_EQ(intra.cases, p.cases * 2);
}

RunDocument host_run(double h2d_gbps, int pcie_width = 16, std::uint64_t bytes = kGiB) {
  auto spec = test::NodeSpec{};
  spec.pcie_width = pcie_width;
  RunDocument d = test::make_doc(spec);
  d.pairs.clear();
  for (int g = 0; g < 2; ++g) {
    d.results.push_back(test::bw_result("h2d", g, g, bytes, g == 1 ? h2d_gbps : 55.5));
    d.results.push_back(test::bw_result("d2h", g, g, bytes, 55.3));
    auto all = test::bw_result("h2d-all", g, g, bytes, 55.0);
    all.concurrent_pairs = 2;
    d.results.push_back(all);
  }
  return d;
}

const PairVerdict* gpu_verdict(const std::vector<PairVerdict>& vs, int g) {
  for (const auto& v : vs) {
    if (v.src == g && v.dst == g) return &v;
  }
  return nullptr;
}

TEST(HostVerdicts, EachGpuIsJudgedAgainstItsPcieLink) {
  const auto vs = compute_verdicts(host_run(55.5), {});
  ASSERT_EQ(vs.size(), 2u) << "one verdict per GPU, no pair or all-ranks verdict";
  const auto* v = gpu_verdict(vs, 0);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->verdict, "pass");
  EXPECT_EQ(v->link, "PCIe Gen5 x16");
  ASSERT_EQ(v->methods.size(), 3u);
  const MethodVerdict* h2d = nullptr;
  for (const auto& m : v->methods) h2d = m.method == "h2d" ? &m : h2d;
  ASSERT_NE(h2d, nullptr);
  EXPECT_EQ(h2d->state, "pass");
  ASSERT_TRUE(h2d->bar);
  // H200 over PCIe Gen5 x16 has a known-good h2d figure: the bar is 85 % of it.
  ASSERT_TRUE(h2d->expected);
  EXPECT_NEAR(*h2d->bar, 0.85 * *h2d->expected, 1e-6);
  EXPECT_NE(h2d->bar_basis.find("known-good"), std::string::npos) << h2d->bar_basis;
  EXPECT_NE(h2d->bar_basis.find("PCIe Gen5 x16"), std::string::npos);
  // Without it, the link-rate rule: 60 % of Gen5 x16, scaled by size / (size + 4 MiB).
  Expectations link_rule;
  link_rule.expected_fraction = 0;
  const auto by_link = compute_verdicts(host_run(55.5), link_rule);
  const double ramp = 4 << 20;
  for (const auto& m : gpu_verdict(by_link, 0)->methods) {
    if (m.method == "h2d") EXPECT_NEAR(*m.bar, 0.6 * 16 * 3.938 * m.bytes / (m.bytes + ramp), 1e-6);
  }
  EXPECT_NE(v->observed.find("ran at once with rank 1 (every GPU at once)"), std::string::npos)
      << v->observed;
  ASSERT_EQ(v->cards.size(), 1u);
}

TEST(HostVerdicts, ASlowGpuIsFlaggedBelowLinkAndNarrowSlotsLowerTheBar) {
  const auto vs = compute_verdicts(host_run(12.0), {});
  const auto* slow = gpu_verdict(vs, 1);
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(slow->verdict, "flagged");
  ASSERT_EQ(slow->flags.size(), 1u);
  EXPECT_EQ(slow->flags[0].code, "below-expected") << "H200's known-good h2d figure";
  EXPECT_EQ(slow->flags[0].method, "h2d");
  EXPECT_NE(slow->flags[0].message.find("between the host and rank 1"), std::string::npos)
      << slow->flags[0].message;
  EXPECT_FALSE(slow->flags[0].evidence.contains("ran_at_once_with")) << "h2d ran alone";
  EXPECT_EQ(gpu_verdict(vs, 0)->verdict, "pass");
  // An x4 slot carries a quarter: 12 GB/s passes there (bar 0.6 x 4 x 3.938 = 9.45).
  const auto narrow = compute_verdicts(host_run(12.0, 4), {});
  EXPECT_EQ(gpu_verdict(narrow, 1)->verdict, "pass");
  EXPECT_EQ(gpu_verdict(narrow, 1)->link, "PCIe Gen5 x4");
}

TEST(HostVerdicts, SizesThatCannotFillTheLinkAreNotJudgedAndMissingGpusAreIncomplete) {
  const auto small = compute_verdicts(host_run(1.0, 16, 16ull << 20), {});
  EXPECT_EQ(gpu_verdict(small, 1)->verdict, "not-judged");
  auto d = host_run(55.5);
  d.config = {{"methods", {"h2d", "d2h", "h2d-all", "d2h-all"}}, {"pairs", "all"}};
  const auto vs = compute_verdicts(d, {});
  const auto* v = gpu_verdict(vs, 0);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->verdict, "incomplete") << "d2h-all was asked for and has no result";
  bool named = false;
  for (const auto& m : v->methods)
    named = named || (m.method == "d2h-all" && m.state == "incomplete");
  EXPECT_TRUE(named);
}

TEST(HostResults, OneRankResultsValidateOnlyForHostMethods) {
  const auto d = host_run(55.5);
  nlohmann::json j = to_json(d);
  const RunDocument back = run_document_from_json(j, "host.json");
  validate_run_document(back, "host.json");
  ASSERT_EQ(back.results.size(), d.results.size());
  EXPECT_EQ(back.results[0].src, back.results[0].dst);
  const auto* m = find_method(back.methods, "h2d-all");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->scope, MethodScope::kPerGpu);
  EXPECT_TRUE(m->all_gpus_at_once);
  j["results"][0]["method"] = "ce-write";
  try {
    validate_run_document(run_document_from_json(j, "bad.json"), "bad.json");
    FAIL() << "a copy between a rank and itself is not a result";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("results[0].dst"), std::string::npos) << e.what();
  }
  j = to_json(d);
  for (auto& m : j["methods"]) {
    if (m["name"] == "d2h") m["scope"] = "per-host";
  }
  EXPECT_THROW(run_document_from_json(j, "bad.json"), InputError);
}

TEST(HostReport, PerGpuTableWithTheHostTotalInEveryFormat) {
  const auto d = host_run(55.5);
  ReportInput in;
  in.path = "host.json";
  in.doc = &d;
  in.verdicts = compute_verdicts(d, {});
  in.expectations_source = "built-in defaults";
  const auto text = make_reporter(ReportFormat::kText)->render({in}, {});
  EXPECT_NE(text.find("Host <-> GPU at the judged size"), std::string::npos) << text;
  EXPECT_NE(text.find("h2d-all on node0: 110.0 GB/s from 2 GPUs at once @ 1G"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("Pairs at the judged size"), std::string::npos)
      << "no pair of GPUs was measured";
  EXPECT_NE(text.find("rank 1  node0 GPU 1  PCIe Gen5 x16      55.5 1.00"), std::string::npos)
      << text;
  const auto md = make_reporter(ReportFormat::kMarkdown)->render({in}, {});
  EXPECT_NE(md.find("## Host \\<-\\> GPU at the judged size"), std::string::npos) << md;
  EXPECT_NE(md.find("| rank 0 | node0 GPU 0 | PCIe Gen5 x16 | 55.5 1.00 | 55.3 1.00 | 55.0 0.99 |"),
            std::string::npos)
      << md;
  const auto html = make_reporter(ReportFormat::kHtml)->render({in}, {});
  EXPECT_NE(html.find("Host &lt;-&gt; GPU"), std::string::npos);
  const auto csv = make_reporter(ReportFormat::kCsv)->render({in}, {});
  EXPECT_NE(csv.find("host.json,h2d,0,0,"), std::string::npos) << csv;
}

// Two ranks on one GPU (--allow-gpu-sharing): their "at once" copies share one PCIe link, so
// those figures are not the link's, and the host's total adds both on one GPU.
TEST(HostVerdicts, RanksSharingOneGpuAreNotALinkForTheAtOnceMethods) {
  auto d = host_run(55.5);
  d.system.ranks[1].gpu = d.system.ranks[0].gpu;
  for (auto& r : d.results) {
    if (r.method == "h2d-all") r.algbw_gbps = test::flat(27.7);
  }
  const auto vs = compute_verdicts(d, {});
  for (int g : {0, 1}) {
    const auto* v = gpu_verdict(vs, g);
    ASSERT_NE(v, nullptr);
    EXPECT_TRUE(v->flags.empty()) << v->flags.front().message;
    for (const auto& m : v->methods) {
      EXPECT_EQ(m.state, m.method == "h2d-all" ? "not-a-link" : "pass") << m.method;
    }
  }
  ReportInput in;
  in.path = "shared.json";
  in.doc = &d;
  in.verdicts = vs;
  const auto text = make_reporter(ReportFormat::kText)->render({in}, {});
  EXPECT_NE(text.find("h2d-all on node0: 55.4 GB/s from 1 GPU at once"), std::string::npos)
      << "both ranks' copies crossed the one GPU's link:\n"
      << text;
}

// Per-task binding: each rank sees its GPU as index 0; the table tells them apart by bus id.
TEST(HostReport, GpusWithOneIndexAreToldApartByBusId) {
  auto d = host_run(55.5);
  d.system.ranks[1].gpu.index = 0;
  ReportInput in;
  in.path = "bound.json";
  in.doc = &d;
  in.verdicts = compute_verdicts(d, {});
  const auto text = make_reporter(ReportFormat::kText)->render({in}, {});
  EXPECT_NE(text.find("node0 0000:00:00.0"), std::string::npos) << text;
  EXPECT_NE(text.find("node0 0000:01:00.0"), std::string::npos) << text;
}

TEST(Examples, HostCopiesOnTwoH200sPassAgainstPcieGen5) {
  const auto d =
      load_run_file(std::string(PEERBENCH_SOURCE_DIR) + "/results/examples/h200x2-host.json");
  std::set<std::string> methods;
  for (const auto& r : d.results) {
    EXPECT_EQ(r.status, ResultStatus::kOk) << r.method;
    EXPECT_EQ(r.src, r.dst) << r.method;
    EXPECT_EQ(r.wrong, 0u) << r.method;
    EXPECT_TRUE(r.checked) << r.method;
    methods.insert(r.method);
  }
  EXPECT_EQ(methods, (std::set<std::string>{"h2d", "d2h", "h2d-all", "d2h-all"}));
  const auto vs = compute_verdicts(d, {});
  ASSERT_EQ(vs.size(), 2u);
  for (const auto& v : vs) {
    EXPECT_EQ(v.verdict, "pass") << v.src;
    EXPECT_EQ(v.link, "PCIe Gen5 x16");
  }
  for (const auto& r : d.system.ranks) {
    EXPECT_NE(r.host_memory.find("pinned on NUMA node"), std::string::npos) << r.host_memory;
  }
}

}  // namespace
}  // namespace peerbench
