#!/usr/bin/env python3
"""Fleet test data: many node files derived from one real peerbench run (the 2 x H200 default
suite), each with its own host name, PCI ids and UUIDs and a little noise, some slowed, some cut
short, one truncated, some on other driver/NCCL versions, and a --hosts file that also names
nodes that never reported.

    make_fleet.py RUN.json OUTDIR [--nodes N] [--plain]

--plain: every node healthy and on one version (the scale test). Prints nothing; the layout
(which node is what) is written to OUTDIR/../fleet-layout.json for the test to check against.
"""
import argparse
import copy
import json
import os
import random

SLOW = {3: ("ce-write", 0.80), 11: ("nccl-allreduce", 0.75), 17: ("sm-read", 0.30)}
CUT = {5, 23}
TRUNCATED = {7}
OLD_DRIVER = {13, 14}
MISSING = ["node%04d" % i for i in (9001, 9002)]


def scale_stats(s, f):
    if s:
        for k in ("min", "median", "max", "mean"):
            s[k] *= f


def slow(result, f):
    """Bandwidth divided by f's inverse: time grows, GB/s shrinks."""
    for key in ("algbw_gbps", "busbw_gbps"):
        scale_stats(result.get(key), f)
    scale_stats(result.get("time_us"), 1 / f)
    for d in result.get("directions") or []:
        scale_stats(d.get("algbw_gbps"), f)
        scale_stats(d.get("time_us"), 1 / f)


def rename(doc, i, rng):
    host = "node%04d" % i
    doc["system"]["hosts"] = [host]
    pci = {}
    for r in doc["system"]["ranks"]:
        r["host"] = host
        old = r["gpu"]["pci_bus_id"]
        pci[old] = "0000:%02X:00.0" % (0x1B + 0x28 * r["gpu"]["index"])
        r["gpu"]["pci_bus_id"] = pci[old]
        r["gpu"]["uuid"] = "GPU-%08x-%04x-0000-0000-%012x" % (i, r["gpu"]["index"], rng.getrandbits(48))
    for h in (doc.get("topology") or {}).get("hosts", []):
        h["host"] = host
        for g in h["gpus"]:
            g["pci_bus_id"] = pci.get(g["pci_bus_id"], g["pci_bus_id"])
    doc["environment"].pop("PEERBENCH_HOST_ID", None)


def cut_short(doc):
    keep = len(doc["results"]) // 3
    doc["in_progress"] = {"method": doc["results"][keep]["method"], "round": 0, "pairs": [[0, 1]],
                          "sizes": [doc["results"][keep]["bytes"]], "all_ranks": False}
    doc["results"] = doc["results"][:keep]
    doc["status"] = "incomplete"
    doc["finished_at"] = None


def node(base, i, rng, plain):
    doc = copy.deepcopy(base)
    rename(doc, i, rng)
    doc["started_at"] = "2026-12-01T10:%02d:%02dZ" % (i // 60 % 60, i % 60)
    for r in doc["results"]:
        if r["status"] == "ok":
            slow(r, 1 + rng.uniform(-0.01, 0.01))
    if plain:
        return doc
    if i in SLOW:
        method, f = SLOW[i]
        for r in doc["results"]:
            if r["method"] == method and r["status"] == "ok" and (r["src"] in (0, None)):
                slow(r, f)
    if i in CUT:
        cut_short(doc)
    if i in OLD_DRIVER:
        doc["system"]["driver_version"] = "570.86.10"
        doc["system"]["nccl_version"] = "2.27.3"
        for h in doc["topology"]["hosts"]:
            h["driver_version"] = "570.86.10"
    return doc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run")
    ap.add_argument("out")
    ap.add_argument("--nodes", type=int, default=32)
    ap.add_argument("--plain", action="store_true")
    args = ap.parse_args()
    with open(args.run) as f:
        base = json.load(f)
    os.makedirs(args.out, exist_ok=True)
    rng = random.Random(13)
    names = []
    for i in range(1, args.nodes + 1):
        doc = node(base, i, rng, args.plain)
        text = json.dumps(doc, indent=1)
        if not args.plain and i in TRUNCATED:
            text = text[: len(text) // 2]
        name = "node%04d" % i
        names.append(name)
        with open(os.path.join(args.out, name + ".json"), "w") as f:
            f.write(text)
    parent = os.path.dirname(os.path.abspath(args.out))
    with open(os.path.join(parent, "hosts.txt"), "w") as f:
        f.write("# expected nodes\n" + "\n".join(names + ([] if args.plain else MISSING)) + "\n")
    layout = {"slow": {"node%04d" % i: m for i, (m, _) in SLOW.items()},
              "cut": ["node%04d" % i for i in CUT], "truncated": ["node%04d" % i for i in TRUNCATED],
              "old_driver": ["node%04d" % i for i in OLD_DRIVER], "missing": MISSING}
    with open(os.path.join(parent, "fleet-layout.json"), "w") as f:
        json.dump(layout, f)


if __name__ == "__main__":
    main()
