#!/usr/bin/env bash
# An acceptance bundle from many nodes' results: `peerbench fleet` in every format, plus the
# distribution plots (scripts/plot_fleet.py, when matplotlib is installed) embedded in the HTML.
#
#   scripts/fleet_bundle.sh OUTDIR PATH... [--hosts FILE] [--expect FILE]
#
# Writes OUTDIR/fleet.{txt,md,html,csv,xml,prom} and OUTDIR/plots/. Exit code: fleet's own
# (0 all pass, 1 anything flagged, incomplete or missing, 2 bad input).
set -uo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 OUTDIR PATH... [--hosts FILE] [--expect FILE]" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${PEERBENCH:-$here/build/peerbench}
out=$1
shift
mkdir -p "$out"
"$bin" fleet "$@" --format csv -o "$out/fleet.csv"
rc=$?
[ $rc = 2 ] && exit 2
py=python3
$py -c 'import matplotlib' 2> /dev/null || py=/usr/bin/python3
plots=()
if $py -c 'import matplotlib' 2> /dev/null; then
  if $py "$here/scripts/plot_fleet.py" fleet "$out/fleet.csv" --out "$out/plots" > /dev/null; then
    plots=(--plots "$out/plots")
  else
    echo "fleet_bundle: warning: plot_fleet.py failed; the reports have no plots" >&2
  fi
else
  echo "fleet_bundle: warning: matplotlib is not installed (scripts/setup.sh installs it); the reports have no plots" >&2
fi
"$bin" fleet "$@" --format text -o "$out/fleet.txt"
"$bin" fleet "$@" --format markdown "${plots[@]}" -o "$out/fleet.md"
"$bin" fleet "$@" --format html "${plots[@]}" -o "$out/fleet.html"
"$bin" fleet "$@" --format junit -o "$out/fleet.xml"
"$bin" fleet "$@" --format openmetrics -o "$out/fleet.prom"
cat "$out/fleet.txt"
echo "fleet_bundle: wrote $out/fleet.{txt,md,html,csv,xml,prom}${plots:+ and $out/plots/}"
exit $rc
