#!/usr/bin/env bash
# Issue 18's burn-in on a GPU node: -N cycles with a corrupted sample injected in cycle 3 (named
# with its cycle), --duration (stops by time, the file written after every cycle), and SIGINT or
# SIGTERM to a rank (ends cleanly with the cycles done: a valid file that reports them and names
# the signal). The host<->GPU methods
# need one GPU. Exit 77 (ctest: skipped) without a usable GPU.
set -u
bin=$1
source "$(dirname "$0")/common.sh"
jq_() { python3 -c "import json,sys; d=json.load(open('$1')); print($2)"; }
small=(-m h2d,d2h -b 64M -e 64M -w 1 -n 5 -s 2 -I 0 --confirm 0)

# 1. Four cycles, corrupt data in cycle 3 only.
"$bin" run --np 1 "${small[@]}" -N 4 --inject-fault corrupt:h2d:0:3 -J "$work/n4.json" > "$work/n4.log" 2>&1
rc=$?
grep -E '^# burn-in' "$work/n4.log"
check "[ $rc = 1 ]" "-N 4 with a corrupted cycle exits 1 (got $rc)"
check "[ \"\$(jq_ $work/n4.json \"d['burn_in']['cycles_done']\")\" = 4 ]" "-N 4: four cycles done"
check "[ \"\$(jq_ $work/n4.json \"d['burn_in']['stopped_by']\")\" = cycles ]" "-N 4: stopped by its cycle count"
check "[ \"\$(jq_ $work/n4.json \"[c['wrong'] > 0 for c in d['burn_in']['cycles']]\")\" = '[False, False, True, False]' ]" "-N 4: wrong elements in cycle 3 alone"
"$bin" report "$work/n4.json" > "$work/n4.report" 2>&1
# The report wraps its details at 120 columns: read them as one line.
check "tr -s ' \\n' ' ' < '$work/n4.report' | grep -q 'burn-in-errors (h2d): h2d .*delivered wrong elements in cycle 3 of 4 (cycle 3 began .* into the run), at 64 MiB'" "report names the corrupted cycle, when it began and the size"

# 2. By time: cycles until --duration is over (no -N: --duration alone bounds the cycles). It
# counts from the job's start: set-up and the idle check take about 2 s, a cycle a fraction of one.
"$bin" run --np 1 "${small[@]}" --duration 4s -J "$work/dur.json" > "$work/dur.log" 2>&1
rc=$?
check "[ $rc = 0 ]" "--duration 4s exits 0 (got $rc)"
check "[ \"\$(jq_ $work/dur.json \"d['burn_in']['stopped_by']\")\" = duration ]" "--duration: stopped by time"
check "[ \"\$(jq_ $work/dur.json \"d['burn_in']['cycles_done'] >= 2\")\" = True ]" "--duration: several cycles"
check "[ \"\$(jq_ $work/dur.json \"all(len(s['values']) == d['burn_in']['cycles_done'] for s in d['burn_in']['series'])\")\" = True ]" "--duration: every case has a figure per cycle"

# stopped NAME SIGNAL [TIMES]: a burn-in without bound, signalled TIMES times at once after two
# cycles; echoes the job's exit code.
stopped() {
  local name=$1 sig=$2 times=${3:-1} job
  mpirun --oversubscribe --bind-to none -np 1 "$bin" run "${small[@]}" -N 0 -J "$work/$name.json" > "$work/$name.log" 2>&1 &
  job=$!
  for _ in $(seq 100); do
    [ -s "$work/$name.json" ] && [ "$(jq_ "$work/$name.json" "len((d.get('burn_in') or {}).get('cycles', []))" 2> /dev/null)" -ge 2 ] 2> /dev/null && break
    sleep 0.2
  done
  # The job's ranks alone (not mpirun, not the CPU tests' peerbench processes beside this test).
  for _ in $(seq "$times"); do pkill "-$sig" -f "^$own_jobs$name\.json"; done
  wait $job
  echo $?
}

# 3. SIGINT to the rank: the cycle in flight finishes, the file reports the cycles done.
rc=$(stopped int INT)
check "[ $rc = 0 ]" "SIGINT: the job ends cleanly (exit $rc)"
check "[ \"\$(jq_ $work/int.json \"d['burn_in']['stopped_by']\")\" = SIGINT ]" "SIGINT: the file says why it stopped"
check "[ \"\$(jq_ $work/int.json \"d['status']\")\" = complete ]" "SIGINT: the first cycle is whole"
"$bin" report "$work/int.json" > "$work/int.report" 2>&1
check "[ $? = 0 ]" "SIGINT: the file reports ($(jq_ $work/int.json "d['burn_in']['cycles_done']") cycles done)"

# 4. SIGTERM, twice within milliseconds (a batch system at its time limit signals the tasks and
# the launcher forwards its own): the same clean end, and the file names the signal that came
# (it once wrote SIGINT for both; a second signal once left before the final write).
rc=$(stopped term TERM 2)
check "[ $rc = 0 ]" "SIGTERM: the job ends cleanly (exit $rc)"
check "[ \"\$(jq_ $work/term.json \"d['burn_in']['stopped_by']\")\" = SIGTERM ]" "SIGTERM: the file names it"
"$bin" report "$work/term.json" > /dev/null 2>&1
check "[ $? = 0 ]" "SIGTERM: the file reports"
exit $fail
