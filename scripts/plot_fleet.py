#!/usr/bin/env python3
"""Plots for many runs, from the CSV peerbench writes:

    scripts/plot_fleet.py fleet FLEET.csv --out DIR      (peerbench fleet ... --format csv)
        per method, GPU model and link: every pair's figure across the nodes, sorted, with the
        fleet median and the outliers marked and named
    scripts/plot_fleet.py history HISTORY.csv --out DIR  (peerbench compare A B C ... --format csv)
        per method at its largest size: each GPU pair's median (min-max bars) across the runs,
        regressions marked

PNG files for `--plots DIR` of `peerbench fleet` and `peerbench compare`.
"""
import argparse
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot import safe, size_label  # noqa: E402  (the run plots' file names and size labels)
from output_files import check_out_dir, fail, save_figure  # noqa: E402


def pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        fail("plot_fleet.py", "matplotlib is missing (Debian: apt-get install python3-matplotlib, "
                              "then run with /usr/bin/python3)")


def finish(fig, ax, plt, path, made, legend=True):
    ax.grid(True, alpha=0.3)
    if legend:
        ax.legend(fontsize=7)
    fig.tight_layout()
    save_figure("plot_fleet.py", fig, path)
    plt.close(fig)
    made.append(path)


def read_rows(path):
    try:
        with open(path, newline="") as f:
            return list(csv.DictReader(f))
    except OSError as e:
        fail("plot_fleet.py", f"{path}: {e.strerror}")
    except (csv.Error, UnicodeDecodeError) as e:
        fail("plot_fleet.py", f"{path}: not a CSV file ({e})")


def fleet_plots(rows, out, plt):
    groups = {}
    for r in rows:
        # Placed figures only: a state's row (another job, not measured) names its method but has
        # no figure, and a flag outside the fleet's groups no fleet median.
        if r["method"] and r["value"] and r["fleet_median"]:
            # A node with no figure at the fleet's size has a row at the largest size it has,
            # against the fleet's median there: a plot of its own, not one over the fleet's.
            short = r.get("reason", "").startswith("no figure at the fleet's size")
            key = (r["method"], r["gpu_model"], r["link"], int(r["bytes"]), short)
            groups.setdefault(key, []).append(r)
    made = []
    for (method, gpu, link, size, short), rs in sorted(groups.items()):
        rs.sort(key=lambda r: float(r["value"]))
        x = list(range(len(rs)))
        y = [float(r["value"]) for r in rs]
        bad = [i for i, r in enumerate(rs) if r["outlier"] == "1"]
        fig, ax = plt.subplots(figsize=(7.5, 4.2))
        ax.scatter(x, y, s=10, color="tab:blue", label="pairs")
        if bad:  # the legend named an outlier marker no point carried
            ax.scatter([x[i] for i in bad], [y[i] for i in bad], s=40, color="tab:red", marker="x",
                       label="fleet-outlier")
        for i in (list(range(len(rs))) if short else bad)[:12]:
            ax.annotate(rs[i]["node"], (x[i], y[i]), fontsize=7, xytext=(4, 4), textcoords="offset points")
        ax.axhline(float(rs[0]["fleet_median"]), color="k", linestyle="--", linewidth=1, label="fleet median")
        ax.set_xlabel(f"pairs, sorted ({len({r['node'] for r in rs})} nodes)")
        ax.xaxis.get_major_locator().set_params(integer=True)  # pairs are counted, not measured
        ax.set_ylabel(rs[0]["unit"])
        ax.set_title(f"{method} @ {size_label(size)} on {gpu}, {link}" +
                     (" (nodes with no figure at the fleet's size)" if short else ""), fontsize=10)
        name = f"fleet_{safe(method)}_{safe(link)}_{safe(gpu)}" + (f"_short_{size}" if short else "")
        finish(fig, ax, plt, os.path.join(out, name + ".png"), made)
    return made



def run_labels(rows):
    """Per run, '2: b.json (driver 590.10.01)': the run, its file, and the versions (and hosts)
    that differ between the runs; the driver where none does. A CUDA or NCCL history had been
    labelled by an unchanged driver."""
    runs = {}
    for r in rows:
        runs.setdefault(int(r["run"]), r)
    keys = [("driver", "driver"), ("cuda", "CUDA"), ("nccl", "NCCL"), ("hosts", "on")]
    differ = [(k, name) for k, name in keys if len({r.get(k, "") for r in runs.values()}) > 1]
    shown = differ or [("driver", "driver")]
    labels = {}
    for k, r in runs.items():
        parts = [name + " " + r[key] for key, name in shown if r.get(key)]
        labels[k] = r["run"] + ": " + os.path.basename(r["file"]) + (
            " (" + ", ".join(parts) + ")" if parts else "")
    return labels

def history_plots(rows, out, plt):
    by_method = {}
    # Cases a run lost or never asked for have no figures: nothing to draw.
    for r in (r for r in rows if r["median"]):
        by_method.setdefault(r["method"], []).append(r)
    labels = run_labels(rows)
    made = []
    for method, rs in sorted(by_method.items()):
        largest = max(int(r["bytes"]) for r in rs)
        rs = [r for r in rs if int(r["bytes"]) == largest]
        runs = sorted({int(r["run"]) for r in rs})
        fig, ax = plt.subplots(figsize=(7.5, 4.2))
        for pair in sorted({r["gpu_pair"] for r in rs}):
            pts = sorted((int(r["run"]), r) for r in rs if r["gpu_pair"] == pair)
            x = [p[0] for p in pts]
            med = [float(p[1]["median"]) for p in pts]
            lo = [m - float(p[1]["min"]) for m, p in zip(med, pts)]
            hi = [float(p[1]["max"]) - m for m, p in zip(med, pts)]
            ax.errorbar(x, med, yerr=[lo, hi], marker="o", capsize=3, label=pair)
            reg = [(xx, m) for xx, m, p in zip(x, med, pts) if p[1]["change"] == "regression"]
            if reg:
                ax.scatter(*zip(*reg), s=80, color="tab:red", marker="x", zorder=5)
        ax.set_xticks(runs)
        # "N: file (versions that differ)": the versions on a line of their own.
        ax.set_xticklabels([labels[k].replace(" (", "\n(", 1) for k in runs], fontsize=7)
        ax.set_ylabel(rs[0]["metric"])
        ax.set_title(f"{method} @ {size_label(largest)} across runs (x: regression)", fontsize=10)
        finish(fig, ax, plt, os.path.join(out, f"history_{safe(method)}.png"), made,
               legend=len({r["gpu_pair"] for r in rs}) <= 12)
    return made


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kind", choices=["fleet", "history"])
    ap.add_argument("csv")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    plt = pyplot()
    rows = read_rows(args.csv)
    need = {"fleet": {"node", "method", "value", "fleet_median", "outlier"},
            "history": {"method", "gpu_pair", "run", "median", "change"}}[args.kind]
    if rows and not need <= set(rows[0]):
        fail("plot_fleet.py",
             f"{args.csv}: not a peerbench {args.kind} CSV (columns {sorted(need)} expected)")
    check_out_dir("plot_fleet.py", args.out)
    made = (fleet_plots if args.kind == "fleet" else history_plots)(rows, args.out, plt)
    for p in made:
        print(p)
    if not made:
        print("plot_fleet.py: nothing to plot", file=sys.stderr)


if __name__ == "__main__":
    try:
        main()
    except (KeyError, TypeError, IndexError, ValueError) as e:
        # A CSV with the right columns whose values are not what peerbench writes.
        fail("plot_fleet.py", f"cannot plot this CSV: {type(e).__name__} {e}")
