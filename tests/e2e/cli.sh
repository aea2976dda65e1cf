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
expect_usage "single rank" "${mpi[@]}" -np 1 "$bin" run -J "$work/one.json"
# One GPU is enough for the host<->GPU methods alone.
if "${mpi[@]}" -np 1 "$bin" run -m host --dry-run 2> "$work/one-host.err" | grep -q '^  h2d-all .*rank 0$' &&
   "$bin" run -m h2d --dry-run --np 1 | grep -q '^  h2d '; then
  ok "one rank plans the host methods"
else
  bad "one rank, -m host: $(cat "$work/one-host.err")"
fi
expect_usage "--np under a launcher" "${mpi[@]}" -np 2 "$bin" run --np 2
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
expect_report h200x2-nccl-large.json 0 'GB/s @ 8G'
"$bin" compare "$ex/h200x2-default.json" "$ex/h200x2-default.json" > "$work/cmp.txt"
[ $? = 0 ] && grep -q '0 regressions' "$work/cmp.txt" && ok "compare a run with itself" || bad "compare a run with itself"
"$bin" compare "$ex/h200x2-default.json" "$ex/h200x2-nccl-shm.json" > "$work/cmp.txt"
rc=$?
[ $rc = 1 ] && grep -q 'NCCL_P2P_DISABLE' "$work/cmp.txt" && grep -q 'nccl-sendrecv .*REGRESSION' "$work/cmp.txt" &&
  ok "compare NCCL over P2P with SHM: rc 1, names NCCL_P2P_DISABLE and the regression" ||
  bad "compare NCCL over P2P with SHM: rc $rc: $(head -20 "$work/cmp.txt")"
exit $fail
