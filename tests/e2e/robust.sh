#!/usr/bin/env bash
# End-to-end checks of issue 12, "robust at the edges", with the executable and no GPU needed:
# bounded work for any input, writes that replace only regular files, one exit-code contract,
# strict reading of results files, terminal-safe reports. Every case here failed once.
set -u
bin=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }

# expect_code CODE "description" cmd...: that exit code, one line on stderr starting with
# "peerbench: error: " (for 2), no crash. Memory is capped so a runaway fails instead of swapping.
expect_code() {
  local want=$1 what=$2
  shift 2
  (ulimit -v 4000000; "$@") > "$work/out" 2> "$work/err" < /dev/null
  local rc=$? lines
  lines=$(grep -c . "$work/err")
  if [ $rc = "$want" ] && { [ "$want" = 0 ] || { [ "$lines" = 1 ] && grep -q '^peerbench: error: ' "$work/err"; }; } &&
    ! grep -qi 'terminate\|core dump\|bad_alloc' "$work/err"; then
    ok "$what -> rc $rc $(head -1 "$work/err")"
  else
    bad "$what: rc=$rc (want $want), $lines stderr lines: $(head -3 "$work/err")"
  fi
}
expect_usage() { expect_code 2 "$@"; }
mentions() { grep -qF -- "$1" "$work/err" && ok "  ... names '$1'" || bad "  ... does not name '$1': $(cat "$work/err")"; }

gpu=1
"$bin" topo -q > /dev/null 2>&1 || gpu=0

# ---- 1. Bounded work
expect_usage "sweep of a trillion sizes" "$bin" run --dry-run --np 4 -b 1 -e 1T -i 1
mentions "-i/--stepbytes"
expect_usage "--np 4096" "$bin" run --dry-run --np 4096
mentions "--np"
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f "%e %U %M" -o "$work/time" "$bin" run --dry-run --np 1024 > "$work/plan1024" 2> /dev/null
  rc=$?
  read -r wall user rss_kb < "$work/time"
else
  "$bin" run --dry-run --np 1024 > "$work/plan1024" 2> /dev/null
  rc=$? wall=? user=0 rss_kb=0
fi
if [ $rc = 0 ] && [ "$rss_kb" -lt 204800 ] && awk "BEGIN{exit !($user < 2.0)}"; then
  ok "dry run of 1024 ranks: ${user} s CPU (${wall} s wall), $((rss_kb / 1024)) MB"
else
  bad "dry run of 1024 ranks: rc $rc, ${user} s CPU, $((rss_kb / 1024)) MB (want < 2 s, < 200 MB)"
fi
grep -q '^# Estimated time: [0-9.]* s' "$work/plan1024" && ok "  ... with an estimate" || bad "  ... no estimate"
# -v listed all 10 million steps of 1024 ranks (675 MB, 12-21 s; issue 42): it lists pairs up to
# its limit (docs/limits.md), then summarises and says so.
start=$(date +%s%N)
"$bin" run --dry-run --np 1024 -v > "$work/plan1024v" 2> /dev/null
rc=$? ms=$((($(date +%s%N) - start) / 1000000)) bytes=$(wc -c < "$work/plan1024v")
if [ $rc = 0 ] && [ $ms -lt 5000 ] && [ "$bytes" -lt 20000000 ] &&
  grep -q '^# note: -v lists at most 100000 pairs' "$work/plan1024v"; then
  ok "verbose dry run of 1024 ranks: ${ms} ms, $((bytes / 1000000)) MB, the listing's limit said"
else
  bad "verbose dry run of 1024 ranks: rc $rc, ${ms} ms, $bytes bytes (want < 5 s, < 20 MB, the note)"
fi
# The plan's columns stay aligned at large rank counts: the sizes column starts at one offset.
cols=$(grep -E '^  [a-z].* 1M\.\.1G' "$work/plan1024" | awk '{print index($0, " 1M..1G")}' | sort -u | wc -l)
[ "$cols" = 1 ] && ok "  ... columns aligned" || bad "  ... sizes column at $cols offsets"

# ---- 4. A dry run checks -J and --expect
expect_usage "dry run, -J into a folder" "$bin" run --dry-run --np 2 -J "$work"
expect_usage "dry run, -J /dev/full" "$bin" run --dry-run --np 2 -J /dev/full
expect_usage "dry run, -J below a file" "$bin" run --dry-run --np 2 -J /proc/version/r.json
expect_usage "dry run, missing --expect" "$bin" run --dry-run --np 2 --expect "$work/none.json"
mentions "--expect"
"$bin" run --dry-run --np 2 -J "$work/new/sub/r.json" > /dev/null 2>&1
[ $? = 0 ] && [ ! -e "$work/new" ] && ok "dry run with a -J in new folders: accepted, no folders left" ||
  bad "dry run with -J in new folders left $work/new or failed"

# ---- 5. One exit-code contract; no GPU is a launch that cannot work (2, one line)
if [ $gpu = 0 ]; then
  expect_usage "topo without a GPU" "$bin" topo
  expect_usage "run without a GPU" "$bin" run -J "$work/a/b/r.json"
  [ ! -e "$work/a" ] && ok "  ... and left no folders for -J" || bad "  ... left $work/a behind"
  expect_usage "run without a GPU, -J into /proc" "$bin" run -J /proc/peerbench/r.json
  mentions "-J/--json"
fi
expect_usage "report of a folder" "$bin" report /tmp
mentions "is a folder"
expect_usage "report -o ''" "$bin" report /tmp -o ""
expect_usage "compare -o ''" "$bin" compare a.json b.json -o ""
expect_usage "topo --json ''" "$bin" topo --json ""

# ---- 7. Timeouts
for t in 1e308 1e-300; do
  expect_usage "--timeout $t" "$bin" run --dry-run --np 2 --timeout $t
  mentions "86400"
done

# ---- 3, 6, 8: need a results file; the committed fixture is a real run.
fixture=$src/tests/fixtures/runs/h200x1-shared-serial.json
if ! command -v python3 > /dev/null || [ ! -f "$fixture" ]; then
  echo "skip: results-file cases need python3 and $fixture"
  exit $fail
fi
edit() {  # edit OUT PYTHON: the fixture with `PYTHON` applied to d
  python3 - "$fixture" "$1" "$2" << 'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
ok = next(r for r in d["results"] if r["status"] == "ok")
exec(sys.argv[3])
open(sys.argv[2], "w").write(json.dumps(d))
EOF
}

# 3. Safe writes
ln -s "$fixture" "$work/link.txt"
expect_usage "report -o onto a symlink" "$bin" report "$fixture" -o "$work/link.txt"
[ -L "$work/link.txt" ] && ok "  ... the symlink is still one" || bad "  ... the symlink was replaced"
# A FIFO or a device is written as it is, never replaced; a FIFO nobody reads is refused at once.
mkfifo "$work/fifo"
expect_usage "report -o onto a FIFO nobody reads" timeout 20 "$bin" report "$fixture" -o "$work/fifo"
mentions "no process reads from it"
[ -p "$work/fifo" ] && ok "  ... the FIFO is still one" || bad "  ... the FIFO was replaced"
# The shell holds the FIFO open first, so the reader is there before peerbench opens it (a
# background reader alone may not have opened it yet); closing it gives the reader its end.
exec 3<> "$work/fifo"
timeout 20 cat "$work/fifo" > "$work/from-fifo" &
reader=$!
timeout 20 "$bin" report "$fixture" --format csv -o "$work/fifo" > /dev/null 2>&1
rc=$?
exec 3>&-
wait $reader
{ [ $rc = 0 ] || [ $rc = 1 ]; } && head -1 "$work/from-fifo" | grep -q '^run,method,' && [ -p "$work/fifo" ] &&
  ok "report -o onto a FIFO with a reader: the report goes through it (rc $rc)" ||
  bad "report -o onto a FIFO with a reader: rc $rc, read $(wc -c < "$work/from-fifo") bytes"
rm -f "$work/from-fifo"
expect_usage "report -o /dev/full" "$bin" report "$fixture" -o /dev/full
mentions "-o/--output: cannot write /dev/full: No space left on device"
expect_usage "compare -o onto a symlink" "$bin" compare "$fixture" "$fixture" -o "$work/link.txt"
# Missing folders are made, as run -J makes them (issue 39: report -o new/dir/r.html failed).
"$bin" report "$fixture" --format markdown -o "$work/made/sub/r.md" > /dev/null 2>&1
rc=$?
{ [ $rc = 0 ] || [ $rc = 1 ]; } && [ -s "$work/made/sub/r.md" ] && [ "$(ls -A "$work/made/sub")" = r.md ] &&
  ok "report -o into missing folders makes them (rc $rc)" || bad "report -o into missing folders: rc $rc"
rm -rf "$work/made"
expect_usage "report -o below a file" "$bin" report "$fixture" -o /proc/version/r.md
mentions "-o/--output: cannot write /proc/version/r.md: "
grep -q '\.tmp\.\|XXXXXX\|/\.r\.md\.' "$work/err" && bad "  ... names a temporary path" || ok "  ... no temporary path named"
echo old > "$work/private.txt"
chmod 600 "$work/private.txt"
"$bin" report "$fixture" -o "$work/private.txt" > /dev/null 2>&1
[ "$(stat -c %a "$work/private.txt")" = 600 ] && grep -q 'peerbench report' "$work/private.txt" &&
  ok "report -o keeps a 0600 file's mode" || bad "report -o changed the mode to $(stat -c %a "$work/private.txt")"
[ -z "$(ls -A "$work" | grep -v '^\(link.txt\|fifo\|private.txt\|plan1024\|plan1024v\|time\|out\|err\)$')" ] &&
  ok "no temporary files left" || bad "left behind: $(ls -A "$work")"

# 6. Results no run could have written
i=0
while IFS='|' read -r what code field; do
  i=$((i + 1))
  edit "$work/bad$i.json" "$code"
  expect_usage "report of a file with $what" "$bin" report "$work/bad$i.json"
  mentions "bad$i.json: field '$field"
done << 'CASES'
a time of 0|ok["time_us"]["min"] = 0|results[
a negative time|ok["time_us"]["min"] = -1|results[
a bandwidth of 1e300|ok["algbw_gbps"] = {"min": 1e300, "median": 1e300, "max": 1e300}|results[
0 bytes|ok["bytes"] = 0|results[
1.5 bytes|ok["bytes"] = 1.5|results[
in_progress a number|d["in_progress"] = 7|in_progress
a result for rank 9|ok["src"] = 9|results[
src == dst|ok["dst"] = ok["src"]|results[
no ranks|d["system"]["ranks"] = []|system.ranks
no methods|d["methods"] = []|methods
a rank twice|d["system"]["ranks"][1]["rank"] = 0|system.ranks[1].rank
CASES
sed 's/^{/{"schema_version": 2, /' "$fixture" > "$work/dup.json"
expect_usage "report of a file with a duplicate key" "$bin" report "$work/dup.json"
mentions "field 'schema_version': duplicate key"

# 8. Terminal control codes from the file are escaped in text and Markdown
edit "$work/esc.json" 'd["system"]["ranks"][0]["gpu"]["name"] = "H200\x1b[2J\x1b]0;owned\x07"'
for f in text markdown; do
  "$bin" report "$work/esc.json" --format $f > "$work/esc.$f" 2>&1
  if grep -q $'\x1b' "$work/esc.$f" || grep -q $'\x07' "$work/esc.$f"; then
    bad "report --format $f passes control codes to the terminal"
  else
    grep -q '\\x1b' "$work/esc.$f" && ok "report --format $f escapes control codes" || bad "report --format $f: escape not shown"
  fi
done

# 9. Standard output that cannot be written is exit 2 with why, never a cut file and exit 0;
# '-o -' is standard output, not a file named '-' (an SRE's audit)
for out in /dev/full closed; do
  for cmd in "report $fixture --format csv" "compare $fixture $fixture" "fleet $fixture --format junit" "--version"; do
    if [ $out = closed ]; then
      $bin $cmd >&- 2> "$work/err"
    else
      $bin $cmd > /dev/full 2> "$work/err"
    fi
    rc=$?
    if [ $rc = 2 ] && [ "$(grep -c . "$work/err")" = 1 ] && grep -q 'standard output cannot be written' "$work/err"; then
      ok "stdout $out, $cmd -> rc 2 $(cat "$work/err")"
    else
      bad "stdout $out, $cmd: rc=$rc $(head -2 "$work/err")"
    fi
  done
done
(abs=$(realpath "$fixture") && b=$(realpath "$bin") && cd "$work" && "$b" report "$abs" --format csv -o - > stdout.csv 2> err)
[ $? = 0 ] && [ ! -e "$work/-" ] && head -1 "$work/stdout.csv" | grep -q '^run,method,' &&
  ok "-o - writes standard output" || bad "-o - did not write standard output (or left a file named -)"
# 10. A --fail-on narrower than the default says what it let pass (report's own wiring)
shm=$src/results/examples/h200x2-nccl-shm.json
"$bin" report "$shm" --fail-on none > "$work/waived.txt" 2>&1
[ $? = 0 ] && grep -q '^  waived: --fail-on none leaves out 9 that the default (all) counts: ' "$work/waived.txt" &&
  ok "report --fail-on none names what it waived" || bad "report --fail-on none: $(grep -i waived "$work/waived.txt")"
expect_usage "--write-baseline -" "$bin" fleet "$fixture" --write-baseline -
mentions "--write-baseline: '-' is not standard input or output"
exit $fail
