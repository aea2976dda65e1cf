#!/usr/bin/env bash
# Issue 19.2: every machine-read format passes the real parser of its kind.
#   JUnit XML     validates against the Ant/Jenkins schema (tests/fixtures/junit-ant.xsd) with
#                 xmllint; every test case has a time, every suite a timestamp and a hostname
#   OpenMetrics   prometheus_client's OpenMetrics parser reads it; base units, # UNIT per family
#   CSV           Python's csv reader with strict=True reads every CSV peerbench writes; every row
#                 as long as the header; formula-leading cells (= + - @ TAB CR) are text
#   HTML          html5lib (strict) finds no parse error; nothing outside the page is referenced
# On fleets derived from the real 2 x H200 run (tests/e2e/make_fleet.py), the committed example
# runs, and host names made to be formulas. Skipped (77) where a parser is not installed.
set -u
bin=$1
src=$2
py=/usr/bin/python3
missing=()
command -v xmllint > /dev/null || missing+=(libxml2-utils)
$py -c 'import prometheus_client.openmetrics.parser' 2> /dev/null || missing+=(python3-prometheus-client)
$py -c 'import html5lib' 2> /dev/null || missing+=(python3-html5lib)
if [ ${#missing[@]} -gt 0 ]; then
  echo "PEERBENCH_SKIP: not installed: ${missing[*]} (scripts/setup.sh --test installs them)"
  [ -n "${PEERBENCH_REQUIRE_TOOLS:-}" ] && exit 1  # CI: a missing install step
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }
run() {  # run FILE_OUT args...: peerbench's output into a file; exit 2 is a failure here
  local out=$1
  shift
  "$bin" "$@" -o "$out" 2> "$work/err"
  local rc=$?
  [ $rc -le 1 ] && [ -s "$out" ] || bad "peerbench $*: exit $rc: $(head -2 "$work/err")"
}

$py "$src/tests/e2e/make_fleet.py" "$src/tests/fixtures/runs/h200x2/default.json" "$work/runs" --nodes 24
# Host names a spreadsheet would run as formulas, and markup.
$py - "$src/tests/fixtures/runs/h200x2/default.json" "$work/hostile" << 'EOF'
import json, os, sys
base = json.load(open(sys.argv[1]))
os.makedirs(sys.argv[2])
names = ["\t=HYPERLINK(\"http://x\")", "\r@SUM(A1)", "=1+2", "+cmd", "-2+3", "@x",
         "<script>alert(1)</script>", "a\"b,c"]
for i, h in enumerate(names):
    d = json.loads(json.dumps(base))
    d["system"]["hosts"] = [h]
    for r in d["system"]["ranks"]:
        r["host"] = h
    for t in (d.get("topology") or {}).get("hosts", []):
        t["host"] = h
    json.dump(d, open(os.path.join(sys.argv[2], f"h{i}.json"), "w"))
EOF
ex=$src/results/examples
fleet=("$work/runs" --hosts "$work/hosts.txt")

# JUnit.
run "$work/fleet.xml" fleet "${fleet[@]}" --format junit
run "$work/hostile.xml" fleet "$work/hostile" --format junit
for x in fleet hostile; do
  if xmllint --noout --schema "$src/tests/fixtures/junit-ant.xsd" "$work/$x.xml" 2> "$work/xsd.err"; then
    ok "JUnit of the $x fleet validates against the Ant/Jenkins JUnit schema"
  else
    bad "JUnit of the $x fleet: $(head -5 "$work/xsd.err")"
  fi
done
$py - "$work/fleet.xml" << 'EOF' && ok "JUnit: times, timestamps, hostnames; the outlier fails its case" || bad "JUnit contents"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suites = root.findall("testsuite")
assert len(suites) == 26, len(suites)  # 24 nodes and the 2 missing ones of --hosts
for s in suites:
    assert s.get("hostname") == s.get("name") and s.get("timestamp"), s.attrib
    assert int(s.get("tests")) == len(s.findall("testcase")), s.get("name")
    assert int(s.get("failures")) == len(s.findall("testcase/failure")), s.get("name")
    assert int(s.get("errors")) == len(s.findall("testcase/error")), s.get("name")
measured = [float(c.get("time")) for s in suites for c in s.findall("testcase")]
assert all(t >= 0 for t in measured) and sum(t > 0 for t in measured) > 100, "case times"
n3 = {s.get("name"): s for s in suites}["node0003"]
assert n3.get("timestamp") == "2026-12-01T10:00:03", n3.get("timestamp")
fails = [c for c in n3.findall("testcase") if c.find("failure") is not None]
assert any(c.get("name").startswith("ce-write ") and "fleet-outlier" in c.find("failure").get("type")
           for c in fails), [c.get("name") for c in fails]
EOF

# OpenMetrics, against the CSV's figures.
run "$work/fleet.prom" fleet "${fleet[@]}" --format openmetrics
run "$work/fleet.csv" fleet "${fleet[@]}" --format csv
$py - "$work/fleet.prom" "$work/fleet.csv" << 'EOF' && ok "OpenMetrics: parsed by prometheus_client, base units, one unit per family" || bad "OpenMetrics"
import csv, sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
fams = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
assert not [n for n in fams if "gbps" in n], list(fams)
for f in fams.values():
    assert f.documentation, f"{f.name}: # HELP"
    assert not f.unit or f.name.endswith("_" + f.unit), f"{f.name}: unit {f.unit}"
units = {n: f.unit for n, f in fams.items()}
assert units["peerbench_link_bandwidth_bytes_per_second"] == "bytes_per_second"
assert units["peerbench_link_latency_seconds"] == "seconds"
assert units["peerbench_fleet_median_bandwidth_bytes_per_second"] == "bytes_per_second"
assert units["peerbench_fleet_median_latency_seconds"] == "seconds"
rows = list(csv.DictReader(open(sys.argv[2])))
gbps = {(r["node"], r["src_pci"], r["dst_pci"], r["method"]): (float(r["value"]), r["unit"])
        for r in rows if r["value"]}
checked = 0
for fam, unit, scale in (("peerbench_link_bandwidth_bytes_per_second", "GB/s", 1e9),
                         ("peerbench_link_latency_seconds", "us", 1e-6)):
    for s in fams[fam].samples:
        v, u = gbps[(s.labels["host"], s.labels["src_pci"], s.labels["dst_pci"], s.labels["method"])]
        # NCCL's bandwidth is its bus bandwidth ("busbw GB/s"), in bytes per second all the same.
        assert u == unit or (unit == "GB/s" and u == "busbw GB/s" and
                             s.labels["method"].startswith("nccl-")), (fam, s.labels, u)
        assert abs(s.value - v * scale) <= 1e-3 * v * scale + 1e-9, (fam, s.labels, s.value, v)
        checked += 1
assert checked > 300, checked
lat = {s.labels["method"] for s in fams["peerbench_fleet_median_latency_seconds"].samples}
bw = {s.labels["method"] for s in fams["peerbench_fleet_median_bandwidth_bytes_per_second"].samples}
assert lat and bw and not (lat & bw), (lat, bw)
assert all(s.value < 1e-3 for s in fams["peerbench_fleet_median_latency_seconds"].samples)
EOF

# CSV: every CSV peerbench writes, read strictly.
csvs=("$work/fleet.csv")
run "$work/hostile-fleet.csv" fleet "$work/hostile" --format csv
run "$work/hostile-report.csv" report "$work"/hostile/*.json --format csv
run "$work/compare.csv" compare "$ex/h200x2-default.json" "$ex/h200x2-nccl-shm.json" --format csv
run "$work/history.csv" compare "$work/runs/node0001.json" "$work/runs/node0003.json" "$work/runs/node0013.json" --format csv
csvs+=("$work/hostile-fleet.csv" "$work/hostile-report.csv" "$work/compare.csv" "$work/history.csv")
for j in "$ex"/*.json; do
  run "$work/$(basename "$j" .json).csv" report "$j" --format csv
  csvs+=("$work/$(basename "$j" .json).csv")
done
$py - "${csvs[@]}" << 'EOF' && ok "CSV: ${#csvs[@]} files read with csv strict=True, rows as long as the header, formulas defused" || bad "CSV"
import csv, sys
formula = tuple("=+-@\t\r")
for path in sys.argv[1:]:
    with open(path, newline="") as f:
        rows = list(csv.reader(f, strict=True))
    assert len(rows) > 1, path
    width = len(rows[0])
    bad = [i for i, r in enumerate(rows) if len(r) != width]
    assert not bad, f"{path}: rows {bad[:5]} are not {width} fields long"
    for r in rows[1:]:
        for cell in r:
            # Text cells never start a formula; numbers may be negative only as numbers.
            if cell.startswith(formula):
                try:
                    float(cell)
                except ValueError:
                    raise AssertionError(f"{path}: formula cell {cell!r}")
hostile = open(sys.argv[2], newline="").read()
# A leading tab or carriage return is shown as \x09 / \x0d (no control byte reaches a cell),
# after the quote that makes the field text.
for name in ("'\\x09=HYPERLINK", "'\\x0d@SUM(A1)", "'=1+2", "'+cmd", "'-2+3", "'@x"):
    assert name in hostile, name
assert not any(c in hostile for c in "\t\r\x1b\x00"), "a control byte in the CSV"
EOF

# HTML: parsed strictly, nothing outside the page.
htmls=()
for j in "$ex"/*.json; do
  run "$work/$(basename "$j" .json).html" report "$j" --format html
  htmls+=("$work/$(basename "$j" .json).html")
done
run "$work/fleet.html" fleet "${fleet[@]}" --format html
run "$work/hostile-fleet.html" fleet "$work/hostile" --format html
run "$work/compare.html" compare "$ex/h200x2-default.json" "$ex/h200x2-nccl-shm.json" --format html
run "$work/history.html" compare "$work/runs/node0001.json" "$work/runs/node0003.json" "$work/runs/node0013.json" --format html
htmls+=("$work/fleet.html" "$work/hostile-fleet.html" "$work/compare.html" "$work/history.html")
$py - "${htmls[@]}" << 'EOF' && ok "HTML: ${#htmls[@]} pages parse in html5lib without an error, charts complete, nothing external" || bad "HTML"
import sys, html5lib
BANNED = {"script", "link", "iframe", "object", "embed", "base", "audio", "video", "source",
          "frame", "applet", "image", "use", "foreignObject"}
URL_ATTRS = {"src", "href", "xlink:href", "action", "formaction", "poster", "background",
             "srcset", "data", "cite", "longdesc", "ping", "manifest"}
for path in sys.argv[1:]:
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    doc = parser.parse(open(path, "rb").read())
    assert not parser.errors, (path, parser.errors[:3])
    svgs = 0
    for el in doc.iter():
        tag = el.tag.split("}")[-1] if isinstance(el.tag, str) else ""
        assert tag not in BANNED, f"{path}: <{tag}>"
        for k, v in el.attrib.items():
            name = k.split("}")[-1] if isinstance(k, str) else str(k)
            if name in URL_ATTRS:
                assert v.startswith(("data:", "#")), f"{path}: {name}={v[:40]}"
            assert not name.startswith("on"), f"{path}: event handler {name}"
            if name == "style":
                assert "url(" not in v and "@import" not in v, f"{path}: style {v[:40]}"
        if tag == "style":
            assert "url(" not in (el.text or "") and "@import" not in (el.text or ""), path
        if tag == "svg":
            svgs += 1
            assert el.get("role") == "img" and el.get("aria-label"), f"{path}: svg name"
            kids = [c.tag.split("}")[-1] for c in el]
            assert kids[:2] == ["title", "desc"], f"{path}: svg title, desc: {kids[:3]}"
        if tag == "figure" and "chart" in el.get("class", ""):
            assert el.find(".//table") is not None, f"{path}: a chart without its table"
    assert svgs > 0, f"{path}: no chart"
EOF
exit $fail
