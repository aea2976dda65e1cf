#!/usr/bin/env python3
"""Summary of gpu_check's issue-18 runs (-R, -a, -z, -C): one line each, for its summary log.

    scripts/issue18_summary.py OUTDIR

OUTDIR is the folder gpu_check.sh wrote the runs into (reg*-graph.json, reg*-64m.json, avg*.json,
blocking.json); a run that is missing or has no ok result is named with the reason.
Exit code 0; 2 for bad arguments or an OUTDIR that is not a folder.
"""
import argparse
import json
import os
import sys


def first_ok(path):
    try:
        d = json.load(open(path))
    except (OSError, ValueError) as e:
        return None, f"no results ({e})"
    ok = [r for r in d["results"] if r["status"] == "ok"]
    return (ok[0], "") if ok else (None, "; ".join(r.get("reason") or r["status"] for r in d["results"]))


def main():
    ap = argparse.ArgumentParser(prog="issue18_summary.py", description=__doc__.split("\n")[0],
                                 epilog=__doc__.split("\n\n", 2)[2],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir", metavar="OUTDIR", help="the folder of gpu_check.sh's runs")
    out = ap.parse_args().outdir
    if not os.path.isdir(out):
        sys.stderr.write(f"issue18_summary.py: error: {out} is not a folder\n")
        sys.exit(2)
    for reg in (0, 1, 2):
        g, why_g = first_ok(f"{out}/reg{reg}-graph.json")
        m, why_m = first_ok(f"{out}/reg{reg}-64m.json")
        small = f"{g['time_us']['median']:.2f} us" if g else why_g
        big = f"{m['busbw_gbps']['median']:.1f} busbw GB/s, host {m['enqueue']['host_us_per_op']:.2f} us/op" if m else why_m
        print(f"# -R {reg}: 8 B under -G {small}; 64 MiB {big}")
    times = []
    for a in range(4):
        r, why = first_ok(f"{out}/avg{a}.json")
        times.append(f"{r['time_us']['median']:.2f}" if r else why)
    print("# -a 0..3 (ce-bidir 8 B, both ranks timed, us): " + " ".join(times))
    r, why = first_ok(f"{out}/blocking.json")
    print("# -z 1 (8-byte all-reduce, the host waits for each): " +
          (f"{r['time_us']['median']:.2f} us, launch-bound {r['enqueue']['launch_bound']}" if r else why))


if __name__ == "__main__":
    main()
