#!/usr/bin/env python3
"""Derives the known-good curves of 2 x NVIDIA H200 (NV18, PCIe Gen5 x16) from this repository's
own real runs, so that no H200 figure in the table is typed by hand.

    python3 data/known_good/derive_h200x2.py          # rewrites data/known_good/h200x2_runs.json
    python3 data/known_good/derive_h200x2.py --check  # exit 1 when the file is not what it would write

Each point's figure is the median, over every run and direction that measured it, of each result's
own median (peerbench's headline: busbw for NCCL, algbw for copies, time for latency). Every value
more than 2 % from that median is listed in the point ("beyond_2pct") and printed.
Standard library only; run it from anywhere.
"""
import json
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "data", "known_good", "h200x2_runs.json")

# Every real 2 x H200 run kept in the repository (results/examples/README.md and
# tests/fixtures/runs/h200x2/). nccl-small-graph.json holds 8-byte sizes only, below the table.
RUNS = [
    "results/examples/h200x2-default.json",
    "results/examples/h200x2-per-task-binding.json",
    "results/examples/h200x2-collectives.json",
    "results/examples/h200x2-nccl-large.json",
    "results/examples/h200x2-host.json",
    "results/examples/h200x2-nccl-shm.json",
    "results/examples/h200x2-nccl-net.json",
    "tests/fixtures/runs/h200x2/default.json",
    "tests/fixtures/runs/h200x2/nccl-large.json",
    "tests/fixtures/runs/h200x2/serial.json",
    "tests/fixtures/runs/h200x2/rounds.json",
    "tests/fixtures/runs/h200x2/p2p-disabled.json",
    "tests/fixtures/runs/h200x2/p2p-shm-disabled.json",
]

GPU_NAME = "NVIDIA H200"
MODEL = "H200 SXM"
NVLINK = "NV18"
PCIE = "PCIe Gen5 x16"
RANKS = 2
MIN_BYTES = 64 << 20  # the table is a curve from 64 MiB up (latency methods: their fixed size)
TOLERANCE = 0.02
SOURCE = "peerbench-h200x2"

# Methods measured but not tabled, and why (also written into the file).
NOT_TABLED = {
    "staged": "goes through pinned host memory: its figure is the host's (CPU, memory), not the "
    "GPU link's, so a known-good figure per GPU model and link would mislead",
}

# Cross-checks typed from ../shared/REFERENCE.md, "Every collective and host copies on that
# machine (nccl-tests 2.19.6 MPI build, 2 ranks, 2026-11-29)": busbw GB/s, float sum, out of place.
# They are not the table's figures (those come from the runs above); the file keeps them beside
# each point so the agreement with nccl-tests stays visible.
NCCL_TESTS = {
    "nccl-allreduce": [268.6, 298.2, 326.0, 345.5],
    "nccl-allgather": [212.6, 244.3, 268.0, 290.3],
    "nccl-reducescatter": [209.3, 237.6, 274.6, 294.2],
    "nccl-broadcast": [329.0, 356.8, 365.1, 366.6],
    "nccl-reduce": [335.5, 362.1, 370.2, 372.3],
    "nccl-alltoall": [244.8, 280.0, 331.0, 336.7],
    "nccl-sendrecv-ring": [266.8, 305.0, 359.9, 365.1],
}
NCCL_TESTS_SIZES = [64 << 20, 256 << 20, 1 << 30, 4 << 30]
NCCL_TESTS_SOURCE = "reference-nccl-tests-h200x2"


def load(rel):
    with open(os.path.join(ROOT, rel)) as f:
        return json.load(f)


def method_catalog(docs):
    """Method facts (family, scope, metric) from the schema-2 runs' own method lists."""
    catalog = {}
    for doc in docs.values():
        for m in doc.get("methods", []):
            catalog[m["name"]] = m
    return catalog


def check_machine(rel, doc):
    """Refuses a run that is not 2 x H200 joined by NV18 with PCIe Gen5 x16 where it says so."""
    ranks = doc["system"]["ranks"]
    names = {r["gpu"]["name"] for r in ranks}
    if len(ranks) != RANKS or names != {GPU_NAME}:
        sys.exit(f"{rel}: expected {RANKS} x {GPU_NAME}, found {len(ranks)} x {sorted(names)}")
    for host in doc["topology"]["hosts"]:
        for pair in host.get("pairs", []):
            if pair["link"] != NVLINK:
                sys.exit(f"{rel}: link {pair['link']} between GPUs, expected {NVLINK}")
        for gpu in host["gpus"]:
            label = pcie_label(gpu)
            if label and label != PCIE:
                sys.exit(f"{rel}: GPU {gpu['index']} on {label}, expected {PCIE}")


def pcie_label(gpu):
    gen, width = gpu.get("pcie_gen_max"), gpu.get("pcie_width_max")
    return f"PCIe Gen{gen} x{width}" if gen and width else None


def nccl_on_p2p(doc):
    """NCCL figures count only from runs where NCCL carried every pair over P2P."""
    kinds = [(p.get("nccl") or {}).get("kind") for p in doc["pairs"]]
    return bool(kinds) and all(k == "P2P" for k in kinds)


def eligible(r, m, doc):
    """The first variant of a healthy, checked, plain (no CUDA graph) result at a table size."""
    if r["status"] != "ok" or (r.get("check") or {}).get("wrong", 0) != 0:
        return False
    if r.get("graph_replays", 0) or r.get("gate_timeouts", 0) or r.get("concurrent_pairs", 1) > 1 \
            and m["scope"] == "pair":
        return False
    if r.get("datatype") not in (None, "float") or r.get("op") not in (None, "sum"):
        return False
    if r.get("root") not in (None, 0) or m["name"] in NOT_TABLED:
        return False
    if m["name"] == "nccl-allreduce" and doc["config"].get("allreduce_inplace"):
        return False
    if m["uses_nccl"] and not nccl_on_p2p(doc):
        return False
    return m["metric"] == "latency" or r["bytes"] >= MIN_BYTES


def headline(r, m):
    """peerbench's headline figure (core/judge/verdict.h headline_value)."""
    if m["metric"] == "latency":
        return r["time_us"]["median"]
    if m["uses_nccl"] and r.get("busbw_gbps"):
        return r["busbw_gbps"]["median"]
    return r["algbw_gbps"]["median"]


def curve_key(m):
    """(link, ranks): per-GPU host copies are the PCIe link; ranks only where they matter."""
    if m["family"] == "host":
        return PCIE, (RANKS if m.get("all_gpus_at_once") or m["name"].endswith("-all") else None)
    return NVLINK, (RANKS if m["uses_nccl"] else None)


def unit(m):
    if m["metric"] == "latency":
        return "us"
    return "busbw GB/s" if m["uses_nccl"] else "GB/s"


def collect(docs, catalog):
    groups = {}
    for rel, doc in docs.items():
        for r in doc["results"]:
            m = catalog.get(r["method"])
            if m is None:
                sys.exit(f"{rel}: method {r['method']} unknown to every schema-2 run")
            if not eligible(r, m, doc):
                continue
            where = os.path.basename(rel) if rel.startswith("results/") else "fixtures/" + \
                os.path.basename(rel)
            if r.get("src") is not None and r.get("dst") is not None:
                where += f" {r['src']}->{r['dst']}"
            groups.setdefault(r["method"], {}).setdefault(r["bytes"], []).append(
                (headline(r, m), where))
    return groups


def point(method, size, values, beyond):
    vals = [v for v, _ in values]
    med = statistics.median(vals)
    p = {"bytes": size, "value": round(med, 3), "n": len(vals), "min": round(min(vals), 3),
         "max": round(max(vals), 3), "files": sorted({w for _, w in values})}
    far = [f"{w}: {v:.3f} ({100 * (v / med - 1):+.2f}%)" for v, w in values
           if abs(v / med - 1) > TOLERANCE]
    if far:
        p["beyond_2pct"] = far
        beyond.extend(f"{method} {size} B: {f}" for f in far)
    if method in NCCL_TESTS and size in NCCL_TESTS_SIZES:
        p["cross_check"] = {"value": NCCL_TESTS[method][NCCL_TESTS_SIZES.index(size)],
                            "source": NCCL_TESTS_SOURCE}
    return p


def curves(groups, catalog, beyond):
    out = []
    for method in sorted(groups):
        m = catalog[method]
        link, ranks = curve_key(m)
        c = {"model": MODEL, "link": link, "ranks": ranks, "method": method, "unit": unit(m),
             "source": SOURCE, "measured_on": GPU_NAME, "gpus_in_system": RANKS}
        if m["uses_nccl"]:
            c["nvls"] = "off"
            c["conditions"] = "NCCL 2.28.3, NCCL_NVLS_ENABLE=0, float sum, out of place, root 0"
        c["points"] = [point(method, s, groups[method][s], beyond)
                       for s in sorted(groups[method])]
        out.append(c)
    return out


def document(docs):
    catalog = method_catalog(docs)
    beyond = []
    table = {
        "format": "peerbench-known-good",
        "format_version": 1,
        "generated_by": "data/known_good/derive_h200x2.py (do not edit by hand)",
        "inputs": list(docs),
        "not_tabled": NOT_TABLED,
        "curves": curves(collect(docs, catalog), catalog, beyond),
    }
    return table, beyond


def main():
    docs = {rel: load(rel) for rel in RUNS}
    for rel, doc in docs.items():
        check_machine(rel, doc)
    table, beyond = document(docs)
    text = json.dumps(table, indent=1) + "\n"
    for line in beyond:
        print("beyond 2% of the median:", line)
    if "--check" in sys.argv[1:]:
        with open(OUT) as f:
            if f.read() != text:
                sys.exit(f"{OUT} is stale: run python3 {os.path.relpath(__file__, ROOT)}")
        return
    with open(OUT + ".tmp", "w") as f:
        f.write(text)
    os.replace(OUT + ".tmp", OUT)
    print(f"wrote {os.path.relpath(OUT, ROOT)}: {len(table['curves'])} curves")


if __name__ == "__main__":
    main()
