#!/usr/bin/env bash
# Issue 19.1: the HTML pages as a browser draws them. Headless Chromium takes a screenshot of the
# report of the 2 x H200 default run, of the run with NCCL over shared memory, of a fleet with
# outliers (tests/e2e/make_fleet.py), and of compare of two and of three runs; the PNG files and
# their pages are kept in ARTIFACTS (CI's artifacts) for people to look at. Each screenshot must
# be a PNG of the window's width with something drawn in it. Skipped (77) without chromium.
set -u
bin=$1
src=$2
artifacts=$3
chromium=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$chromium" ]; then
  echo "PEERBENCH_SKIP: chromium is not installed (Debian: apt-get install chromium; scripts/setup.sh --test installs it)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$artifacts" || { echo "FAIL: cannot make $artifacts"; exit 1; }
artifacts=$(cd "$artifacts" && pwd)  # file:// URLs need an absolute path
fail=0
ex=$src/results/examples
python3 "$src/tests/e2e/make_fleet.py" "$src/tests/fixtures/runs/h200x2/default.json" "$work/runs" --nodes 24

# shot NAME HEIGHT peerbench-args...: the page into ARTIFACTS/NAME.html, its screenshot NAME.png.
shot() {
  local name=$1 height=$2
  shift 2
  "$bin" "$@" -o "$artifacts/$name.html" 2> "$work/err"
  local rc=$?
  if [ $rc -gt 1 ]; then
    echo "FAIL: $name: peerbench $*: exit $rc: $(head -2 "$work/err")"
    fail=1
    return
  fi
  rm -f "$artifacts/$name.png"
  # No sandbox: CI runs as root; a profile of its own, so runs never share state.
  timeout 90 "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --user-data-dir="$work/profile-$name" --window-size=1400,"$height" \
    --screenshot="$artifacts/$name.png" "file://$artifacts/$name.html" > "$work/chromium.log" 2>&1
  python3 - "$artifacts/$name.png" << 'EOF' && echo "ok: $name.png" || { echo "FAIL: $name.png: $(tail -2 "$work/chromium.log")"; fail=1; }
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
width, height = struct.unpack(">II", data[16:24])
assert width == 1400, width
# Decompressed, a blank page is almost all one byte value; a drawn one is not.
idat = b"".join(data[i + 8:i + 8 + struct.unpack(">I", data[i:i + 4])[0]]
                for i in range(8, len(data) - 12) if data[i + 4:i + 8] == b"IDAT")
raw = zlib.decompress(idat)
ink = sum(1 for b in raw[::97] if b not in (0, 255))
assert ink > len(raw[::97]) * 0.01, f"blank: {ink} of {len(raw[::97])} samples drawn"
print(f"{sys.argv[1]}: {width}x{height}, {len(data)} bytes")
EOF
}

shot report-h200x2-default 9000 report "$ex/h200x2-default.json" --format html
shot report-h200x2-nccl-shm 9000 report "$ex/h200x2-nccl-shm.json" --format html
shot fleet-with-outliers 3200 fleet "$work/runs" --hosts "$work/hosts.txt" --format html
shot compare-default-shm 3000 compare "$ex/h200x2-default.json" "$ex/h200x2-nccl-shm.json" --format html
shot compare-three-runs 3000 compare "$work/runs/node0001.json" "$work/runs/node0003.json" \
  "$work/runs/node0013.json" --format html
echo "screenshots and pages in $artifacts"
exit $fail
