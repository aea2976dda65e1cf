#!/usr/bin/env bash
# `peerbench fleet` and `compare` of three runs on nodes derived from the real 2 x H200 run
# (tests/e2e/make_fleet.py: renamed, some slowed, cut short, truncated, on another driver, some
# missing). The outputs are parsed back: JUnit with an XML parser, OpenMetrics with the Prometheus
# client's own parser, CSV with a CSV reader. Skipped (77) without python3-prometheus-client.
set -u
bin=$1
src=$2
py=/usr/bin/python3
if ! $py -c 'import prometheus_client.openmetrics.parser' 2> /dev/null; then
  echo "PEERBENCH_SKIP: python3-prometheus-client is not installed (scripts/setup.sh --test installs it)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }
expect_rc() {  # expect_rc RC "what" cmd...
  local want=$1 what=$2
  shift 2
  "$@" > "$work/out" 2> "$work/err"
  local rc=$?
  [ $rc = "$want" ] && ok "$what (exit $rc)" || bad "$what: exit $rc, wanted $want: $(head -3 "$work/err")"
}

$py "$src/tests/e2e/make_fleet.py" "$src/tests/fixtures/runs/h200x2/default.json" "$work/runs" --nodes 32
fleet=("$bin" fleet "$work/runs" --hosts "$work/hosts.txt")

expect_rc 1 "fleet with flagged, incomplete and missing nodes" "${fleet[@]}"
expect_rc 1 "fleet as JUnit" "${fleet[@]}" --format junit -o "$work/fleet.xml"
expect_rc 1 "fleet as OpenMetrics" "${fleet[@]}" --format openmetrics -o "$work/fleet.prom"
expect_rc 1 "fleet as CSV" "${fleet[@]}" --format csv -o "$work/fleet.csv"
expect_rc 1 "fleet as Markdown" "${fleet[@]}" --format markdown -o "$work/fleet.md"

$py - "$work" << 'EOF' && ok "JUnit, OpenMetrics and CSV parse back and name the right nodes" || bad "parsed outputs"
import csv, json, sys, xml.etree.ElementTree as ET
from prometheus_client.openmetrics.parser import text_string_to_metric_families
work = sys.argv[1]
layout = json.load(open(f"{work}/fleet-layout.json"))
problems = []
def check(cond, what):
    if not cond:
        problems.append(what)

root = ET.parse(f"{work}/fleet.xml").getroot()
suites = {s.get("name"): s for s in root.findall("testsuite")}
check(len(suites) == 34, f"34 suites, got {len(suites)}")
check(sum(int(s.get("tests")) for s in suites.values()) == len(root.findall("testsuite/testcase")),
      "suite totals")
for node, method in layout["slow"].items():
    fails = [f for c in suites[node].findall("testcase") for f in c.findall("failure")]
    check(any("fleet-outlier" in f.get("type") and method in f.get("message") for f in fails),
          f"{node}: fleet-outlier on {method}")
    check(any('"fleet_median"' in (f.text or "") for f in fails), f"{node}: evidence in the failure")
for node in layout["cut"] + layout["truncated"] + layout["missing"]:
    check(int(suites[node].get("errors")) >= 1, f"{node}: an error case")
check(suites["node0001"].get("failures") == "0" and suites["node0001"].get("errors") == "0",
      "node0001 passes")

fams = {f.name: f for f in text_string_to_metric_families(open(f"{work}/fleet.prom").read())}
for name in ("peerbench_link_bandwidth_bytes_per_second", "peerbench_link_fleet_ratio",
             "peerbench_node_verdict", "peerbench_fleet_nodes",
             "peerbench_fleet_median_bandwidth_bytes_per_second"):
    check(name in fams, f"metric family {name}")
verdict = {(s.labels["host"], s.labels["verdict"]): s.value for s in fams["peerbench_node_verdict"].samples}
check(verdict[("node0003", "flagged")] == 1 and verdict[("node0001", "pass")] == 1, "verdict gauges")
nodes = {s.labels["verdict"]: s.value for s in fams["peerbench_fleet_nodes"].samples}
check(nodes["missing"] == len(layout["missing"]), "missing count")
ratio = [s for s in fams["peerbench_link_fleet_ratio"].samples
         if s.labels["host"] == "node0003" and s.labels["method"] == "ce-write"
         and s.labels["src_pci"] == "0000:1B:00.0"]
check(ratio and ratio[0].value < 0.9 and ratio[0].labels["bytes"] == str(1 << 30), "node0003 ratio")
bw = fams["peerbench_link_bandwidth_bytes_per_second"].samples
check(all(set(s.labels) >= {"host", "src_pci", "dst_pci", "method", "bytes"} for s in bw), "labels")

rows = list(csv.DictReader(open(f"{work}/fleet.csv")))
slow = [r for r in rows if r["node"] == "node0003" and r["method"] == "ce-write" and r["outlier"] == "1"]
check(len(slow) == 1 and "fleet-outlier" in slow[0]["flags"], "CSV outlier row")
check({r["node"] for r in rows} >= set(layout["missing"]), "CSV lists missing nodes")
check(all(r["state"] == "pass" for r in rows if r["node"] == "node0002"), "CSV node0002 passes")
# A node cut short has its figures where it has them, at the largest size it reached: in the CSV
# with the fleet's median there, and in OpenMetrics (an audit: gone from both, under a FAIL).
for node in layout["cut"]:
    placed = [r for r in rows if r["node"] == node and r["value"] and r["fleet_median"]]
    check(any("no figure at the fleet's size" in r["reason"] for r in placed),
          f"{node}: CSV rows short of the fleet's size")
    series = [s for fam in ("peerbench_link_bandwidth_bytes_per_second", "peerbench_link_latency_seconds")
              for s in fams[fam].samples if s.labels["host"] == node]
    check(len(series) == len(placed), f"{node}: {len(series)} OpenMetrics series, {len(placed)} CSV rows")
print("\n".join(problems))
sys.exit(1 if problems else 0)
EOF

"${fleet[@]}" > "$work/fleet.txt"
# Nodes read with no version recorded (cut short, truncated) are counted as unknown, named.
grep -q "driver 570.86.10: 2 nodes (node0013, node0014); 580.159.04: 29 nodes; unknown: [0-9]* nodes* (.*)  -- MIXED" "$work/fleet.txt" &&
  ok "mixed drivers counted, odd nodes named" || bad "mixed drivers"

# A healthy fleet passes; bad input is one line and exit 2.
mkdir -p "$work/healthy"
cp "$work"/runs/node000{1,2,4,6}.json "$work/healthy/"
expect_rc 0 "healthy fleet" "$bin" fleet "$work/healthy"
expect_rc 2 "a path that does not exist" "$bin" fleet "$work/nowhere"
expect_rc 2 "an unknown format" "$bin" fleet "$work/healthy" --format xml
expect_rc 2 "a --hosts file that does not exist" "$bin" fleet "$work/healthy" --hosts "$work/none.txt"
echo '{"fleet_outlier_tolerance": 5}' > "$work/bad-expect.json"
expect_rc 2 "a tolerance out of range" "$bin" fleet "$work/healthy" --expect "$work/bad-expect.json"
[ "$(grep -c . "$work/err")" = 1 ] && ok "one line: $(cat "$work/err")" || bad "not one line"
echo '{"fleet_outlier_tolerance": 0.3}' > "$work/loose.json"
"$bin" fleet "$work/runs" --expect "$work/loose.json" --format csv -o "$work/loose.csv"
awk -F, '$1 == "node0003" && $8 == "ce-write" && $14 == 1' "$work/loose.csv" | grep -q . &&
  bad "tolerance 30% still flags a pair at 80%" || ok "tolerance from the expect file"

# The bundle: every format, plots embedded where matplotlib is.
PEERBENCH=$bin bash "$src/scripts/fleet_bundle.sh" "$work/bundle" "$work/runs" --hosts "$work/hosts.txt" > /dev/null 2> "$work/bundle.err"
[ $? = 1 ] && [ -s "$work/bundle/fleet.prom" ] && [ -s "$work/bundle/fleet.xml" ] && ok "bundle" || bad "bundle: $(cat "$work/bundle.err")"
if $py -c 'import matplotlib' 2> /dev/null; then
  grep -q 'src="data:image/png;base64,' "$work/bundle/fleet.html" && ok "HTML embeds the distribution plots" || bad "HTML plots"
  grep -q '!\[.*\](.*fleet_ce-write.*\.png)' "$work/bundle/fleet.md" && ok "Markdown links the plots" || bad "Markdown plots"
fi

# launch/slurm-fleet.sbatch with stand-ins for scontrol and srun: one step per node, one file per
# node named by the node, a node whose step wrote nothing listed as missing, the bundle made.
mkdir -p "$work/slurm/bin"
printf '#!/bin/sh\nprintf "node0001\\nnode0002\\nnode0004\\nnode0666\\n"\n' > "$work/slurm/bin/scontrol"
cat > "$work/slurm/bin/srun" << 'EOF'
#!/bin/bash
# Stand-in step: the node's derived results land where -J says, as peerbench run would write them.
for a in "$@"; do
  case $a in --nodelist=*) node=${a#--nodelist=} ;; --export=*PEERBENCH_HOST_ID=*) id=${a##*=} ;; esac
  [ "${prev:-}" = -J ] && out=$a
  prev=$a
done
[ "$id" = "$node" ] || { echo "PEERBENCH_HOST_ID not set to the node" >&2; exit 3; }
[ -f "$FAKE_RUNS/$node.json" ] && cp "$FAKE_RUNS/$node.json" "$out"
exit 0
EOF
chmod +x "$work/slurm/bin/"*
(cd "$work/slurm" && PATH="$work/slurm/bin:$PATH" FAKE_RUNS="$work/runs" PEERBENCH=$bin \
  SLURM_JOB_ID=7 SLURM_GPUS_ON_NODE=2 SLURM_JOB_NODELIST="node[0001-0002,0004,0666]" SLURM_SUBMIT_DIR="$src" \
  OUT="$work/slurm/out" bash "$src/launch/slurm-fleet.sbatch" -m ce > "$work/slurm/log" 2>&1)
rc=$?
[ "$(ls "$work/slurm/out/runs" | tr '\n' ' ')" = "node0001.json node0002.json node0004.json " ] &&
  [ $rc = 1 ] && grep -q "node0666 *missing" "$work/slurm/out/bundle/fleet.txt" &&
  [ -s "$work/slurm/out/bundle/fleet.xml" ] && ok "Slurm script: a file per node, the absent node missing, the bundle" ||
  bad "Slurm script (exit $rc): $(tail -5 "$work/slurm/log")"

# History: the same node shape under three runs (one slower on ce-write, one on another driver).
r=$work/runs
expect_rc 0 "two-file compare as before" "$bin" compare "$r/node0001.json" "$r/node0002.json"
expect_rc 1 "history of three runs finds the regression" "$bin" compare "$r/node0001.json" "$r/node0003.json" "$r/node0013.json" --format csv -o "$work/history.csv"
$py - "$work/history.csv" << 'EOF' && ok "history CSV: regression in run 2 only, run 3's file and driver" || bad "history CSV"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
reg = {(r["method"], r["run"]) for r in rows if r["change"] == "regression"}
assert ("ce-write", "2") in reg, reg
assert not any(run == "3" for _, run in reg), reg
assert all(r["driver"] == "570.86.10" and r["file"].endswith("/node0013.json") for r in rows if r["run"] == "3")
assert all(r["hosts"] == "node0013" for r in rows if r["run"] == "3"), "each row names its run's node"
assert {r["run"] for r in rows} == {"1", "2", "3"}
EOF
expect_rc 1 "history as HTML" "$bin" compare "$r/node0001.json" "$r/node0003.json" "$r/node0013.json" --format html -o "$work/history.html"
grep -q '<h2>ce-write' "$work/history.html" && ok "history HTML has a table per method" || bad "history HTML"
if $py -c 'import matplotlib' 2> /dev/null; then
  $py "$src/scripts/plot_fleet.py" history "$work/history.csv" --out "$work/hplots" > /dev/null &&
    [ -s "$work/hplots/history_ce-write.png" ] && ok "history plots" || bad "history plots"
  $py - "$src/scripts" "$work/history.csv" << 'EOF' && ok "history plot labels name what differs" || bad "history plot labels"
import sys
sys.path.insert(0, sys.argv[1])
from plot_fleet import read_rows, run_labels
labels = run_labels(read_rows(sys.argv[2]))
assert labels[3] == "3: node0013.json (driver 570.86.10, NCCL 2.27.3, on node0013)", labels
EOF
fi
# Issue 18: a site baseline written from the fleet, then the fleet judged by it: the healthy
# nodes pass, the slowed one does not, and the file says where it came from.
"$bin" fleet "$work/runs" --write-baseline "$work/site-baseline.json" -o "$work/fleet-b.txt" 2> "$work/wb.err"
grep -q 'site baseline of the healthy nodes written' "$work/wb.err" && [ -s "$work/site-baseline.json" ] &&
  ok "--write-baseline writes the file and says so" || bad "--write-baseline: $(cat "$work/wb.err")"
$py - "$work/site-baseline.json" << 'EOF' && ok "the baseline names its nodes, dates and versions" || bad "baseline contents"
import json, sys
b = json.load(open(sys.argv[1]))["baseline"]
assert b["entries"] and b["from"]["nodes"] and b["from"]["first_run"] and b["from"]["drivers"], b["from"]
assert all(e["bar"] < e["median"] for e in b["entries"] if e["unit"] == "GB/s")
EOF
"$bin" fleet "$work/runs" --expect "$work/site-baseline.json" > "$work/fleet-by-b.txt" 2>&1
grep -q "node0001 *pass" "$work/fleet-by-b.txt" && grep -q "node0003 *flagged" "$work/fleet-by-b.txt" &&
  ok "judged by its own baseline: healthy nodes pass, the slowed node does not" ||
  bad "fleet --expect baseline: $(head -20 "$work/fleet-by-b.txt")"
expect_rc 2 "--write-baseline over an input is refused" "$bin" fleet "$work/runs" --write-baseline "$work/runs/node0001.json"
# An -o that cannot be written is refused before the baseline is written (it was left behind).
# (A missing folder is made, as -J makes it: below a file is what cannot be written.)
expect_rc 2 "-o below a file beside --write-baseline" "$bin" fleet "$work/runs" --write-baseline "$work/b2.json" -o /proc/version/x.txt
[ ! -e "$work/b2.json" ] && ok "  ... and no baseline is left behind" || bad "a baseline written by a command that exited 2"
exit $fail
