#!/usr/bin/env bash
# End-to-end GPU check of the executable: the README's no-launcher run on the local GPUs, then
# report on its JSON. Exit 77 (ctest: skipped) where no GPU is usable.
set -u
bin=$1
src=$2
source "$(dirname "$0")/common.sh"
extra=()
[ "$ngpu" -lt 2 ] && extra=(--allow-gpu-sharing --np 2)

"$bin" run "${extra[@]}" -b 64K -e 4M -f 8 -w 1 -n 3 -s 2 --latency-iters 20 -J "$work/run.json" > "$work/run.log" 2>&1
rc=$?
cat "$work/run.log"
check "[ $rc = 0 ]" "no-launcher run exits 0 (got $rc)"
check "grep -q 'no MPI launcher detected' '$work/run.log'" "prints the mpirun command it ran"
check "[ -s '$work/run.json' ]" "writes the JSON"
python3 - "$work/run.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema_version"] == 4 and d["status"] == "complete", d["status"]
res = d["results"]
assert res, "no results"
bad = [r for r in res if r["check"]["wrong"]]
assert not bad, bad[:2]
ok = [r for r in res if r["status"] == "ok"]
assert ok, "nothing ran"
for r in res:
    assert r["status"] in ("ok", "skipped", "not-applicable"), (r["method"], r["status"], r["reason"])
    if r["status"] == "skipped":
        assert r["reason"], r
print("ok: JSON has", len(ok), "ok results, no wrong elements")
# The ranks each method times, as its workers() says: -a combines them, compare and the fleet
# group by them (a run wrote 1 for every method once; a review on one H200).
workers = {m["name"]: m["workers"] for m in d["methods"]}
want = {"ce-write": 1, "ce-bidir": 2, "sm-latency": 2, "staged": 2, "nccl-sendrecv": 2,
        "nccl-allreduce": 0, "h2d": 1}
assert all(workers.get(k, v) == v for k, v in want.items()), workers
print("ok: each method's workers recorded:", workers)
PY
"$bin" report "$work/run.json" > "$work/report.txt"; rc=$?
check "[ $rc = 0 -o $rc = 1 ]" "report reads the run (rc $rc)"
exit $fail
