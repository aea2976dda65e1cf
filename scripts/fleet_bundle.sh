#!/usr/bin/env bash
# An acceptance bundle from many nodes' results: `peerbench fleet` in every format, plus the
# distribution plots (scripts/plot_fleet.py, when matplotlib is installed) embedded in the HTML.
# Writes OUTDIR/fleet.{txt,md,html,csv,xml,prom} and OUTDIR/plots/, and prints the text report.
# PEERBENCH names the binary (default: the checkout's build/peerbench, or the installed one).
# Exit code: fleet's own (0 all pass, 1 anything flagged, incomplete or missing, 2 bad input).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cli_usage="fleet_bundle.sh OUTDIR PATH... [--hosts FILE] [--expect FILE]"
# shellcheck source=cli.sh
source "$here/cli.sh"
case ${1:-} in -h | --help) cli_help_exit ;; esac
[ $# -ge 2 ] || cli_usage_exit
out=$1
shift
cli_find_peerbench "$here"
for f in fleet.txt fleet.md fleet.html fleet.csv fleet.xml fleet.prom; do cli_check_file "$out/$f"; done
cli_make_dir "$out"

# CSV first: fleet reads every input strictly, so bad input stops here with its one line.
cli_peerbench fleet "$@" --format csv -o "$out/fleet.csv"
rc=$?
plots=()
if cli_find_matplotlib; then
  if "$cli_py" "$here/plot_fleet.py" fleet "$out/fleet.csv" --out "$out/plots" > /dev/null; then
    plots=(--plots "$out/plots")
  else
    echo "fleet_bundle.sh: warning: plot_fleet.py failed (above); the reports have no plots" >&2
  fi
else
  echo "fleet_bundle.sh: warning: matplotlib is not installed (scripts/setup.sh installs it); the" \
    "reports have no plots" >&2
fi
cli_peerbench fleet "$@" --format text -o "$out/fleet.txt"
cli_peerbench fleet "$@" --format markdown "${plots[@]}" -o "$out/fleet.md"
cli_peerbench fleet "$@" --format html "${plots[@]}" -o "$out/fleet.html"
cli_peerbench fleet "$@" --format junit -o "$out/fleet.xml"
cli_peerbench fleet "$@" --format openmetrics -o "$out/fleet.prom"
cat "$out/fleet.txt"
echo "fleet_bundle.sh: wrote $out/fleet.{txt,md,html,csv,xml,prom}${plots:+ and $out/plots/}"
exit $rc
