#!/usr/bin/env bash
# The code's shape, as docs/ARCHITECTURE.md states it: no function over 80 lines
# (scripts/function_lengths.py) and no source file over 750 lines. A convention nothing checked
# had drifted (compare.cpp reached 821 lines; a review).
set -u
src=${1:?usage: code_shape.sh SOURCE_DIR}
cd "$src" || exit 1
mapfile -t files < <(find src kernels -type f \( -name '*.cpp' -o -name '*.cu' -o -name '*.h' -o -name '*.cuh' \) | sort)
[ "${#files[@]}" -gt 50 ] || { echo "FAIL: found only ${#files[@]} source files under $src"; exit 1; }
rc=0
code=()
for f in "${files[@]}"; do
  case $f in *.cpp | *.cu) code+=("$f") ;; esac
done
python3 scripts/function_lengths.py --max 80 "${code[@]}" || rc=1
for f in "${files[@]}"; do
  n=$(wc -l < "$f")
  if [ "$n" -gt 750 ]; then
    echo "FAIL: $f has $n lines (at most 750: split it by concern)"
    rc=1
  fi
done
[ $rc -eq 0 ] && echo "ok: ${#code[@]} files' functions within 80 lines, ${#files[@]} files within 750"
exit $rc
