#!/usr/bin/env bash
# Faults on a GPU node: corrupted data is detected, a rank that dies and GPU work that hangs make
# every rank leave (non-zero, within the timeout, no orphan processes), and the JSON keeps what
# completed and says what was running. Exit 77 (ctest: skipped) without a usable GPU.
set -u
bin=$1
source "$(dirname "$0")/common.sh"
# peerbench's private folders (NCCL logs) go here; none may be left behind, whatever happens.
export TMPDIR="$work/tmp"
mkdir -p "$TMPDIR"
share=()
[ "$ngpu" -lt 2 ] && share=(--allow-gpu-sharing)
small=(-b 64K -e 1M -f 4 -w 1 -n 3 -s 2)  # no latency method here: --latency-iters would be refused
mpi=(mpirun --oversubscribe --bind-to none)
jq_() { python3 -c "import json,sys; d=json.load(open('$1')); print($2)"; }
# No process of this test's jobs is left a second after the launcher returned (looked for every
# 0.1 s: a clean job's ranks are gone at once).
no_orphans() {
  for _ in $(seq 10); do
    pgrep -f "$own_jobs" > /dev/null || return 0
    sleep 0.1
  done
  ! pgrep -f "$own_jobs" > /dev/null
}
# The stuck-kernel cases wait out --timeout; 4 s is far above a sample of these sizes (64K-1M, or
# a few thousand 8-byte copies) and the start gate's 2 s (half of it).
hang_timeout=4

# 1. Corrupted data is found, counted, fails the run and is flagged by report.
"${mpi[@]}" -np 2 "$bin" run "${share[@]}" "${small[@]}" -m ce-write,sm-read \
  --inject-fault corrupt:sm-read:1 -J "$work/corrupt.json" > "$work/corrupt.log" 2>&1
rc=$?
check "[ $rc = 1 ]" "corrupted run exits 1 (got $rc)"
check "[ \"\$(jq_ $work/corrupt.json \"sum(r['check']['wrong'] for r in d['results'] if r['method']=='sm-read')\")\" -gt 0 ]" \
  "wrong elements counted in the JSON"
"$bin" report "$work/corrupt.json" --fail-on data-errors > "$work/corrupt.report" 2>&1
rc=$?
check "[ $rc = 1 ] && grep -q 'data-errors (sm-read): sm-read delivered [0-9]* wrong elements' '$work/corrupt.report'" "report flags data-errors (rc $rc)"

# 2. A rank killed mid-run: the job ends non-zero, fast, and the file says what was running.
t0=$(date +%s)
"${mpi[@]}" -np 2 "$bin" run "${share[@]}" "${small[@]}" -m ce-write,ce-read,sm-write,sm-read --timeout 20 \
  --inject-fault die:sm-write:1 -J "$work/die.json" > "$work/die.log" 2>&1
rc=$?
dt=$(( $(date +%s) - t0 ))
check "[ $rc != 0 ]" "killed rank: job exits non-zero (rc $rc)"
check "[ $dt -lt 60 ]" "killed rank: all ranks gone in $dt s"
check "no_orphans" "killed rank: no peerbench process left"
check "[ \"\$(jq_ $work/die.json \"d['status']\")\" = incomplete ]" "killed rank: JSON status incomplete"
check "[ \"\$(jq_ $work/die.json \"d['in_progress']['method']\")\" = sm-write ]" "killed rank: JSON names the running method"
check "[ \"\$(jq_ $work/die.json \"sum(r['status']=='ok' for r in d['results'] if r['method'] in ('ce-write','ce-read'))\")\" -gt 0 ]" \
  "killed rank: completed results kept"
"$bin" report "$work/die.json" > /dev/null 2>&1
check "[ $? != 2 ]" "killed rank: the file left behind is a valid run"

# 3. GPU work that never finishes: the watchdog stops the run, every rank leaves.
t0=$(date +%s)
"${mpi[@]}" -np 2 "$bin" run "${share[@]}" "${small[@]}" -m ce-write,sm-write --timeout "$hang_timeout" \
  --inject-fault hang:ce-write:1 -J "$work/hang.json" > "$work/hang.log" 2>&1
rc=$?
dt=$(( $(date +%s) - t0 ))
check "[ $rc != 0 ] && [ $dt -lt 60 ]" "stuck kernel: job exits non-zero in $dt s (rc $rc)"
check "[ \"\$(jq_ $work/hang.json \"d['status']\")\" = failed ]" "stuck kernel: JSON status failed"
check "grep -q 'did not finish' '$work/hang.log'" "stuck kernel: one line names method, pair and size"
check "[ \"\$(jq_ $work/hang.json \"all(r['status']=='not-run' for r in d['results'] if r['method']=='sm-write')\")\" = True ]" \
  "stuck kernel: what did not run is marked not-run"
check "no_orphans" "stuck kernel: no peerbench process left"

# 3b. The same stuck kernel in samples of several gate batches (-n 1000: 4 batches of 256
#     copies), then in a streamed CUDA graph (-n 200 -G 20: one gate opening, the replays launched
#     live). Every rank leaves within the timeout: a rank that left its batches early hung the other
#     in the next barrier, and the job never ended (580 s on one H200, killed).
for shape in "-n 1000" "-n 200 -G 20"; do
  tag=$(echo "$shape" | tr -d ' -')
  t0=$(date +%s)
  # shellcheck disable=SC2086 # $shape is two or four words
  "${mpi[@]}" -np 2 "$bin" run "${share[@]}" -b 8 -e 8 -w 1 $shape -s 2 -m ce-write,sm-write \
    --timeout "$hang_timeout" --inject-fault hang:ce-write:1 -J "$work/hang-$tag.json" > "$work/hang-$tag.log" 2>&1
  rc=$?
  dt=$(( $(date +%s) - t0 ))
  check "[ $rc != 0 ] && [ $dt -lt 60 ]" "stuck kernel, $shape: job exits non-zero in $dt s (rc $rc)"
  check "grep -q 'ce-write 1->0 at 8 B did not finish' '$work/hang-$tag.log'" "stuck kernel, $shape: one line names it"
  check "[ \"\$(jq_ $work/hang-$tag.json \"[r['status'] for r in d['results'] if r['method']=='ce-write' and r['src']==0][0]\")\" = ok ]" \
    "stuck kernel, $shape: the pair the fault's rank only receives on still measured"
  check "no_orphans" "stuck kernel, $shape: no peerbench process left"
done

# 4. A peer that never posts its receive: NCCL's watchdog aborts the communicator. One GPU:
#    two ranks posing as two hosts, so NCCL accepts them. (--timeout also bounds NCCL's init,
#    seconds over a socket on one GPU: 8 s here, not $hang_timeout.)
if [ "$ngpu" -ge 2 ]; then
  nccl_cmd=("${mpi[@]}" -np 2 "$bin" run "${small[@]}" -m nccl-sendrecv,nccl-allreduce --timeout 8
            --inject-fault hang:nccl-sendrecv:1 -J "$work/nccl-hang.json")
else
  args=("${share[@]}" "${small[@]}" -m nccl-sendrecv,nccl-allreduce --timeout 8 --inject-fault hang:nccl-sendrecv:1 -J "$work/nccl-hang.json")
  nccl_cmd=("${mpi[@]}" -np 1 -x PEERBENCH_HOST_ID=a -x NCCL_HOSTID=a "$bin" run "${args[@]}" :
            -np 1 -x PEERBENCH_HOST_ID=b -x NCCL_HOSTID=b "$bin" run "${args[@]}")
fi
t0=$(date +%s)
"${nccl_cmd[@]}" > "$work/nccl-hang.log" 2>&1
rc=$?
dt=$(( $(date +%s) - t0 ))
check "[ $rc != 0 ] && [ $dt -lt 90 ]" "NCCL hang: job exits non-zero in $dt s (rc $rc)"
check "grep -q 'NCCL communicator aborted' '$work/nccl-hang.json'" "NCCL hang: communicator aborted, said in the JSON"
check "[ \"\$(jq_ $work/nccl-hang.json \"[r['status'] for r in d['results'] if r['method']=='nccl-allreduce'][0]\")\" = not-run ]" \
  "NCCL hang: later methods marked not-run"
check "no_orphans" "NCCL hang: no peerbench process left"
left=$(ls -A "$TMPDIR" | grep '^peerbench' | head -3)
check "[ -z '$left' ]" "no peerbench temporary files left behind ($left)"
[ $fail != 0 ] && for f in "$work"/*.log; do echo "== $f"; tail -15 "$f"; done
exit $fail
