#!/usr/bin/env bash
# How long `peerbench fleet` takes over N node files of the main job's size (the real 2 x H200
# default suite, ~120 KB each), on one core: wall and CPU time and peak memory.
#
#   scripts/fleet_scale.sh [BIN] [N=1000]
#
# Exit 1 when it takes 10 s of CPU or more, or 1 GB of memory or more; 2 for bad arguments.
# BIN defaults to $PEERBENCH, else the checkout's build/peerbench.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cli_usage="fleet_scale.sh [BIN] [N=1000]"
# shellcheck source=cli.sh
source "$here/scripts/cli.sh"
case ${1:-} in -h | --help) cli_help_exit ;; esac
[ $# -le 2 ] || cli_usage_exit
if [ -n "${1:-}" ]; then
  bin=$1
  [ -f "$bin" ] && [ -x "$bin" ] || cli_fail "BIN $bin is not an executable file"
else
  cli_find_peerbench "$here/scripts"
  bin=$cli_bin
fi
n=${2:-1000}
[[ $n =~ ^[1-9][0-9]{0,5}$ ]] || cli_fail "N $n: give a number of nodes from 1 to 999999"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$here/tests/e2e/make_fleet.py" "$here/tests/fixtures/runs/h200x2/default.json" \
  "$work/runs" --nodes "$n" --plain
echo "fleet_scale: $n files, $(du -sm "$work/runs" | cut -f1) MB"
pin=()
command -v taskset > /dev/null && pin=(taskset -c 0)
rc=0
/usr/bin/time -f '%e %U %S %M' -o "$work/time" "${pin[@]}" "$bin" fleet "$work/runs" \
  --format csv -o "$work/fleet.csv" || rc=$?
[ $rc -le 1 ] || { echo "fleet_scale: peerbench fleet failed ($rc)" >&2; exit 1; }
read -r wall user sys rss_kb < "$work/time"
cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')
echo "fleet_scale: wall ${wall} s, CPU ${cpu} s (one core), peak memory $((rss_kb / 1024)) MB, $(($(wc -l < "$work/fleet.csv") - 1)) CSV rows"
awk -v c="$cpu" 'BEGIN { exit !(c < 10) }' && [ "$rss_kb" -lt 1048576 ]
