# The floors of the code, bottom to top: one library per folder, and the includes each folder may
# make. A file may include its own folder and the folders named on its line, nothing else; a build
# whose code includes upward fails (cmake/check_includes.cmake names the file, the line and the
# include). This table is the one place the rule is written: a new folder is one more line here
# and its name in CMakeLists.txt's foreach list of core layers (gpu and app are built apart).
#
#                 layer     folder under src/  may include
peerbench_layer(base      core/base)
peerbench_layer(platform  core/platform      base)
peerbench_layer(model     core/model         platform base)
# Other tools' outputs (nccl-tests, nvbandwidth, p2pBandwidthLatencyTest, topo -m) as runs.
peerbench_layer(import    core/import        model platform base)
peerbench_layer(plan      core/plan          model platform base)
peerbench_layer(judge     core/judge         model platform base)
# What people read: reports in every format, compare, history, charts, text tables.
peerbench_layer(present   core/present       judge plan model platform base)
# Many nodes, one verdict: the fleet, its adapters, baselines and reports.
peerbench_layer(fleet     core/fleet         present judge plan import model platform base)
# The command line: each command's flags into its options.
peerbench_layer(cli       core/cli           fleet present judge plan import model platform base)
# The GPU layer stands beside the commands: it runs a plan and writes results and live tables.
peerbench_layer(gpu       gpu                fleet present judge plan import model platform base)
peerbench_layer(app       app                gpu cli fleet present judge plan import model platform base)
