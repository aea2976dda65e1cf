#!/usr/bin/env bash
# End-to-end checks of the executable that need no GPU: help and listings, one-line errors with
# exit code 2 for every kind of bad input (also under mpirun, where every rank must leave),
# dry-run plans for 4 and 8 ranks, report and compare on the committed examples (which must
# exist: results/examples/README.md).
set -u
bin=$1
src=$2
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }

# expect_usage "description" cmd...: exit 2 and exactly one line from peerbench on stderr (mpirun
# adds its own banner about the non-zero exit; that one is not ours to count).
expect_usage() {
  local what=$1; shift
  "$@" > "$work/out" 2> "$work/err"
  local rc=$?
  local lines
  if [ "$1" = mpirun ] || [ "${3:-}" = mpirun ]; then
    lines=$(grep -c '^peerbench' "$work/err")
  else
    lines=$(grep -c . "$work/err")
  fi
  if [ $rc = 2 ] && [ "$lines" = 1 ] && grep -q '^peerbench: error: ' "$work/err" && ! grep -qi 'core dump\|signal' "$work/err"; then
    ok "$what -> $(cat "$work/err")"
  else
    bad "$what: rc=$rc, $lines stderr lines: $(head -3 "$work/err")"
  fi
}

"$bin" --help | grep -q '^  peerbench compare' && ok "--help lists the commands" || bad "--help"
"$bin" run --help | grep -q -- '--maxbytes' && ok "run --help" || bad "run --help"
[ "$("$bin" --list-methods | grep -c '^  [a-z]')" -ge 12 ] && ok "--list-methods" || bad "--list-methods"
"$bin" --version | grep -q '^peerbench ' && ok "--version" || bad "--version"

# The binary's own catalogue (src/gpu/method.cpp derives each method's workers): -a combines the
# times of several ranks, so a one-sided copy refuses it and a two-ended one takes it; -G on
# methods it cannot capture is refused.
expect_usage "-a on a one-sided copy" "$bin" run --dry-run --np 2 -m ce-write,h2d -a 1
for m in ce-bidir sm-latency staged nccl-sendrecv nccl-allreduce; do
  "$bin" run --dry-run --np 2 -m $m -a 1 > /dev/null 2>&1 && ok "-a 1 with $m" || bad "-a 1 refused with $m"
done
expect_usage "-G on staged and sm-latency" "$bin" run --dry-run --np 2 -m staged,sm-latency -G 4
expect_usage "zero size" "$bin" -b 0
expect_usage "min above max" "$bin" -b 1G -e 1M
expect_usage "factor below 2" "$bin" -f 1
expect_usage "garbage number" "$bin" -n lots
expect_usage "negative count" "$bin" -w -3
expect_usage "unknown method" "$bin" -m ce-wrte
expect_usage "unknown option" "$bin" --frobnicate
expect_usage "report without input" "$bin" report
expect_usage "report of a missing file" "$bin" report "$work/none.json"
echo '{"schema_version": 1' > "$work/trunc.json"
expect_usage "report of a truncated file" "$bin" report "$work/trunc.json"
echo '{"schema_version": 99, "kind": "peerbench-run"}' > "$work/future.json"
expect_usage "report of a future schema" "$bin" report "$work/future.json"
expect_usage "compare with one file" "$bin" compare "$work/trunc.json"

# Under mpirun every rank parses alike; one line in all, and every rank leaves. The reporting
# rank must not be killed before its line is out by a peer that left first (this lost the line
# on a loaded CI machine once), so these run several times.
mpi=(mpirun --oversubscribe --bind-to none)
for i in 1 2 3; do
  expect_usage "bad flag under mpirun -np 4 (try $i)" "${mpi[@]}" -np 4 "$bin" run -b 12X
done
expect_usage "unwritable JSON path under mpirun" "${mpi[@]}" -np 2 "$bin" run -J /proc/peerbench/r.json
# A method named that needs two GPUs is refused on one rank, never dropped (issue 39).
expect_usage "single rank, -m ce-write" "${mpi[@]}" -np 1 "$bin" run -m ce-write -J "$work/one.json"
expect_usage "--np 1 -m ce-write" "$bin" run --dry-run --np 1 -m ce-write
grep -q 'need at least 2 ranks' "$work/err" && ok "  ... names what is missing" || bad "  ... $(cat "$work/err")"
# One GPU is enough for the host<->GPU methods alone.
if "${mpi[@]}" -np 1 "$bin" run -m host --dry-run 2> "$work/one-host.err" | grep -q '^  h2d-all .*rank 0$' &&
   "$bin" run -m h2d --dry-run --np 1 | grep -q '^  h2d '; then
  ok "one rank plans the host methods"
else
  bad "one rank, -m host: $(cat "$work/one-host.err")"
fi
expect_usage "--np under a launcher" "${mpi[@]}" -np 2 "$bin" run --np 2
# The default job (no -m) on one GPU measures the host link and says why in one line (issue 39).
one_gpu_plan() {  # what: the first line names the rank count, the plan is h2d and d2h alone
  local what=$1; shift
  "$@" > "$work/one.txt" 2> "$work/one.err"
  local rc=$?
  if [ $rc = 0 ] && head -1 "$work/one.txt" | grep -q "^# $what: pair methods and collectives need 2 or more; measuring the host link only (h2d, d2h)$" &&
    [ "$(grep -c '^  [a-z]' "$work/one.txt")" = 2 ] && grep -q '^  h2d ' "$work/one.txt" && grep -q '^  d2h ' "$work/one.txt"; then
    ok "default job, $what: the host link, one line why"
  else
    bad "default job, $what: rc $rc: $(head -3 "$work/one.txt") $(cat "$work/one.err")"
  fi
}
one_gpu_plan "--np 1" "$bin" run --dry-run --np 1
one_gpu_plan "the job has 1 rank" "${mpi[@]}" -np 1 "$bin" run --dry-run
"$bin" run --dry-run --np 1 -q > "$work/one-q.txt"
[ "$(wc -l < "$work/one-q.txt")" = 2 ] && grep -q '^# Plan: 1 rank, .* 12 cases in 2 steps; estimated' "$work/one-q.txt" &&
  ok "--np 1 -q: the line why and the plan's totals" || bad "--np 1 -q: $(cat "$work/one-q.txt")"
expect_usage "--np 1 -d double (the collectives' flag, on the host link alone)" "$bin" run --dry-run --np 1 -d double
grep -q -- '--np 1: pair methods' "$work/err" && ok "  ... says the job is the host link's" || bad "  ... $(cat "$work/err")"
# What such a job writes passes where its figures do: a 2-GPU host run cut to rank 0, h2d and d2h.
if command -v python3 > /dev/null; then
  python3 - "$src/results/examples/h200x2-host.json" "$work/one-gpu.json" << 'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
keep = {"h2d", "d2h"}
d["results"] = [r for r in d["results"] if r["src"] == 0 and r["method"] in keep]
d["system"]["ranks"] = d["system"]["ranks"][:1]
d["methods"] = [m for m in d["methods"] if m["name"] in keep]
d["config"]["methods"] = ["h2d", "d2h"]
d["pairs"], d["verdicts"] = [], []
d["link_health"] = [h for h in d["link_health"] if h["gpu_index"] == 0]
json.dump(d, open(sys.argv[2], "w"))
EOF
  "$bin" report "$work/one-gpu.json" > "$work/one-gpu.txt" 2>&1
  rc=$?
  [ $rc = 0 ] && grep -q 'verdict: the 1 verdict passes' "$work/one-gpu.txt" &&
    ok "a one-GPU host-link run: report exit 0, the verdict passes" || bad "one-GPU run: rc $rc: $(grep verdict "$work/one-gpu.txt")"
fi

# ---- The command line of issue 39
expect_usage "run -o run.json" "$bin" run --dry-run -o run.json
grep -q -- "-o is the reduction op.*as in nccl-tests.*results are written with -J PATH" "$work/err" &&
  ok "  ... says -o is the reduction and results go to -J" || bad "  ... $(cat "$work/err")"
expect_usage "-m ce-wrtie" "$bin" run -m ce-wrtie --dry-run
grep -q "did you mean ce-write?" "$work/err" && ok "  ... did you mean ce-write" || bad "  ... $(cat "$work/err")"
expect_usage "--dry-rn" "$bin" --dry-rn
grep -q -- "did you mean --dry-run?" "$work/err" && ok "  ... did you mean --dry-run" || bad "  ... $(cat "$work/err")"
expect_usage "report --format htlm" "$bin" report "$src/results/examples/h200x2-host.json" --format htlm
grep -q "did you mean html?" "$work/err" && ok "  ... did you mean html" || bad "  ... $(cat "$work/err")"
expect_usage "command reprot" "$bin" reprot x.json
grep -q "did you mean report?" "$work/err" && ok "  ... did you mean report" || bad "  ... $(cat "$work/err")"
"$bin" help > "$work/help.txt" && cmp -s "$work/help.txt" <("$bin" --help) && ok "help is --help" || bad "help"
for c in run topo report compare fleet; do
  "$bin" help $c > "$work/help.txt" && cmp -s "$work/help.txt" <("$bin" $c --help) || bad "help $c differs from $c --help"
done
ok "help COMMAND is COMMAND --help, for every command"
expect_usage "help bogus" "$bin" help bogus
lines=$("$bin" run --dry-run --np 8 -q | wc -l)
[ "$lines" -le 2 ] && "$bin" run --dry-run --np 8 -q | grep -q '^# Plan: 8 ranks, .* cases in .* steps; estimated ' &&
  ok "-q on a dry run: the summary ($lines line)" || bad "-q on a dry run printed $lines lines"
"$bin" run --help > "$work/runhelp.txt"
groups=$(grep -E '^[A-Z][a-z ]*:$' "$work/runhelp.txt" | tr '\n' '|')
[ "$groups" = "Usage:|What to measure:|How to measure:|Output:|Launch:|Examples:|" ] &&
  sed -n '/^Launch:$/,/^Examples:$/p' "$work/runhelp.txt" | grep -q -- '--np arg' &&
  sed -n '/^Launch:$/,/^Examples:$/p' "$work/runhelp.txt" | grep -q -- '--dry-run' &&
  [ "$(sed -n '/^Examples:$/,$p' "$work/runhelp.txt" | grep -c '^  [a-z]')" = 3 ] &&
  ok "run --help: four groups, --np and --dry-run under Launch, three examples" || bad "run --help: $groups"
grep -q 'see README' "$work/runhelp.txt" && bad "--expect help: see README" || ok "--expect help states the file's shape"
# -o /dev/null, -o - and new folders for every command that writes a file.
ex=$src/results/examples
for args in "report $ex/h200x2-default.json" "compare $ex/h200x2-default.json $ex/h200x2-default.json" \
  "compare $ex/h200x2-default.json $ex/h200x2-default.json $ex/h200x2-default.json" "fleet $ex/h200x2-default.json"; do
  # shellcheck disable=SC2086
  "$bin" $args -o /dev/null > "$work/stdout.txt" 2> "$work/err"
  rc=$?
  { [ $rc = 0 ] || [ $rc = 1 ]; } && [ ! -s "$work/stdout.txt" ] && [ ! -s "$work/err" ] || bad "${args%% *} -o /dev/null: rc $rc $(cat "$work/err")"
  # shellcheck disable=SC2086
  "$bin" $args -o - > "$work/stdout.txt" 2> "$work/err"
  [ -s "$work/stdout.txt" ] || bad "${args%% *} -o -: nothing on standard output"
  # shellcheck disable=SC2086
  "$bin" $args --format html -o "$work/new/${args%% *}/r.html" > /dev/null 2>&1
  [ -s "$work/new/${args%% *}/r.html" ] || bad "${args%% *} -o into new folders"
done
ok "report, compare, history and fleet: -o /dev/null, -o - and -o into new folders"
if ! "$bin" topo --json /dev/null > /dev/null 2> "$work/err"; then  # no GPU here: the probe's line
  grep -q -- '--json' "$work/err" && bad "topo --json /dev/null refused: $(cat "$work/err")" || ok "topo --json /dev/null accepted"
fi
# The bash completion completes help and its command.
(
  # shellcheck source=/dev/null
  source "$src/scripts/completion.bash"
  cw() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _peerbench; echo "${COMPREPLY[*]}"; }
  [ "$(cw peerbench he)" = help ] && [ "$(cw peerbench help "")" = "run topo report compare fleet import doctor" ] &&
    [ "$(cw peerbench help rep)" = report ] && [ -z "$(cw peerbench help report "")" ]
) && ok "completion: help and its command" || bad "completion of help"

# scripts/setup.sh, the README's main command, installs what building and running need; the
# tests' tools (Chromium, the format parsers, matplotlib, man, dpkg-dev) only with --test. Run here
# with those tools off PATH and apt-get a stand-in that records what it is asked for.
nvcc_here=$(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; })
if [ -n "$nvcc_here" ] && command -v mpirun cmake c++ make python3 > /dev/null; then
  mkdir -p "$work/path"
  for t in bash sh cmake c++ make mpirun python3 sed dirname basename id head cat env nvcc; do
    p=$(command -v "$t") || p=$nvcc_here
    ln -sf "$p" "$work/path/$t"
  done
  printf '#!/bin/sh\necho "$*" >> "%s/apt.log"\n' "$work" > "$work/path/apt-get"
  chmod +x "$work/path/apt-get"
  for mode in plain --test; do
    rm -f "$work/apt.log"
    # shellcheck disable=SC2046
    PATH=$work/path bash "$src/scripts/setup.sh" $([ $mode = plain ] || echo $mode) > "$work/setup.out" 2>&1
    echo "rc $?" >> "$work/setup.out"
    asked=$(grep install "$work/apt.log" 2> /dev/null | tr '\n' ' ')
    case $mode in
      plain) [[ $asked != *chromium* && $asked != *html5lib* && $asked != *prometheus* && $asked != *libxml2-utils* &&
        $asked != *matplotlib* && $asked != *man-db* ]] && grep -q '^rc 0' "$work/setup.out" &&
        ok "setup.sh installs no test tool (asked for: ${asked:-nothing})" || bad "setup.sh: $asked $(tail -3 "$work/setup.out")" ;;
      --test) [[ $asked == *chromium* && $asked == *libxml2-utils* && $asked == *man-db* && $asked == *dpkg-dev* ]] &&
        ok "setup.sh --test installs the tests' tools" || bad "setup.sh --test asked for: $asked" ;;
    esac
  done
  grep -q '^usage: setup.sh \[--test\]' <(bash "$src/scripts/setup.sh" --help) && ok "setup.sh usage names --test" || bad "setup.sh usage"
else
  echo "skip: setup.sh's check needs CUDA, mpirun, cmake, c++, make and python3 here"
fi

# argv that parses on some ranks and not on others (versions that differ between hosts): no hang,
# one line from the rank that refuses.
expect_usage "argv refused by one rank of three" timeout 60 "${mpi[@]}" -np 2 "$bin" run -m h2d --dry-run : -np 1 "$bin" run -m not-in-this-version --dry-run
# The same, where the ranks that parse run a command that starts no MPI (--version, report, help):
# the refusing rank must not wait in MPI_Init for them, silent, until the job is killed.
expect_usage "argv refused by one rank while the others print the version" timeout 30 "${mpi[@]}" -np 2 "$bin" --version : -np 1 "$bin" run -m not-in-this-version
expect_usage "argv refused by one rank while the others report" timeout 30 "${mpi[@]}" -np 2 "$bin" report "$src/results/examples/h200x2-host.json" : -np 1 "$bin" report --not-in-this-version
# argv that parses everywhere but is refused after the agreement on a rank that is not rank 0
# (an MPMD job, or hosts with differing versions): one line, no hang in MPI_Finalize.
expect_usage "--pairs refused by rank 1 only" timeout 30 "${mpi[@]}" -np 1 "$bin" run --dry-run -m h2d : -np 1 "$bin" run --dry-run -m h2d --pairs 0-5
echo '{"fraction_of_lnk": 0.8}' > "$work/typo-expect.json"
expect_usage "bad expect file under mpirun -np 4" "${mpi[@]}" -np 4 "$bin" run --expect "$work/typo-expect.json"
expect_usage "pairs beyond the job" "${mpi[@]}" -np 2 "$bin" run --dry-run --pairs 0-3

for n in 4 8; do
  if "${mpi[@]}" -np $n "$bin" run --dry-run --schedule rounds > "$work/plan$n.txt" 2> "$work/plan$n.err"; then
    rounds=$(grep -c '^  ce-write ' "$work/plan$n.txt")
    est=$(sed -n 's/^# Estimated time: \([0-9.]*\) s.*/\1/p' "$work/plan$n.txt")
    if [ "$rounds" = $((2 * (n - 1))) ] && [ -n "$est" ]; then
      ok "dry run for $n ranks: $rounds ce-write rounds, estimate $est s"
    else
      bad "dry run for $n ranks: $rounds rounds, estimate '$est'"; cat "$work/plan$n.txt"
    fi
  else
    bad "dry run for $n ranks failed: $(cat "$work/plan$n.err")"
  fi
done
"$bin" run --dry-run --np 8 --schedule rounds | grep -q 'Estimated time' && ok "dry run without a launcher" || bad "dry run without a launcher"

# Report and compare on the committed example runs (results/examples/README.md): real 2 x H200
# runs, which must be there.
shopt -s nullglob
ex=$src/results/examples
examples=("$ex"/*.json)
[ ${#examples[@]} -ge 4 ] && ok "${#examples[@]} example runs in results/examples" ||
  bad "results/examples: expected the 4 example runs of results/examples/README.md, found ${#examples[@]}"
for j in "${examples[@]}"; do
  for f in text markdown html csv; do
    "$bin" report "$j" --format $f -o "$work/r.$f" > /dev/null 2>&1
    rc=$?
    { [ $rc = 0 ] || [ $rc = 1 ]; } && [ -s "$work/r.$f" ] && ok "report $(basename "$j") as $f (rc $rc)" ||
      bad "report $(basename "$j") as $f: rc $rc"
  done
done
# expect_report FILE RC PATTERN: the text report's exit code, and a line it must contain.
expect_report() {
  "$bin" report "$ex/$1" > "$work/rep.txt" 2>&1
  local rc=$?
  [ $rc = "$2" ] && grep -q -- "$3" "$work/rep.txt" && ok "report $1: rc $rc, has '$3'" ||
    bad "report $1: rc $rc (want $2), '$3' $(grep -c -- "$3" "$work/rep.txt") times"
}
expect_report h200x2-default.json 0 'P2P/CUMEM'
expect_report h200x2-nccl-shm.json 1 'nccl-shm: NCCL used shared memory'
expect_report h200x2-nccl-net.json 1 'nccl-net: NCCL used the network'
expect_report h200x2-nccl-large.json 0 'busbw GB/s at 8 GiB'
"$bin" compare "$ex/h200x2-default.json" "$ex/h200x2-default.json" > "$work/cmp.txt"
[ $? = 0 ] && grep -q '0 regressions' "$work/cmp.txt" && ok "compare a run with itself" || bad "compare a run with itself"
"$bin" compare "$ex/h200x2-default.json" "$ex/h200x2-nccl-shm.json" > "$work/cmp.txt"
rc=$?
[ $rc = 1 ] && grep -q 'NCCL_P2P_DISABLE' "$work/cmp.txt" && grep -q 'nccl-sendrecv .*REGRESSION' "$work/cmp.txt" &&
  ok "compare NCCL over P2P with SHM: rc 1, names NCCL_P2P_DISABLE and the regression" ||
  bad "compare NCCL over P2P with SHM: rc $rc: $(head -20 "$work/cmp.txt")"
exit $fail
