#!/usr/bin/env bash
# Bounded fuzzing of the JSON reader, the NCCL-log parser and the options parser (CI runs it).
#   CC=clang CXX=clang++ cmake -S . -B build-fuzz -DPEERBENCH_ENABLE_GPU=OFF -DPEERBENCH_FUZZ=ON
#   cmake --build build-fuzz --target fuzz_json_reader fuzz_nccl_log fuzz_options
#   scripts/fuzz.sh build-fuzz [SECONDS]
# (CI builds them in its sanitizer build, -DPEERBENCH_SANITIZE=ON -DPEERBENCH_FUZZ=ON, and runs
# the three targets at once, each for SECONDS.)
# The corpus is seeded from the committed example runs and test fixtures; findings are kept in
# build-fuzz/fuzz-findings/ and fail the script (exit 1); 2 for bad arguments.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
cli_usage="fuzz.sh [BUILD=build-fuzz] [SECONDS=45]"
# shellcheck source=cli.sh
source "$here/scripts/cli.sh"
case ${1:-} in -h | --help) cli_help_exit ;; esac
[ $# -le 2 ] || cli_usage_exit
build=${1:-build-fuzz}
secs=${2:-45}
[[ $secs =~ ^[1-9][0-9]{0,5}$ ]] || cli_fail "SECONDS $secs: give a whole number of seconds from 1"
for target in json_reader nccl_log options; do
  [ -x "$build/tests/fuzz_$target" ] ||
    cli_fail "$build/tests/fuzz_$target not found (build it as the comment at the top of fuzz.sh says)"
done
findings="$build/fuzz-findings"
cli_make_dir "$findings"
fail=0
if ! compgen -G "$here/results/examples/*.json" > /dev/null; then
  echo "fuzz: no example runs in $here/results/examples/ to seed the JSON reader with" >&2
  exit 1
fi
# One target: seed its corpus, fuzz for $secs, say what it ran or what it found (exit 1).
fuzz_one() {
  local target=$1 corpus max_len
  corpus=$(mktemp -d)
  if [ $target = json_reader ]; then
    cp "$here"/results/examples/*.json "$here"/tests/fixtures/runs/*.json "$corpus"/ || return 1
    echo '{"schema_version": 1, "kind": "peerbench-run"}' > "$corpus/minimal.json"
  elif [ $target = nccl_log ]; then
    cp "$here"/tests/fixtures/nccl/*.log "$corpus"/ 2> /dev/null
  else
    # Command lines, arguments separated by NUL bytes.
    printf 'run\0-b\0008\0-e\0001G\0-f\0002\0--schedule\0rounds' > "$corpus/sweep"
    printf 'run\0--pairs\0000-1,2>3\0-m\0ce,nccl\0--timeout\0002.5\0--dry-run' > "$corpus/pairs"
    printf 'report\0a.json\0--format\0html\0-o\0r.html\0--fail-on\0below-link' > "$corpus/report"
    printf 'compare\0a.json\0b.json\0--threshold\0007\0--match\0pci' > "$corpus/compare"
    # Found by CI (2026-12-01): a path that is not UTF-8 aborted the JSON writer.
    printf -- '--expect\0s\331-' > "$corpus/not-utf8"
  fi
  # Whole seeds: libFuzzer cuts inputs longer than -max_len, and the example runs exceed 64 KiB.
  max_len=$(find "$corpus" -type f -printf '%s\n' | sort -n | tail -1)
  [ "${max_len:-0}" -lt 65536 ] && max_len=65536
  local rc=0
  if ! "$build/tests/fuzz_$target" -max_total_time="$secs" -max_len="$max_len" -rss_limit_mb=2048 \
       -artifact_prefix="$findings/$target-" -print_final_stats=1 "$corpus" > "$build/fuzz_$target.log" 2>&1; then
    echo "fuzz_$target found a problem:"; tail -30 "$build/fuzz_$target.log"; rc=1
  else
    echo "fuzz_$target: $(ls "$corpus" | wc -l) seeds, -max_len=$max_len, $secs s"
    grep -E 'stat::number_of_executed_units|Done' "$build/fuzz_$target.log" | tail -2
  fi
  rm -rf "$corpus"
  return $rc
}

# The three side by side, each for $secs: the wall time is one target's, not three (CI's time
# limit), each target's report printed whole once it ends.
pids=()
for target in json_reader nccl_log options; do
  fuzz_one $target > "$build/fuzz_$target.summary" 2>&1 &
  pids+=($!)
done
for i in 0 1 2; do
  wait "${pids[$i]}" || fail=1
done
cat "$build"/fuzz_{json_reader,nccl_log,options}.summary
exit $fail
