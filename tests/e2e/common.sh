# Shared by the GPU end-to-end scripts: skip on a machine without GPUs (exit 77, ctest's skip
# code), fail where GPUs are present but peerbench cannot use them; Open MPI as root, NVLink
# multicast off, a work folder removed at exit, how many GPUs, and a pattern for this script's
# own jobs.
topo_log=$(mktemp)
if ! "$bin" topo -q > "$topo_log" 2>&1; then
  # A driver's device node or a GPU listed by nvidia-smi: a failing topo is a failure, not a skip.
  if [ -e /dev/nvidia0 ] || nvidia-smi -L 2> /dev/null | grep -q '^GPU'; then
    echo "FAIL: this machine has a GPU, but peerbench topo failed: $(cat "$topo_log")"
    rm -f "$topo_log"
    exit 1
  fi
  # One line, no semicolons: ctest's post-test summary (cmake/ShowSkipReasons.cmake) quotes it.
  why=$(grep -m1 'error' "$topo_log" || tail -1 "$topo_log")
  echo "PEERBENCH_GPU_SKIP: no GPU on this machine (no /dev/nvidia0, nvidia-smi lists none)," \
    "peerbench topo says: ${why//;/,}"
  rm -f "$topo_log"
  exit 77
fi
rm -f "$topo_log"
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
export NCCL_NVLS_ENABLE=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The command line of this script's own jobs (pgrep -f, pkill -f): "$bin run ... $work/...", the
# launcher's and its ranks' ("^$own_jobs": the ranks alone; mpirun's line names $bin later).
# ctest runs the CPU tests beside this one: their peerbench processes are not this test's to count
# or signal.
regex_quote() { printf '%s' "$1" | sed 's/[][\.*^$+?(){}|]/\\&/g'; }
own_jobs="$(regex_quote "$bin") run .*$(regex_quote "$work")/"
ngpu=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU')
fail=0
check() { if eval "$1"; then echo "ok: $2"; else echo "FAIL: $2"; fail=1; fi; }
