#!/usr/bin/env bash
# On a GPU node: build, run the GPU tests and a short benchmark, and collect logs and JSON in one
# folder (default: gpu-check-<host>-<time>/; a tarball of it is written beside its files).
#
#   scripts/gpu_check.sh [OUTDIR] [quick|full|issues]
#
# quick: default sweep on all local GPUs; full: also the NCCL transport cases (P2P disabled ->
# SHM, P2P+SHM disabled -> NET), CUDA-graph small-message times, rounds vs serial, and the
# simulated two-host run. On a host with one GPU, two ranks share it (--allow-gpu-sharing):
# that exercises the tool, not any link.
#
# Exit code: 0 when the build, the tests and the runs went through cleanly; 1 when the build, a
# test or a check of scripts/gpu_acceptance.sh failed, or a log shows a failed NCCL teardown or a
# start gate opened by its timeout;
# 2 for bad arguments.
#
# Environment:
#   PEERBENCH_REVISION      the revision to record where this copy's .git is not the code's own
#   PEERBENCH_CHECK_BUDGET  seconds; past it the sanitizer runs are left out (and say so)
#   PEERBENCH_CTEST_LABEL   ctest -L pattern (default: every test); PEERBENCH_CTEST_EXCLUDE: -E
#   PEERBENCH_NCCL_TESTS    folder of nccl-tests' *_perf_mpi binaries, for the side-by-side part
# The build goes to build/: an existing build/ keeps its own CMake generator; a new one uses
# Ninja where it is installed.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
cli_usage="gpu_check.sh [OUTDIR] [quick|full|issues]"
# shellcheck source=cli.sh
source "$here/scripts/cli.sh"
case ${1:-} in -h | --help) cli_help_exit ;; esac
[ $# -le 2 ] || cli_usage_exit
cd "$here" || cli_fail "cannot enter $here"
out=${1:-gpu-check-$(hostname -s)-$(date -u +%Y%m%d-%H%M%S)}
mode=${2:-quick}
case $mode in quick | full | issues) ;; *) cli_fail "mode $mode: quick, full or issues" ;; esac
[[ ${PEERBENCH_CHECK_BUDGET:-0} =~ ^[0-9]+$ ]] ||
  cli_fail "PEERBENCH_CHECK_BUDGET=$PEERBENCH_CHECK_BUDGET: give whole seconds"
for f in summary.log build.log ctest.log; do cli_check_file "$out/$f"; done
cli_make_dir "$out"
out=$(cd "$out" && pwd)
log="$out/summary.log"
say() { echo "$*" | tee -a "$log"; }

export NCCL_NVLS_ENABLE=0   # never NVLink multicast on shared machines
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
mpirun_=(mpirun --bind-to none)

started=$(date +%s)
say "# gpu_check on $(hostname) at $(date -u +%FT%TZ), mode $mode, revision $(git rev-parse --short HEAD 2>/dev/null)"
nvidia-smi > "$out/nvidia-smi.txt" 2>&1
nvidia-smi topo -m > "$out/nvidia-smi-topo.txt" 2>&1
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
say "# GPUs: $ngpu"

t0=$(date +%s)
# PEERBENCH_REVISION: the revision to record, where this copy's .git is not the code's own (the
# device machine's copy); set it from the checkout the tree came from.
# A build/ made by the README's quickstart (Unix Makefiles) keeps its generator: CMake refuses
# a second one on the same folder.
gen=()
if [ ! -f build/CMakeCache.txt ] && command -v ninja > /dev/null; then gen=(-G Ninja); fi
if ! { cmake -S . -B build "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DPEERBENCH_REVISION="${PEERBENCH_REVISION:-}" && cmake --build build -j; } > "$out/build.log" 2>&1; then
  say "BUILD FAILED (see build.log)"; tail -30 "$out/build.log"; exit 1
fi
say "# build: $(( $(date +%s) - t0 )) s"

share=(); cap=(); np=$ngpu
if [ "$ngpu" -lt 2 ]; then
  # Two processes time-slice one GPU: keep sizes small, this only checks the tool works.
  # (cap: runs without sizes of their own; a flag given twice with two values is refused)
  share=(--allow-gpu-sharing); cap=(-e 64M); np=2; say "# one GPU: ranks share it"
fi

t0=$(date +%s)
# As the README's test command runs them: 8 at once, the GPU tests one at a time under their lock.
(cd build && ctest -j 8 -L "${PEERBENCH_CTEST_LABEL:-.}" ${PEERBENCH_CTEST_EXCLUDE:+-E "$PEERBENCH_CTEST_EXCLUDE"} --output-on-failure --timeout 600) > "$out/ctest.log" 2>&1
ctest_rc=$?
say "# ctest -j 8 (CPU and GPU): rc=$ctest_rc in $(( $(date +%s) - t0 )) s: $(grep -E 'tests passed|tests failed' "$out/ctest.log")"
# Each GPU test's time (their sum is the run's critical path) and the slowest CPU tests'.
grep -E 'Test +#[0-9]+: gpu_' "$out/ctest.log" | sed -E 's/^ *[0-9]+\/[0-9]+ /# /' | tee -a "$log"
grep -E 'Test +#[0-9]+: ' "$out/ctest.log" | grep -v ': gpu_' | awk '{print $(NF-1), $0}' | sort -rn |
  head -3 | cut -d' ' -f2- | sed -E 's/^ *[0-9]+\/[0-9]+ /# /' | tee -a "$log"
grep -E '^\[  (FAILED|SKIPPED) |\*\*\*(Failed|Skipped)|PEERBENCH_(GPU_)?SKIP' "$out/ctest.log" | sort -u | tee -a "$log"

build/peerbench topo --json "$out/topo.json" > "$out/topo.txt" 2>&1; say "# topo rc=$?"

# Keep NCCL's own log of a case (user-file mode: peerbench reads the user's NCCL_DEBUG_FILE).
nccl_log() {
  echo "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P,SHM,NET,GRAPH NCCL_DEBUG_FILE=$out/nccl-$1.%h.%p.log"
}
run() {  # name, then peerbench run arguments
  local name=$1; shift
  local t=$(date +%s)
  "$@" > "$out/$name.log" 2>&1
  local rc=$?
  say "# $name: rc=$rc in $(( $(date +%s) - t )) s"
  grep -E '^#  [0-9a]' "$out/$name.log" | head -20 | tee -a "$log"
}

# Issue 17: the time per operation at any -n (8 B, no graphs) beside the -G figure, for copies
# and NCCL, with the per-iteration percentiles; odd sizes; every verdict with its evidence.
queues() {
  local ranks=$1; shift
  for n in 250 1000 4000; do
    "${mpirun_[@]}" -np "$ranks" build/peerbench run "$@" -b 8 -e 8 -n "$n" -s 5 -v -J "$out/queue-$ranks-$n.json" > "$out/queue-$ranks-$n.log" 2>&1
  done
  "${mpirun_[@]}" -np "$ranks" build/peerbench run "$@" -b 8 -e 8 -n 200 -G 100 -s 5 -J "$out/queue-$ranks-G.json" > "$out/queue-$ranks-G.log" 2>&1
  python3 - "$out" "$ranks" <<'PY' | tee -a "$log"
import json, sys
out, ranks = sys.argv[1], sys.argv[2]
rows = {}
for tag in ("250", "1000", "4000", "G"):
    try:
        d = json.load(open(f"{out}/queue-{ranks}-{tag}.json"))
    except Exception as e:
        print(f"# queue {ranks} ranks -n {tag}: no results ({e})"); continue
    for r in d["results"]:
        if r["status"] != "ok": continue
        key = (r["method"], r["src"], r["dst"])
        pi = r.get("per_iteration") or {}
        rows.setdefault(key, {})[tag] = (r["time_us"]["median"], pi.get("p50_us"), pi.get("p95_us"), pi.get("p99_us"), pi.get("cv"), (r.get("enqueue") or {}).get("host_us_per_op"))
for key, by in sorted(rows.items(), key=str):
    meds = [v[0] for t, v in by.items() if t != "G"]
    g = by.get("G", (None,))[0]
    line = f"# queue {key[0]} {key[1]}->{key[2]}: " + ", ".join(f"-n {t} {v[0]:.2f} us (p50 {v[1] or 0:.2f} p95 {v[2] or 0:.2f} p99 {v[3] or 0:.2f} cv {v[4] or 0:.3f}, host {v[5] or 0:.2f} us/op)" for t, v in by.items() if t != "G")
    if g: line += f", -G {g:.2f} us"
    if meds: line += f"; spread {max(meds)/min(meds):.3f}x" + (f", worst/-G {max(meds)/g:.3f}x" if g else "")
    print(line)
PY
}
if [ "$mode" = full ] || [ "$mode" = issues ]; then
  queues "$np" "${share[@]}" -m ce-write,sm-write$([ -z "${share[*]}" ] && echo ,nccl-allreduce,nccl-sendrecv)
  [ -n "${share[*]}" ] && queues 1 -m nccl-allreduce   # one GPU: NCCL's own enqueue path on one rank
  run odd-sizes "${mpirun_[@]}" -np "$np" build/peerbench run "${share[@]}" -m ce-write,sm-read$([ -z "${share[*]}" ] && echo ,nccl-allreduce,nccl-allgather) -b 3 -e 3000 -i 997 -w 1 -n 3 -s 2 -J "$out/odd-sizes.json"
  run one-byte "${mpirun_[@]}" -np "$np" build/peerbench run "${share[@]}" -m ce-write$([ -z "${share[*]}" ] && echo ,nccl-allreduce,nccl-allgather) -b 1 -e 1 -w 1 -n 3 -s 2 -J "$out/one-byte.json"
  run one-rank-collectives "${mpirun_[@]}" -np 1 build/peerbench run -m nccl-allreduce,nccl-allgather -b 1 -e 3000 -i 997 -w 1 -n 3 -s 2 -J "$out/one-rank-collectives.json"
  for j in odd-sizes one-byte one-rank-collectives; do
    python3 - "$out/$j.json" <<'PY' | tee -a "$log"
import json, sys
d = json.load(open(sys.argv[1]))
bad = [(v["src"], v["dst"], v["verdict"]) for v in d["verdicts"] if not v["observed"]]
bad += [(v["src"], v["dst"], m["method"], m["state"]) for v in d["verdicts"] for m in v["methods"] if m["value"] is None and not m["reason"]]
inc = [(v["src"], v["dst"], m["method"], m["reason"]) for v in d["verdicts"] for m in v["methods"] if m["state"] == "incomplete"]
print(f"# {sys.argv[1].split('/')[-1]}: {len(d['verdicts'])} verdicts, {len(bad)} without evidence, {len(inc)} incomplete {inc[:2]}")
PY
  done
fi
if [ "$mode" = full ] || [ "$mode" = issues ]; then
  # Issue 18: NCCL buffer registration (-R 0/1/2), the time over ranks (-a), blocking (-z), and
  # the host's CPU time per operation, on the NCCL all-reduce of as many ranks as GPUs (one GPU:
  # one rank, NCCL's local path).
  nr=$([ -n "${share[*]}" ] && echo 1 || echo "$np")
  for reg in 0 1 2; do
    "${mpirun_[@]}" -np "$nr" build/peerbench run -m nccl-allreduce -b 8 -e 8 -n 200 -G 100 -R "$reg" -J "$out/reg$reg-graph.json" > "$out/reg$reg-graph.log" 2>&1
    "${mpirun_[@]}" -np "$nr" build/peerbench run -m nccl-allreduce -b 64M -e 64M -R "$reg" -C 1 -J "$out/reg$reg-64m.json" > "$out/reg$reg-64m.log" 2>&1
  done
  for a in 0 1 2 3; do
    "${mpirun_[@]}" -np "$np" build/peerbench run "${share[@]}" -m ce-bidir -b 8 -e 8 -n 200 -a "$a" -J "$out/avg$a.json" > "$out/avg$a.log" 2>&1
  done
  "${mpirun_[@]}" -np "$nr" build/peerbench run -m nccl-allreduce -b 8 -e 8 -n 200 -z 1 -J "$out/blocking.json" > "$out/blocking.log" 2>&1
  python3 "$here/scripts/issue18_summary.py" "$out" | tee -a "$log"
fi
[ "$mode" = issues ] && { say "# collected in $out"; exit $(( ctest_rc != 0 )); }

# The README's main job: no launcher, every local GPU, default suite.
run default build/peerbench run "${share[@]}" "${cap[@]}" --np "$np" -J "$out/default.json"
grep -E '^  [a-z-]+ +[0-9a>-]+ +1073741824 ' "$out/default.log" | tee -a "$log"
if [ "$mode" = full ]; then
  big=(-b 512M -e 8G -f 2 -w 3 -n 10 -s 5)
  run nccl-large "${mpirun_[@]}" -np "$np" build/peerbench run "${share[@]}" -m nccl "${big[@]}" -J "$out/nccl-large.json"
  grep -E '^  nccl-[a-z-]+ +[0-9a>-]+ +8589934592 ' "$out/nccl-large.log" | tee -a "$log"
  # 8-byte all-reduce under CUDA graphs, beside an independent probe timed as nccl-tests -G is.
  t=$(date +%s)
  run nccl-small-graph "${mpirun_[@]}" -np "$np" build/peerbench run "${share[@]}" -m nccl -b 8 -e 8 -n 200 -G 100 -J "$out/nccl-small-graph.json"
  say "# nccl-small-graph wall time: $(( $(date +%s) - t )) s"
  grep -E '^  nccl-' "$out/nccl-small-graph.log" | tee -a "$log"
  if [ -z "${share[*]}" ]; then
    timeout 120 "${mpirun_[@]}" -np "$np" build/tests/nccl_graph_probe 8 200 100 5 > "$out/nccl-graph-probe.log" 2>&1
    say "# $(tail -1 "$out/nccl-graph-probe.log")"
  fi
  # Every NCCL collective at nccl-tests' sizes (busbw beside REFERENCE.md's nccl-tests figures),
  # then every type and op through the data check, then 8-byte times under CUDA graphs.
  coll=nccl-allreduce,nccl-allgather,nccl-reducescatter,nccl-broadcast,nccl-reduce,nccl-alltoall,nccl-sendrecv-ring
  run collectives "${mpirun_[@]}" -np "$np" build/peerbench run "${share[@]}" -m "$coll" -b 64M -e 4G -f 4 -w 3 -n 10 -s 3 -J "$out/collectives.json"
  grep -E '^  nccl-[a-z-]+ +all ' "$out/collectives.log" | tee -a "$log"
  run types "${mpirun_[@]}" -np "$np" build/peerbench run "${share[@]}" -m "$coll" -d all -o all -r 1 -b 1M -e 1M -w 1 -n 2 -s 1 -J "$out/types.json"
  say "# types: $(grep -cE ' ok( |$)' "$out/types.log") ok lines, $(grep -cE 'error|wrong [1-9]' "$out/types.log") error lines"
  run coll-small-graph "${mpirun_[@]}" -np "$np" build/peerbench run "${share[@]}" -m nccl-broadcast,nccl-reduce,nccl-sendrecv-ring -b 8 -e 8 -n 200 -G 100 -J "$out/coll-small-graph.json"
  grep -E '^  nccl-[a-z-]+ +all ' "$out/coll-small-graph.log" | tee -a "$log"
  # Host<->GPU copies, beside an independent probe (plain cudaMemcpyAsync from cudaMallocHost).
  run host "${mpirun_[@]}" -np "$np" build/peerbench run "${share[@]}" -m host -b 256M -e 1G -J "$out/host.json"
  grep -E '^  [hd]2[hd]' "$out/host.log" | grep 1073741824 | tee -a "$log"
  timeout 120 build/tests/host_copy_probe > "$out/host-copy-probe.log" 2>&1
  tee -a "$log" < "$out/host-copy-probe.log"
  # Long queues behind the start gate (-n 4000): must not open by timeout.
  run gate-n4000 "${mpirun_[@]}" -np "$np" build/peerbench run "${share[@]}" -m ce-write,nccl-allreduce -b 8 -e 8 -n 4000 -s 3 -J "$out/gate-n4000.json"
  grep -E '^  (ce|nccl)-' "$out/gate-n4000.log" | tee -a "$log"
  run nccl-small "${mpirun_[@]}" -np "$np" build/peerbench run "${share[@]}" -m nccl -b 8 -e 8 -n 200 -J "$out/nccl-small.json"
  run p2p-cumem env $(nccl_log p2p-cumem) "${mpirun_[@]}" -np "$np" build/peerbench run "${share[@]}" -m nccl -b 1M -e 64M -J "$out/p2p-cumem.json"
  run p2p-disabled env NCCL_P2P_DISABLE=1 $(nccl_log shm) "${mpirun_[@]}" -x NCCL_P2P_DISABLE -np "$np" build/peerbench run "${share[@]}" -b 1M -e 64M -J "$out/p2p-disabled.json"
  run p2p-shm-disabled env NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 $(nccl_log net-socket) "${mpirun_[@]}" -x NCCL_P2P_DISABLE -x NCCL_SHM_DISABLE -np "$np" build/peerbench run "${share[@]}" -b 1M -e 64M -J "$out/p2p-shm-disabled.json"
  run rounds "${mpirun_[@]}" -np "$np" build/peerbench run "${share[@]}" "${cap[@]}" --schedule rounds -m ce-write,sm-write,nccl-sendrecv -J "$out/rounds.json"
  run serial "${mpirun_[@]}" -np "$np" build/peerbench run "${share[@]}" "${cap[@]}" --schedule serial -m ce-write,sm-write,nccl-sendrecv -J "$out/serial.json"
  build/peerbench compare "$out/serial.json" "$out/rounds.json" > "$out/compare-serial-rounds.txt" 2>&1
  say "# compare serial vs rounds: rc=$? $(tail -1 "$out/compare-serial-rounds.txt")"
  # Per-task GPU binding: each rank sees only its own GPU (Slurm --gpus-per-task does this).
  if [ "$ngpu" -ge 2 ]; then
    run isolated "${mpirun_[@]}" -np "$np" bash -c 'CUDA_VISIBLE_DEVICES=$OMPI_COMM_WORLD_LOCAL_RANK exec "$@"' _ \
        build/peerbench run -b 64M -e 1G -J "$out/isolated.json"
    grep -E '^  [a-z-]+ +0->1 +1073741824' "$out/isolated.log" | tee -a "$log"
  fi
  run two-hosts env $(nccl_log two-hosts) "${mpirun_[@]}" -np 1 -x PEERBENCH_HOST_ID=hostA -x NCCL_HOSTID=hostA build/peerbench run "${share[@]}" -b 1M -e 64M -J "$out/two-hosts.json" : \
      -np 1 -x PEERBENCH_HOST_ID=hostB -x NCCL_HOSTID=hostB build/peerbench run "${share[@]}" -b 1M -e 64M -J "$out/two-hosts.json"
  # Issues 17 and 18 on a real pair: contention, sabotage, queues, odd sizes, bars at 256M..4G,
  # nccl-tests side by side (PEERBENCH_NCCL_TESTS: its binaries), fleet baselines.
  if [ "$ngpu" -ge 2 ]; then
    bash "$here/scripts/gpu_acceptance.sh" "$out/acceptance" "${PEERBENCH_NCCL_TESTS:-}" > /dev/null 2>&1
    acceptance_rc=$?
    say "# acceptance (scripts/gpu_acceptance.sh): rc=$acceptance_rc"
    grep -E '^(FAILED|# (queue|largest|highest|fleet|lead))' "$out/acceptance/acceptance.log" | tee -a "$log"
  fi
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  # The sanitizer runs are the slowest part: run them while a lease's 10-minute call has room.
  elapsed=$(( $(date +%s) - started ))
  if [ -x "$sanitizer" ] && [ "$elapsed" -gt "${PEERBENCH_CHECK_BUDGET:-100000}" ]; then
    say "# sanitizer runs left out: ${elapsed} s elapsed, budget ${PEERBENCH_CHECK_BUDGET} s"
  elif [ -x "$sanitizer" ]; then
    small=(-b 4K -e 256K -f 8 -w 1 -n 2 -s 2 --latency-iters 10 --staged-chunk 64K)
    # The GPU tests themselves under memcheck and racecheck (the memory, long-queue and
    # every-type tests repeat many runs: left out, slow under a sanitizer).
    # API errors are not reported: NCCL probes kernels it lacks images for, by design.
    for tool in memcheck racecheck; do
      run "sanitizer-gpu-tests-$tool" timeout 200 "${mpirun_[@]}" -np 2 --oversubscribe "$sanitizer" --tool "$tool" \
          --error-exitcode 9 --report-api-errors no build/tests/peerbench_gpu_tests \
          --gtest_filter=-Resources.*:SimulatedHosts.*:StartGate.*:Collectives.*
      grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' "$out/sanitizer-gpu-tests-$tool.log" | sort | uniq -c | tee -a "$log"
    done
    for tool in memcheck racecheck; do
      run "sanitizer-$tool" timeout 120 "${mpirun_[@]}" -np "$np" "$sanitizer" --tool "$tool" --error-exitcode 9 --report-api-errors no \
          build/peerbench run "${share[@]}" "${small[@]}" -J "$out/sanitizer-$tool.json"
      grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer-$tool.log" | sort | uniq -c | tee -a "$log"
    done
  fi
fi
# What must never appear: NCCL teardown failures, gate timeouts, failed tests.
destroy_failed=$(cat "$out"/*.log | grep -c 'ncclCommDestroy failed')
gate_timeouts=$(cat "$out"/*.log | grep -ci 'gate opened by its timeout\|start gate timed out')
failed_lines=$(grep -h 'FAILED' "$out"/ctest.log | grep -vc 'FAILED  \] 0')
say "# ncclCommDestroy failed: $destroy_failed"
say "# gate timeouts: $gate_timeouts"
say "# FAILED lines: $failed_lines"
for j in "$out"/*.json; do
  [ -f "$j" ] || continue
  build/peerbench report "$j" > "${j%.json}.report.txt" 2>&1
  rc=$?  # before the line below: its $(basename) would reset $? to 0 (every report read rc=0)
  say "# report $(basename "$j"): rc=$rc"
done
(cd "$out/.." && tar czf "$out.tar.gz" "$(basename "$out")")
say "# collected in $out (and $out.tar.gz)"
[ "$ctest_rc" = 0 ] && [ "$destroy_failed" = 0 ] && [ "$gate_timeouts" = 0 ] && [ "$failed_lines" = 0 ] &&
  [ "${acceptance_rc:-0}" = 0 ] || exit 1
