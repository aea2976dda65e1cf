#!/usr/bin/env bash
# The code's shape, as docs/ARCHITECTURE.md states it: no function over 60 lines
# (scripts/function_lengths.py) and no source file under src/ or kernels/ over 500 lines. A
# convention nothing checked had drifted (compare.cpp reached 821 lines; a review).
set -u
src=${1:?usage: code_shape.sh SOURCE_DIR}
max_function_lines=60
max_file_lines=500
cd "$src" || exit 1
mapfile -t files < <(find src kernels -type f \( -name '*.cpp' -o -name '*.cu' -o -name '*.h' -o -name '*.cuh' \) | sort)
[ "${#files[@]}" -gt 50 ] || { echo "FAIL: found only ${#files[@]} source files under $src"; exit 1; }
rc=0
code=()
for f in "${files[@]}"; do
  case $f in *.cpp | *.cu) code+=("$f") ;; esac
done
python3 scripts/function_lengths.py --max "$max_function_lines" "${code[@]}" || rc=1
for f in "${files[@]}"; do
  n=$(wc -l < "$f")
  if [ "$n" -gt "$max_file_lines" ]; then
    echo "FAIL: $f has $n lines (at most $max_file_lines: split it by concern)"
    rc=1
  fi
done
[ $rc -eq 0 ] && echo "ok: ${#code[@]} files' functions within $max_function_lines lines, ${#files[@]} files within $max_file_lines"
exit $rc
