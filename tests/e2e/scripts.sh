#!/usr/bin/env bash
# The scripts keep peerbench's exit codes (0 all good, 1 measured problems, 2 bad input): a
# usage line for wrong arguments, one line for a missing or unreadable input, no traceback; a
# file or folder they write is checked as the binary checks its own (a link, device, FIFO or
# folder where a file goes is refused and left as it was). And the no-driver message: on a host
# where libcuda.so.1 cannot be loaded, peerbench says so, not "driver version is insufficient".
#   scripts.sh BINARY SOURCE_DIR
set -u
bin=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }
export PEERBENCH=$bin
example=$src/results/examples/h200x2-default.json
flagged=$src/results/examples/h200x2-nccl-shm.json

# expect RC PATTERN "what" cmd...: exit code RC; for 2, one line on stderr matching PATTERN and no
# traceback. Input from /dev/null and a time limit: nothing may wait on a FIFO.
expect() {
  local want=$1 pattern=$2 what=$3 rc lines
  shift 3
  timeout 120 "$@" > "$work/out" 2> "$work/err" < /dev/null
  rc=$?
  lines=$(grep -c . "$work/err")
  if [ $rc = "$want" ] && { [ "$want" != 2 ] || { [ "$lines" = 1 ] && grep -qE -- "$pattern" "$work/err"; }; } &&
    ! grep -q 'Traceback\|unbound variable' "$work/err"; then
    ok "$what: exit $rc${pattern:+: $(head -1 "$work/err")}"
  else
    bad "$what: exit $rc (want $want), $lines stderr lines: $(head -3 "$work/err")"
  fi
}
# expect_argparse "what" cmd...: exit code 2, argparse's usage line and its one error line.
expect_argparse() {
  local what=$1 rc
  shift
  "$@" > "$work/out" 2> "$work/err" < /dev/null
  rc=$?
  [ $rc = 2 ] && head -1 "$work/err" | grep -q '^usage: ' && [ "$(grep -c . "$work/err")" = 2 ] &&
    ! grep -q Traceback "$work/err" && ok "$what: exit 2: $(tail -1 "$work/err")" ||
    bad "$what: exit $rc: $(head -3 "$work/err")"
}
matplotlib=0
python3 -c 'import matplotlib' 2> /dev/null || /usr/bin/python3 -c 'import matplotlib' 2> /dev/null || matplotlib=1
py=python3
python3 -c 'import matplotlib' 2> /dev/null || py=/usr/bin/python3

# ---- report.sh
rs=$src/scripts/report.sh
expect 2 '^usage: report.sh RUN.json OUTDIR$' "report.sh with no argument" bash "$rs"
expect 2 '^usage: ' "report.sh with one argument" bash "$rs" "$example"
expect 0 '' "report.sh --help" bash "$rs" --help
grep -q '^usage: report.sh' "$work/out" || bad "  ... --help prints no usage line"
expect 2 "report.sh: error: $work/none.json: no such file" "report.sh, missing run" bash "$rs" "$work/none.json" "$work/o1"
[ -e "$work/o1" ] && bad "  ... made OUTDIR for a missing run"
expect 2 'is a folder' "report.sh, run is a folder" bash "$rs" "$work" "$work/o1"
echo '{"schema_version": 2' > "$work/broken.json"
expect 2 '^peerbench: error: .*broken.json' "report.sh, run is not JSON" bash "$rs" "$work/broken.json" "$work/o1"
if [ "$(id -u)" != 0 ]; then
  cp "$example" "$work/locked.json"
  chmod 000 "$work/locked.json"
  expect 2 'cannot read' "report.sh, unreadable run" bash "$rs" "$work/locked.json" "$work/o1"
fi
touch "$work/plain-file"
expect 2 'is not a folder' "report.sh, OUTDIR is a file" bash "$rs" "$example" "$work/plain-file"
mkdir -p "$work/o2"
echo keep > "$work/target"
ln -s "$work/target" "$work/o2/report.md"
expect 2 'report.md: it is a symbolic link' "report.sh, OUTDIR/report.md is a symlink" bash "$rs" "$example" "$work/o2"
[ "$(cat "$work/target")" = keep ] && [ -L "$work/o2/report.md" ] && [ ! -e "$work/o2/report.txt" ] &&
  ok "  ... the link and its target untouched, nothing written" || bad "  ... wrote something"
rm "$work/o2/report.md"
mkfifo "$work/o2/report.csv"
expect 2 'report.csv: it exists and is not a regular file' "report.sh, OUTDIR/report.csv is a FIFO" bash "$rs" "$example" "$work/o2"
rm "$work/o2/report.csv"
mkdir "$work/o2/report.html"
expect 2 'report.html: it is a folder' "report.sh, OUTDIR/report.html is a folder" bash "$rs" "$example" "$work/o2"
rmdir "$work/o2/report.html"
expect 0 '' "report.sh on a passing run" bash "$rs" "$example" "$work/o3"
[ -s "$work/o3/report.html" ] && [ -s "$work/o3/report.csv" ] && [ -s "$work/o3/report.md" ] &&
  [ -s "$work/o3/report.txt" ] && ok "  ... every format written" || bad "  ... formats missing: $(ls "$work/o3")"
expect 1 '' "report.sh on a flagged run" bash "$rs" "$flagged" "$work/o3"
expect 2 'peerbench not found' "report.sh, PEERBENCH is not a binary" env PEERBENCH="$work/nowhere" bash "$rs" "$example" "$work/o4"

# ---- fleet_bundle.sh
fb=$src/scripts/fleet_bundle.sh
expect 2 '^usage: fleet_bundle.sh OUTDIR PATH' "fleet_bundle.sh with no argument" bash "$fb"
expect 2 '^usage: ' "fleet_bundle.sh with only OUTDIR" bash "$fb" "$work/b1"
expect 2 "^peerbench: error: .*$work/none" "fleet_bundle.sh, missing results" bash "$fb" "$work/b1" "$work/none"
expect 2 'is not a folder' "fleet_bundle.sh, OUTDIR is a file" bash "$fb" "$work/plain-file" "$example"
mkdir -p "$work/b2"
ln -s "$work/target" "$work/b2/fleet.xml"
expect 2 'fleet.xml: it is a symbolic link' "fleet_bundle.sh, OUTDIR/fleet.xml is a symlink" bash "$fb" "$work/b2" "$example"
[ "$(cat "$work/target")" = keep ] && [ ! -e "$work/b2/fleet.csv" ] && ok "  ... nothing written" || bad "  ... wrote something"
expect 2 'hosts' "fleet_bundle.sh, missing --hosts file" bash "$fb" "$work/b3" "$example" --hosts "$work/none.txt"
expect 1 '' "fleet_bundle.sh with a flagged run" bash "$fb" "$work/b4" "$example" "$flagged"

# ---- plot.py and plot_fleet.py (without matplotlib they exit 2 saying so, before anything else)
if [ $matplotlib = 0 ]; then
  expect_argparse "plot.py with no argument" $py "$src/scripts/plot.py"
  expect 2 "^plot.py: error: $work/none.json: No such file" "plot.py, missing run" $py "$src/scripts/plot.py" "$work/none.json" --out "$work/p1"
  expect 2 '^plot.py: error: .*not JSON' "plot.py, run is not JSON" $py "$src/scripts/plot.py" "$work/broken.json" --out "$work/p1"
  echo '{"kind": "peerbench-run", "schema_version": 2}' > "$work/empty-run.json"
  expect 2 '^plot.py: error: cannot plot this run' "plot.py, run without results" $py "$src/scripts/plot.py" "$work/empty-run.json" --out "$work/p1"
  mkfifo "$work/fifo"
  expect 2 'fifo: it exists and is not a folder' "plot.py, --out is a FIFO" $py "$src/scripts/plot.py" "$example" --out "$work/fifo"
  mkdir -p "$work/p2"
  ln -s "$work/target" "$work/p2/heatmap_ce-write.png"
  expect 2 'heatmap_ce-write.png: it is a symbolic link' "plot.py, a plot's file is a symlink" $py "$src/scripts/plot.py" "$example" --out "$work/p2"
  [ "$(cat "$work/target")" = keep ] && ok "  ... its target untouched" || bad "  ... wrote through the link"
  expect 0 '' "plot.py on a run" $py "$src/scripts/plot.py" "$example" --out "$work/p3"
  [ -z "$(ls -A "$work/p3" | grep '^\.')" ] && [ -n "$(ls "$work/p3")" ] && ok "  ... plots written, no temporary files left" ||
    bad "  ... temporary files left: $(ls -A "$work/p3")"
  expect_argparse "plot_fleet.py with no argument" $py "$src/scripts/plot_fleet.py"
  expect 2 'No such file' "plot_fleet.py, missing CSV" $py "$src/scripts/plot_fleet.py" fleet "$work/none.csv" --out "$work/p4"
  expect 2 'not a peerbench fleet CSV' "plot_fleet.py, a CSV of something else" $py "$src/scripts/plot_fleet.py" fleet "$work/o3/report.csv" --out "$work/p4"
else
  expect 2 'matplotlib is missing' "plot.py without matplotlib" python3 "$src/scripts/plot.py" "$example" --out "$work/p1"
fi

# ---- The other scripts: a usage line and exit code 2 for wrong arguments, before any work
expect 2 '^usage: setup.sh' "setup.sh --bogus" bash "$src/scripts/setup.sh" --bogus
expect 2 '^gpu_check.sh: error: mode slow' "gpu_check.sh OUTDIR slow" bash "$src/scripts/gpu_check.sh" "$work/g" slow
expect 2 'is not a folder' "gpu_check.sh, OUTDIR is a file" bash "$src/scripts/gpu_check.sh" "$work/plain-file" quick
expect 2 '^fleet_scale.sh: error: N lots' "fleet_scale.sh BIN lots" bash "$src/scripts/fleet_scale.sh" "$bin" lots
expect 2 '^usage: fleet_scale.sh' "fleet_scale.sh with three arguments" bash "$src/scripts/fleet_scale.sh" a b c
expect 2 '^fuzz.sh: error: .*fuzz_json_reader not found' "fuzz.sh on a folder without fuzz targets" bash "$src/scripts/fuzz.sh" "$work" 5
expect 2 '^node.sh: error: NP=four' "launch/node.sh, NP=four" env NP=four bash "$src/launch/node.sh"
for s in report.sh fleet_bundle.sh fleet_scale.sh fuzz.sh gpu_check.sh setup.sh; do
  bash "$src/scripts/$s" --help 2> /dev/null | grep -q "^usage: $s" || bad "$s --help prints no usage line"
done

# ---- Every environment variable a script reads is in the user guide's one table of them
# (docs/running.md, "What the scripts read": the rows of that section only, so a variable named in
# another table of the page does not count).
env_doc="$src/docs/running.md"
env_rows=$(awk '/^### What the scripts read/ {on = 1; next} on && /^#/ {on = 0} on && /^\|/' "$env_doc")
[ -n "$env_rows" ] || bad "docs/running.md has no table under '### What the scripts read'"
vars=$(for f in "$src"/scripts/*.sh "$src"/scripts/*.py "$src"/launch/* "$src"/.ci/run; do
  grep -vE '^\s*#' "$f" | grep -oE '\$\{?[A-Z][A-Z0-9_]{2,}' | tr -d '${'
  grep -oE 'environ(\.get)?\(?\[?"[A-Z][A-Z0-9_]+' "$f" | grep -oE '[A-Z][A-Z0-9_]{2,}$'
done | sort -u)
unlisted=""
for v in $vars; do grep -qE "^\|.*\`$v\`" <<< "$env_rows" || unlisted+="$v "; done
[ -z "$unlisted" ] && ok "docs/running.md's table lists all $(echo $vars | wc -w) variables the scripts read" ||
  bad "docs/running.md's table of the scripts' environment variables lacks: $unlisted"

# ---- No NVIDIA driver: what peerbench says
if python3 -c 'import ctypes; ctypes.CDLL("libcuda.so.1")' 2> /dev/null; then
  echo "PEERBENCH_SKIP: libcuda.so.1 loads on this host: the no-driver message is not checked here"
else
  expect 2 'no NVIDIA driver or GPU on this host' "peerbench topo without a driver" "$bin" topo
  grep -q 'insufficient' "$work/err" && bad "  ... still says 'insufficient'"
  # A driver library older than the runtime (a stand-in libcuda.so.1 that reports CUDA 11.4):
  # the "too old" wording, with both versions.
  if command -v cc > /dev/null; then
    mkdir -p "$work/oldcuda"
    printf 'int cuDriverGetVersion(int *v) { *v = 11040; return 0; }\nint cuInit(unsigned f) { (void)f; return 35; }\n' > "$work/oldcuda/cuda.c"
    cc -shared -fPIC -o "$work/oldcuda/libcuda.so.1" "$work/oldcuda/cuda.c"
    expect 2 'driver is too old .*supports CUDA 11.4' "peerbench topo with a driver older than the runtime" \
      env LD_LIBRARY_PATH="$work/oldcuda" "$bin" topo
  fi
fi
exit $fail
