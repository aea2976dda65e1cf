#!/usr/bin/env bash
# Issue 17 on a GPU node: no false accusations.
#  - another process on a GPU of the job (a plain copy loop, tests/probes/gpu_busy_loop) is named,
#    never blamed: its cases are contended, the run exits 1 and says who was there;
#  - --require-idle refuses to start beside it (exit 2, naming pid and GPU); two peerbench jobs
#    at once see each other;
#  - a link that cannot meet its bar (a site bar no link meets) stays flagged after its
#    confirmation repeat, and the JSON holds both measurements;
#  - run's exit code is report's on the file it wrote (pass, flagged, contended, cut short).
# (Long queues, -n 250, 1000 and 4000 giving the same time per operation, are checked by the GPU
# tests: StartGate.LongQueuesMeasureWhatShortOnesDo, on the file each job writes.)
# Another job's copy loop runs last: nothing waits for its utilization to leave NVML's window.
# The host<->GPU methods are judged against the GPU's PCIe link, so one GPU is enough.
# Exit 77 (ctest: skipped) without a usable GPU.
set -u
bin=$1
loop=$2
source "$(dirname "$0")/common.sh"
jq_() { python3 -c "import json,sys; d=json.load(open('$1')); print($2)"; }
host=(-m h2d,d2h -b 256M -e 256M -w 2 -n 10 -s 3)
twin=(-m h2d,d2h -b 256M -e 256M -w 2 -n 40 -s 3)  # two jobs at once: longer, to overlap
report_rc() { "$bin" report "$1" > /dev/null 2>&1; echo $?; }

# 1. A quiet GPU: pass, exit 0, report agrees; the JSON says the GPU was watched and idle.
"$bin" run --np 1 "${host[@]}" -J "$work/quiet.json" > "$work/quiet.log" 2>&1
rc=$?
cat "$work/quiet.log"
check "[ $rc = 0 ]" "quiet GPU: run exits 0 (got $rc)"
check "[ $(report_rc "$work/quiet.json") = $rc ]" "quiet GPU: report's exit code is run's"
check "[ \"\$(jq_ $work/quiet.json \"d['gpu_activity'][0]['monitor']\")\" = nvml ]" "quiet GPU: watched through NVML"
check "[ \"\$(jq_ $work/quiet.json \"d['gpu_activity'][0]['idle_checks'][0]['idle']\")\" = True ]" "quiet GPU: the start idle check found it idle"
check "[ \"\$(jq_ $work/quiet.json \"all(r['interference'] == [] for r in d['results'])\")\" = True ]" "quiet GPU: no case saw anything in its way"

# 2. Two peerbench jobs at once: each is the other's contention.
"$bin" run --np 1 "${twin[@]}" -J "$work/twin-a.json" > "$work/twin-a.log" 2>&1 &
a=$!
"$bin" run --np 1 "${twin[@]}" -J "$work/twin-b.json" > "$work/twin-b.log" 2>&1
rc_b=$?
wait $a
rc_a=$?
check "[ $rc_a = 1 ] && [ $rc_b = 1 ]" "two jobs at once: both exit 1 (got $rc_a, $rc_b)"
check "grep -q 'CONTENDED: pid [0-9]* peerbench' '$work/twin-a.log' && grep -q 'CONTENDED: pid [0-9]* peerbench' '$work/twin-b.log'" "two jobs at once: each names the other peerbench"

# 3. A bar no link meets is still flagged after its confirmation repeat, with both figures.
echo '{"min_gbps": {"h2d": 100000}}' > "$work/impossible.json"
"$bin" run --np 1 "${host[@]}" --expect "$work/impossible.json" -J "$work/flagged.json" > "$work/flagged.log" 2>&1
rc=$?
check "[ $rc = 1 ]" "impossible bar: run exits 1 (got $rc)"
check "[ $(report_rc "$work/flagged.json") = $rc ]" "impossible bar: report's exit code is run's"
check "[ \"\$(jq_ $work/flagged.json \"[f['evidence']['confirmed'] for v in d['verdicts'] for f in v['flags'] if f['code']=='below-link']\")\" = '[True]' ]" "impossible bar: below-link confirmed by its repeat"
check "[ \"\$(jq_ $work/flagged.json \"[len(f['evidence']['attempts']) for v in d['verdicts'] for f in v['flags'] if f['code']=='below-link']\")\" = '[2]' ]" "impossible bar: the evidence holds both measurements"

# 4. A run cut short (stuck GPU work stops it): run's exit code is report's.
"$bin" run --np 1 "${host[@]}" --timeout 3 --inject-fault hang:d2h:0 -J "$work/cut.json" > "$work/cut.log" 2>&1
rc=$?
check "[ $rc = 1 ] && [ $(report_rc "$work/cut.json") = $rc ]" "cut short: run exits 1 (rc $rc) and report says the same"

# 5. Another job on the GPU.
"$loop" 120 0 2048 > "$work/loop.out" 2>&1 &
loop_pid=$!
trap 'kill $loop_pid 2> /dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do grep -q '^busy pid' "$work/loop.out" && break; sleep 0.2; done
sleep 2
"$bin" run --np 1 "${host[@]}" -J "$work/busy.json" > "$work/busy.log" 2>&1
rc=$?
cat "$work/busy.log"
check "[ $rc = 1 ]" "busy GPU: run exits 1 (got $rc)"
check "[ $(report_rc "$work/busy.json") = $rc ]" "busy GPU: report's exit code is run's"
check "grep -q 'CONTENDED: pid $loop_pid gpu_busy_loop' '$work/busy.log'" "busy GPU: the live table names the process"
check "[ \"\$(jq_ $work/busy.json \"[m['state'] for v in d['verdicts'] for m in v['methods']]\")\" = \"['contended', 'contended']\" ]" "busy GPU: h2d and d2h are contended"
check "! grep -q 'below-link\\|high-latency' '$work/busy.log'" "busy GPU: no below-link or high-latency"
check "grep -q 'pid $loop_pid (gpu_busy_loop' '$work/busy.log'" "busy GPU: the verdict names pid and process"
check "[ \"\$(jq_ $work/busy.json \"d['gpu_activity'][0]['seen'][0]['process']['pid']\")\" = $loop_pid ]" "busy GPU: the activity log has the process with its times"
check "[ \"\$(jq_ $work/busy.json \"len(d['confirmations']) >= 2\")\" = True ]" "busy GPU: contended cases were measured again"

"$bin" run --np 1 "${host[@]}" --require-idle -J "$work/refused.json" > "$work/refused.log" 2>&1
rc=$?
cat "$work/refused.log"
check "[ $rc = 2 ]" "--require-idle beside a busy GPU exits 2 (got $rc)"
check "grep -q -- \"--require-idle: another process uses a GPU of the job: pid $loop_pid (gpu_busy_loop\" '$work/refused.log'" "--require-idle names pid and process"
check "grep -q 'on GPU 0 (' '$work/refused.log'" "--require-idle names the GPU"
echo '{"fraction_of_link": 0.6}' > "$work/site.json"
"$bin" run --np 1 "${host[@]}" --expect "$work/site.json" -J "$work/acceptance.json" > "$work/acceptance.log" 2>&1
check "[ $? = 2 ]" "acceptance mode (--expect) refuses a busy GPU"
"$bin" run --np 1 "${host[@]}" --expect "$work/site.json" --allow-busy -J "$work/allowed.json" > "$work/allowed.log" 2>&1
check "[ $? = 1 ] && grep -q 'FAILED' '$work/allowed.log'" "--allow-busy measures anyway, and fails as contended"
kill $loop_pid 2> /dev/null
wait $loop_pid 2> /dev/null
exit $fail
