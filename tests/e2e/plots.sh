#!/usr/bin/env bash
# scripts/plot.py on the committed runs, and the HTML report embedding its PNGs. Fails when the
# example runs (results/examples/*.json) are missing; skipped (77) where matplotlib is missing.
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$2" && pwd)
shopt -s nullglob
examples=("$src"/results/examples/*.json)
if [ ${#examples[@]} = 0 ]; then
  echo "FAIL: no example runs in $src/results/examples/ (see results/examples/README.md)"
  exit 1
fi
py=python3
$py -c 'import matplotlib' 2> /dev/null || py=/usr/bin/python3
if ! $py -c 'import matplotlib' 2> /dev/null; then
  echo "PEERBENCH_SKIP: matplotlib is not installed (scripts/setup.sh --test installs it)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
runs=("${examples[@]}" "$src"/tests/fixtures/runs/*.json)
for run in "${runs[@]}"; do
  name=$(basename "$run" .json)
  out="$work/$name"
  if ! $py "$src/scripts/plot.py" "$run" --out "$out" > "$work/$name.log" 2>&1; then
    echo "FAIL: plot.py on $name: $(tail -3 "$work/$name.log")"; fail=1; continue
  fi
  n=0
  for png in "$out"/*.png; do
    if [ "$(head -c 4 "$png" | tail -c 3)" = PNG ]; then n=$((n + 1)); else echo "FAIL: $png is not a PNG"; fail=1; fi
  done
  [ $n -gt 0 ] && echo "ok: $name: $n plots" || { echo "FAIL: $name: no plots"; fail=1; }
  "$bin" report "$run" --format html --plots "$out" -o "$work/$name.html" > /dev/null 2>&1
  [ $? != 2 ] && grep -q 'src="data:image/png;base64,' "$work/$name.html" && ok=1 || ok=0
  [ $ok = 1 ] && echo "ok: $name: HTML report embeds the plots" || { echo "FAIL: $name: HTML without plots"; fail=1; }
  # The Markdown goes to another folder than the plots: its links must resolve from its own
  # folder, wherever peerbench ran.
  mkdir -p "$work/md"
  (cd "$work" && "$bin" report "$run" --format markdown --plots "$name" -o "md/$name.md" > /dev/null 2>&1)
  links=$(sed -n 's/^!\[.*\](\(.*\.png\))$/\1/p' "$work/md/$name.md")
  resolved=0
  for l in $links; do
    case $l in ../$name/*) ;; *) echo "FAIL: $name: link $l is not relative to the .md's folder"; fail=1 ;; esac
    [ -f "$work/md/$l" ] && resolved=$((resolved + 1))
  done
  [ -n "$links" ] && [ "$resolved" = "$(echo "$links" | wc -w)" ] &&
    echo "ok: $name: Markdown links the $resolved plots, relative to its own folder" ||
    { echo "FAIL: $name: Markdown links resolve from its folder: $resolved of $(echo "$links" | wc -w)"; fail=1; }
done
exit $fail
