// The flags of `peerbench import`.
#include "core/cli/flags.h"
#include "core/model/sizes.h"

namespace peerbench {

void parse_import_command(cxxopts::Options& o, const Args& args, CommandLine& cl) {
  o.add_options()("inputs",
                  "outputs of nccl-tests (text or -J JSON), nvbandwidth (text or -j JSON), "
                  "p2pBandwidthLatencyTest, and nvidia-smi topo -m files to judge them by",
                  cxxopts::value<std::vector<std::string>>())(
      "J,json", "write the run of the one output given here (missing folders are made)",
      cxxopts::value<std::string>())(
      "out-dir", "write one results file per output into this folder, named after it",
      cxxopts::value<std::string>())("h,help", "this help");
  o.parse_positional({"inputs"});
  o.positional_help("FILE [FILE ...]");
  auto r = parse_args(o, args);
  cl.help_text = o.help() +
                 "\nWithout -J or --out-dir, import says what each file is and its verdict.\n"
                 "report, compare and fleet read these outputs directly as well "
                 "(docs/import.md).\n";
  if (r.count("help")) {
    cl.command = Command::kHelp;
    return;
  }
  if (!r.count("inputs")) throw UsageError("import: give at least one output to import");
  cl.import.inputs = r["inputs"].as<std::vector<std::string>>();
  if (r.count("json")) cl.import.json_path = output_path(get(r, "json"), "-J/--json");
  if (r.count("out-dir")) cl.import.out_dir = non_empty_path(get(r, "out-dir"), "--out-dir");
  if (!cl.import.json_path.empty() && !cl.import.out_dir.empty())
    throw UsageError(
        "import: -J/--json and --out-dir: give one (-J for one output, --out-dir "
        "for several)");
}

}  // namespace peerbench
