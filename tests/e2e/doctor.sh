#!/usr/bin/env bash
# peerbench doctor end to end on the fixture trees of tests/data/sysroot (README.md there says
# where each comes from) and on this machine: exit code 0 healthy, 1 with a finding, 2 when the
# node cannot be read (no driver) with the host part still printed, at most 40 lines, within
# seconds, --json parsed back, and bad flags refused in one line.
set -u
bin=$1
src=$2
fixtures=$src/tests/data/sysroot
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }

# doctor_on ROOT EXPECTED_EXIT WORD: the page within 40 lines and 5 s, the exit code, a word on it.
doctor_on() {
  local root=$1 want=$2 word=$3 start end rc lines
  start=$(date +%s%N)
  if [ "$root" = / ]; then
    "$bin" doctor > "$work/page" 2> "$work/err"
  else
    "$bin" doctor --root "$fixtures/$root" > "$work/page" 2> "$work/err"
  fi
  rc=$?
  end=$(date +%s%N)
  lines=$(wc -l < "$work/page")
  [ "$rc" = "$want" ] && ok "doctor $root: exit $rc" ||
    bad "doctor $root: exit $rc, wanted $want: $(cat "$work/page" "$work/err")"
  [ "$lines" -le 40 ] && [ "$lines" -ge 5 ] && ok "doctor $root: $lines lines" ||
    bad "doctor $root: $lines lines"
  [ $(((end - start) / 1000000)) -lt 5000 ] && ok "doctor $root: $(((end - start) / 1000000)) ms" ||
    bad "doctor $root: took $(((end - start) / 1000000)) ms"
  grep -qF -- "$word" "$work/page" && ok "doctor $root says '$word'" ||
    bad "doctor $root does not say '$word': $(cat "$work/page")"
  [ ! -s "$work/err" ] || bad "doctor $root wrote to stderr: $(cat "$work/err")"
}

doctor_on gpu-vm-h200x2 0 "Findings: none"
doctor_on acs-off-switch 0 "[ACS, no redirect]"
doctor_on acs-amd-gpp 1 "(BIOS, or setpci -s 0000:40:01.1 ECAP_ACS+0x6.w=0000 and setpci -s 0000:60:01.1 ECAP_ACS+0x6.w=0000)"
doctor_on acs-plx-switch 1 "acs-redirect: ACS on bridge 0000:02:08.0 (SrcValid+ TransBlk- ReqRedir+"
doctor_on acs-plx-unprivileged 0 "unreadable without root"
doctor_on builder-vm 2 "no NVIDIA driver"
# A steering variable turns a healthy node into one with a finding.
NCCL_P2P_DISABLE=1 "$bin" doctor --root "$fixtures/gpu-vm-h200x2" > "$work/page"
rc=$?
# Its cause and Next line are the cause table's, as a run's diagnosis says them.
[ $rc = 1 ] && grep -q "nccl-p2p-disabled-by-env: NCCL_P2P_DISABLE=1 was set" "$work/page" &&
  grep -qx "    Next: unset NCCL_P2P_DISABLE and run again" "$work/page" &&
  ok "NCCL_P2P_DISABLE=1: exit 1, nccl-p2p-disabled-by-env" ||
  bad "NCCL_P2P_DISABLE=1: exit $rc: $(cat "$work/page")"
# NCCL_SHM_DISABLE=1 alone leaves NCCL its peer-to-peer road: no finding.
NCCL_SHM_DISABLE=1 "$bin" doctor --root "$fixtures/gpu-vm-h200x2" > "$work/page"
rc=$?
[ $rc = 0 ] && ok "NCCL_SHM_DISABLE=1 alone: exit 0" || bad "NCCL_SHM_DISABLE=1 alone: exit $rc"
# This machine: without a driver the host part is printed and the exit code is 2.
if [ ! -e /dev/nvidia0 ]; then
  doctor_on / 2 "no NVIDIA driver"
  grep -q "^Container: " "$work/page" && ok "doctor / prints the host part without a driver" ||
    bad "doctor / without a driver: $(cat "$work/page")"
fi

# --json: the NodeEvidence, parsed back.
"$bin" doctor --json --root "$fixtures/acs-amd-gpp" > "$work/e.json"
rc=$?
if [ $rc = 1 ] && python3 -c "
import json, sys
e = json.load(open('$work/e.json'))
b = e['pcie'][0]['bridges'][0]
assert b['acs_redirects'] is True and b['kind'] == 'root-port', b
assert e['collected_by'] == 'doctor' and e['driver'] == '550.54.15', e
"; then ok "doctor --json: the evidence, exit 1"; else bad "doctor --json: exit $rc"; fi

# Bad input: one line, exit 2.
for args in "--root $work/missing" "--root" "extra" "--json=1" "--rot /"; do
  # shellcheck disable=SC2086
  "$bin" doctor $args > "$work/out" 2> "$work/err"
  rc=$?
  [ $rc = 2 ] && [ "$(wc -l < "$work/err")" = 1 ] && [ ! -s "$work/out" ] &&
    ok "doctor $args: exit 2, $(cat "$work/err")" || bad "doctor $args: exit $rc: $(cat "$work/err" "$work/out")"
done
"$bin" help doctor | grep -q -- "--root" && ok "help doctor lists --root" || bad "help doctor"
"$bin" --help | grep -q "peerbench doctor" && ok "--help lists doctor" || bad "--help lacks doctor"
exit $fail
