#!/usr/bin/env bash
# Everything to attach to an acceptance report, from one run's JSON:
#   scripts/report.sh RUN.json OUTDIR   ->  OUTDIR/report.{txt,md,html,csv} and OUTDIR/plots/*.png
# Exit code: peerbench report's (0 no flags, 1 flags, 2 bad input).
set -u
run=$1
out=$2
bin=${PEERBENCH:-$(dirname "$0")/../build/peerbench}
mkdir -p "$out/plots"
py=python3
python3 -c 'import matplotlib' 2> /dev/null || py=/usr/bin/python3
"$py" "$(dirname "$0")/plot.py" "$run" --out "$out/plots" > /dev/null || echo "report.sh: no plots (see above)" >&2
"$bin" report "$run" --format csv -o "$out/report.csv"
"$bin" report "$run" --format markdown --plots "$out/plots" -o "$out/report.md"
"$bin" report "$run" --format html --plots "$out/plots" -o "$out/report.html"
"$bin" report "$run" -o "$out/report.txt"
rc=$?
cat "$out/report.txt"
exit $rc
