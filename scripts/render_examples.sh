#!/usr/bin/env bash
# Renders every example run in every output format of every command into OUTDIR, one file per
# rendering (its exit code on the last line), so that two revisions' renderings can be diffed:
#
#   scripts/render_examples.sh OUTDIR [PEERBENCH]
#   diff -r before/ after/          # empty when no output changed
#
# Inputs: results/examples/*.json and tests/fixtures/runs/**/*.json (real runs). Paths inside the
# output are made relative so that two checkouts render alike. Exit 0 when all were rendered.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
cli_usage="render_examples.sh OUTDIR [PEERBENCH]"
# shellcheck source=cli.sh
source "$here/scripts/cli.sh"
case ${1:-} in -h | --help) cli_help_exit ;; esac
[ $# -ge 1 ] && [ $# -le 2 ] || cli_usage_exit
out=$1
pb=${2:-$here/build/peerbench}
[ -x "$pb" ] || cli_fail "$pb: no peerbench binary (build first)"
cli_make_dir "$out"
cd "$here" || cli_fail "cannot enter $here"
mapfile -t runs < <(find results/examples tests/fixtures/runs -name '*.json' | LC_ALL=C sort)
render() { # name, then a peerbench command line
  local name=$1; shift
  "$pb" "$@" > "$out/$name" 2>&1
  echo "# exit $?" >> "$out/$name"
}
n=0
for r in "${runs[@]}"; do
  base=$(echo "$r" | tr '/' '_')
  for f in text markdown html csv; do
    render "report-$base.$f" report "$r" --format "$f"
    n=$((n + 1))
  done
done
# Compare: each example against the default run, and the examples as a history.
ref=results/examples/h200x2-default.json
for r in "${runs[@]}"; do
  base=$(echo "$r" | tr '/' '_')
  for f in text markdown html csv; do
    render "compare-$base.$f" compare "$ref" "$r" --format "$f"
    n=$((n + 1))
  done
done
mapfile -t examples < <(find results/examples -name '*.json' | LC_ALL=C sort)
for f in text markdown html csv; do
  render "history.$f" compare "${examples[@]}" --format "$f"
  n=$((n + 1))
done
for f in text markdown html csv junit openmetrics; do
  render "fleet-examples.$f" fleet results/examples --format "$f"
  render "fleet-fixtures.$f" fleet tests/fixtures/runs --format "$f"
  n=$((n + 2))
done
render "dry-run.text" run --dry-run --np 4
render "list-methods.text" --list-methods
n=$((n + 2))
# Absolute paths differ between checkouts; JUnit stamps a file it could not read with the time
# of the rendering.
sed -i -e "s|$here/||g" "$out"/*
sed -i -E 's/timestamp="[0-9T:-]+"( hostname="[^"]*" tests="1" failures="0" errors="1")/timestamp="(now)"\1/' "$out"/*.junit
echo "rendered $n outputs into $out"
