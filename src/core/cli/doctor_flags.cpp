// `peerbench doctor`'s flags.
#include <sys/stat.h>

#include "core/base/errors.h"
#include "core/cli/flags.h"
#include "core/platform/input_file.h"

namespace peerbench {

void parse_doctor_command(cxxopts::Options& o, const Args& args, CommandLine& cl) {
  o.add_options()("json", "print the node's evidence as JSON (the results' node_evidence form)")(
      "root",
      "read sysfs and procfs under DIR instead of / (a copy of a node's files; the GPU part is "
      "then not read)",
      cxxopts::value<std::string>())("h,help", "this help");
  auto r = parse_args(o, args);
  cl.help_text = o.help() +
                 "\nExit code: 0 nothing found, 1 a finding (each with its Next: step), 2 the node "
                 "could not be read (no NVIDIA driver, NVML failed) or a bad flag; the host part "
                 "is printed in every case.\n";
  if (r.count("help")) {
    cl.command = Command::kHelp;
    return;
  }
  reject_positionals(r, "doctor");
  cl.doctor.json = r.count("json") > 0;
  if (r.count("root")) {
    const std::string root = get(r, "root");
    struct stat st {};
    if (root.empty() || ::stat(root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      throw UsageError("--root: " + quoted_path(root) +
                       " is not a folder; give the folder that holds a node's sys/ and proc/");
    cl.doctor.root = root;
  }
}

}  // namespace peerbench
