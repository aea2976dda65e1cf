#!/usr/bin/env bash
# Issue 41: other tools' outputs read by import, report, compare and fleet. Node logs are derived
# from one real nccl-tests log (tests/fixtures/imports/nccl-tests-h100-8gpu-g8-allreduce-
# nvswitch.txt, 8 x H100 on node005), each change named where it is made.
set -u
bin=$1
src=$2
fx=$src/tests/fixtures/imports
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }
run() {  # run WANT_RC "what" cmd...: output in $work/out, errors in $work/err
  local want=$1 what=$2
  shift 2
  "$@" > "$work/out" 2> "$work/err"
  local rc=$?
  [ $rc = "$want" ] && ok "$what (exit $rc)" || bad "$what: exit $rc, wanted $want: $(head -3 "$work/err")"
}
has() { grep -q -- "$1" "$work/out" && ok "$2" || bad "$2: '$1' not in: $(head -5 "$work/out")"; }

log=$fx/nccl-tests-h100-8gpu-g8-allreduce-nvswitch.txt
mkdir -p "$work/logs"
# Three nodes: the host renamed (node-a, node-b, node-c); node-c's figures 30 % slower (algbw and
# busbw x0.7, times /0.7), as a degraded node's would be.
for n in a b c; do sed "s/ node005 / node-$n /" "$log" > "$work/logs/node-$n.log"; done
awk '{ if (NF == 13 && $1 ~ /^[0-9]+$/) { $6 = sprintf("%.1f", $6 / 0.7); $7 = sprintf("%.2f", $7 * 0.7);
       $8 = sprintf("%.2f", $8 * 0.7); $10 = sprintf("%.1f", $10 / 0.7); $11 = sprintf("%.2f", $11 * 0.7);
       $12 = sprintf("%.2f", $12 * 0.7) } print }' "$work/logs/node-b.log" |
  sed "s/ node-b / node-c /" > "$work/logs/node-c.log"

run 1 "fleet over a folder of nccl-tests logs" "$bin" fleet "$work/logs"
has "1 flagged, 0 incomplete, 0 missing, 2 pass, of 3 nodes" "fleet verdict over 3 nodes"
has "fleet-outlier" "node-c is an outlier"
has "node-c  flagged" "node-c is flagged"

# Two logs of one node under two NCCL versions: the version line NCCL prints at start inserted
# (2.19.3 in one, 2.21.5 in the other) after the device list.
sed '/^#  Rank  7/a NCCL version 2.19.3+cuda12.3' "$log" > "$work/before.log"
sed '/^#  Rank  7/a NCCL version 2.21.5+cuda12.4' "$log" > "$work/after.log"
run 0 "compare of two nccl-tests logs" "$bin" compare "$work/before.log" "$work/after.log"
has "NCCL" "compare names NCCL"
grep -q "2.19.3" "$work/out" && grep -q "2.21.5" "$work/out" && ok "compare names both versions" ||
  bad "compare does not name the version change: $(grep -i nccl "$work/out" | head -3)"

# report of an imported log with SHM channels: flagged, exit 1.
run 1 "report of an nccl-tests log with SHM channels" "$bin" report "$fx/nccl-tests-rtx5090-2gpu-allreduce-shm-crash-info.txt"
has "nccl-shm" "SHM between GPUs of one host is flagged"

# import: -J writes a results file that report reads back as a run.
run 0 "import -J" "$bin" import "$log" -J "$work/run.json"
run 0 "report of the imported results file" "$bin" report "$work/run.json"
has "PASS: the 1 verdict passes" "the imported run passes"
run 0 "import --out-dir of several outputs" "$bin" import "$work/logs/node-a.log" "$work/logs/node-b.log" --out-dir "$work/out-dir"
[ -s "$work/out-dir/node-a.json" ] && [ -s "$work/out-dir/node-b.json" ] && ok "one file per output" || bad "--out-dir wrote $(ls "$work/out-dir")"
run 2 "-J with two outputs" "$bin" import "$work/logs/node-a.log" "$work/logs/node-b.log" -J "$work/x.json"
run 0 "a topo -m beside a log" "$bin" import "$fx/p2p-latency-test-h100-pcie-2gpu-nvlink-bridge.txt" "$fx/topo-h100-pcie-2gpu-nv12-bridge.txt"

# Refusals: one line naming the file (and the line), exit 2.
printf '# nccl-tests version 2.13.9\n\001\000junk\n' > "$work/junk.log"
run 2 "binary junk" "$bin" import "$work/junk.log"
grep -q "junk.log: line 2: a NUL byte" "$work/err" && [ "$(wc -l < "$work/err")" = 1 ] && ok "one line naming file and line" ||
  bad "junk refused as: $(cat "$work/err")"
mkfifo "$work/fifo"
run 2 "a FIFO" timeout 10 "$bin" import "$work/fifo"
run 2 "a topo -m alone" "$bin" import "$fx/topo-h100-pcie-2gpu-nv12-bridge.txt"
exit $fail
