#!/usr/bin/env bash
# Everything to attach to an acceptance report, from one run's JSON: OUTDIR/report.{txt,md,html,csv}
# and OUTDIR/plots/*.png (scripts/plot.py, when matplotlib is installed), and the text report on
# stdout. PEERBENCH names the binary (default: the checkout's build/peerbench, or the installed
# bin/peerbench beside this script's install folder).
# Exit code: peerbench report's: 0 nothing failed (not-judged figures do not fail), 1 anything
# flagged or incomplete, 2 bad input (a missing or unreadable run, an OUTDIR or file that cannot
# be written).
set -u
here=$(cd "$(dirname "$0")" && pwd)
cli_usage="report.sh RUN.json OUTDIR"
# shellcheck source=cli.sh
source "$here/cli.sh"
case ${1:-} in -h | --help) cli_help_exit ;; esac
[ $# = 2 ] || cli_usage_exit
run=$1
out=$2
cli_find_peerbench "$here"
cli_check_input "$run"
for f in report.txt report.csv report.md report.html; do cli_check_file "$out/$f"; done
cli_make_dir "$out"
cli_make_dir "$out/plots"

# The text report first: it reads the run strictly, so a bad run stops here with its one line.
cli_peerbench report "$run" -o "$out/report.txt"
rc=$?
if cli_find_matplotlib; then
  "$cli_py" "$here/plot.py" "$run" --out "$out/plots" > /dev/null ||
    echo "report.sh: warning: plot.py failed (above); the reports have no plots" >&2
else
  echo "report.sh: warning: matplotlib is not installed (scripts/setup.sh installs it); the" \
    "reports have no plots" >&2
fi
cli_peerbench report "$run" --format csv -o "$out/report.csv"
cli_peerbench report "$run" --format markdown --plots "$out/plots" -o "$out/report.md"
cli_peerbench report "$run" --format html --plots "$out/plots" -o "$out/report.html"
cat "$out/report.txt"
exit $rc
