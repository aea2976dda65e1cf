#!/usr/bin/env python3
"""Plots from a peerbench run JSON: bandwidth against size per method (log x), and a heat map of
the pairs per method at the largest size. PNG files for `peerbench report --plots DIR`.

    scripts/plot.py RUN.json --out DIR
"""
import argparse
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from output_files import check_out_dir, fail, save_figure  # noqa: E402


def load(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        fail("plot.py", f"{path}: {e.strerror}")
    except ValueError as e:
        fail("plot.py", f"{path}: not JSON ({e})")
    if not isinstance(doc, dict) or doc.get("kind") != "peerbench-run" or \
            doc.get("schema_version") not in (1, 2, 3, 4):
        fail("plot.py", f"{path}: not a peerbench run of schema_version 1 to 4")
    return doc


def safe(name):
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


def variant(r):
    """' bfloat16/max' for collectives run over several types or ops (-d, -o), else ''."""
    parts = [p for p in (r.get("datatype"), r.get("op")) if p]
    return " " + "/".join(parts) if parts else ""


def size_label(b):
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if b >= 1 << shift and b % (1 << shift) == 0:
            return f"{b >> shift}{unit}"
    return str(b)


def size_axis(ax, sizes, label):
    """A log2 x axis with one labelled tick per measured size."""
    ticks = sorted(sizes)
    ax.set_xscale("log", base=2)
    ax.set_xticks(ticks)
    ax.set_xticklabels([size_label(t) for t in ticks], rotation=45)
    ax.set_xlabel(label)


def collectives_plot(plt, doc, ok, host, out):
    """Every collective over all ranks on one chart: busbw against size (each method's first
    type/op variant, the one its verdict uses)."""
    curves = {}
    for m in doc["methods"]:
        rs = [r for r in ok if r["method"] == m["name"] and r["src"] is None and r.get("busbw_gbps")]
        if rs:
            first = variant(rs[0])
            curves[m["name"] + first] = sorted((r for r in rs if variant(r) == first),
                                               key=lambda r: r["bytes"])
    if len(curves) < 2 or all(len(c) < 2 for c in curves.values()):
        return []
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for name, pts in curves.items():
        ax.plot([r["bytes"] for r in pts], [r["busbw_gbps"]["median"] for r in pts], marker="o",
                label=name)
    size_axis(ax, {r["bytes"] for c in curves.values() for r in c},
              "size (bytes, as nccl-tests counts them)")
    ax.set_ylabel("bus GB/s (median)")
    ax.set_title(f"NCCL collectives on {host}")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    path = os.path.join(out, "busbw_vs_size_collectives.png")
    save_figure("plot.py", fig, path)
    plt.close(fig)
    return [path]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        fail("plot.py", "matplotlib is missing (Debian: apt-get install python3-matplotlib, then "
                        "run with /usr/bin/python3)")
    doc = load(args.run)
    check_out_dir("plot.py", args.out)
    methods = {m["name"]: m for m in doc["methods"]}
    ok = [r for r in doc["results"] if r["status"] == "ok"]
    host = ", ".join(doc["system"]["hosts"])
    made = []
    for name, m in methods.items():
        rs = [r for r in ok if r["method"] == name]
        if not rs:
            continue
        latency = m["metric"] == "latency"
        key = "time_us" if latency else ("busbw_gbps" if m["uses_nccl"] else "algbw_gbps")
        unit = "us" if latency else ("bus GB/s" if m["uses_nccl"] else "GB/s")
        series = {}
        for r in rs:
            if r["src"] is None:
                pair = "all ranks"
            elif r["src"] == r["dst"]:  # host<->GPU methods: one GPU and its host
                pair = f"rank {r['src']}"
            else:
                pair = f"{r['src']}->{r['dst']}"
            series.setdefault(pair + variant(r), []).append(r)
        if not latency and len({r["bytes"] for r in rs}) > 1:
            fig, ax = plt.subplots(figsize=(7, 4.2))
            for pair, pts in sorted(series.items()):
                pts.sort(key=lambda r: r["bytes"])
                x = [r["bytes"] for r in pts]
                ax.plot(x, [r[key]["median"] for r in pts], marker="o", label=pair)
                ax.fill_between(x, [r[key]["min"] for r in pts], [r[key]["max"] for r in pts], alpha=0.2)
            size_axis(ax, {r["bytes"] for r in rs}, "transfer size (bytes)")
            ax.set_ylabel(f"{unit} (median, band: min-max)")
            ax.set_title(f"{name} on {host}")
            ax.grid(True, alpha=0.3)
            if len(series) <= 12:
                ax.legend(fontsize=7)
            fig.tight_layout()
            path = os.path.join(args.out, f"bw_vs_size_{safe(name)}.png")
            save_figure("plot.py", fig, path)
            plt.close(fig)
            made.append(path)
        # The src x dst matrix is for pairs of GPUs; host<->GPU results sit on its diagonal.
        pair_rs = [r for r in rs if r["src"] is not None and r["src"] != r["dst"]]
        if pair_rs:
            largest = max(r["bytes"] for r in pair_rs)
            n = len(doc["system"]["ranks"])
            grid = [[math.nan] * n for _ in range(n)]
            for r in pair_rs:
                if r["bytes"] == largest:
                    grid[r["src"]][r["dst"]] = r[key]["median"]
                    if m["bidirectional"]:
                        grid[r["dst"]][r["src"]] = r[key]["median"]
            fig, ax = plt.subplots(figsize=(1.2 + 0.7 * n, 1.0 + 0.6 * n))
            im = ax.imshow(grid, cmap="viridis_r" if latency else "viridis")
            vals = [v for row in grid for v in row if not math.isnan(v)]
            mid = (min(vals) + max(vals)) / 2 if vals else 0
            for i in range(n):
                for j in range(n):
                    if not math.isnan(grid[i][j]):
                        light = (grid[i][j] > mid) != latency  # light cells get dark text
                        ax.text(j, i, f"{grid[i][j]:.1f}", ha="center", va="center",
                                color="k" if light else "w", fontsize=8)
            ax.set_xticks(range(n))
            ax.set_yticks(range(n))
            ax.set_xlabel("destination rank")
            ax.set_ylabel("source rank")
            ax.set_title(f"{name} @ {size_label(largest)} ({unit})", fontsize=9)
            fig.colorbar(im, ax=ax, shrink=0.8)
            fig.tight_layout()
            path = os.path.join(args.out, f"heatmap_{safe(name)}.png")
            save_figure("plot.py", fig, path)
            plt.close(fig)
            made.append(path)
    made += collectives_plot(plt, doc, ok, host, args.out)
    for p in made:
        print(p)
    if not made:
        print("plot.py: no ok results to plot", file=sys.stderr)


if __name__ == "__main__":
    try:
        main()
    except (KeyError, TypeError, IndexError, ValueError, AttributeError) as e:
        # A JSON file of the right kind with fields missing or of the wrong type.
        fail("plot.py", f"cannot plot this run: {type(e).__name__} {e} (peerbench report checks "
                        "a run strictly and names the field)")
