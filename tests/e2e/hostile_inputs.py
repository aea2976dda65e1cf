#!/usr/bin/env python3
"""Hostile inputs against the real binary (issue 20): FIFOs, devices, sockets and links given as
every input, oversized files, symlink loops in fleet folders, real results files mutated into
values no run writes, bad --expect and --hosts files, outputs that are inputs, and the memory
bombs. Each case runs peerbench under a time and memory limit (a hang fails the case, never the
CI job) and checks its outcome: exit code 2 with one line naming the file or flag, or the right
handling (a fleet lists an unreadable file and reads the rest, a real file still reports).

usage: hostile_inputs.py PEERBENCH SOURCE_DIR [--measure]
--measure also makes the full-size bombs (a 200 MB results file, 100,000 hosts) and prints
each one's peak memory and time; without it the bombs are small and only their bounds are
checked, so that CI runs the whole harness in well under a minute or two.
"""
import concurrent.futures
import copy
import glob
import hashlib
import json
import os
import csv
import io
import re
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

BIN, SRC = sys.argv[1], sys.argv[2]
MEASURE = "--measure" in sys.argv[3:]
CASE_SECONDS = 20  # a case that takes longer hangs
MEMORY_LIMIT = 6 << 30  # address space per case: a runaway fails instead of swapping
WORK = tempfile.mkdtemp(prefix="pb-hostile-")
ROOT = os.geteuid() == 0


class Case:
    """One command and what must come of it. `want`: "refused" (exit 2, one line naming every
    string in `names`), "ok" (exit 0 or 1, the check passes), or "listed" (fleet: exit 1, the
    output names every string in `names` as unreadable)."""

    def __init__(self, cls, what, argv, want, names=(), check=None, as_nobody=False,
                 seconds=None):
        self.cls, self.what, self.argv, self.want = cls, what, argv, want
        self.names, self.check, self.as_nobody = list(names), check, as_nobody
        self.seconds = seconds  # a bound on its time, tighter than CASE_SECONDS


CASES = []


def case(*args, **kw):
    CASES.append(Case(*args, **kw))


def path(*parts):
    return os.path.join(WORK, *parts)


def write(p, data, mode="w"):
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, mode) as f:
        f.write(data)
    return p


def limits():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def nobody():
    limits()
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)


def execute(argv, as_nobody=False):
    """(exit code or "timeout", stdout, stderr)."""
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, cwd=WORK,
                         preexec_fn=nobody if as_nobody else limits)
    try:
        out, err = p.communicate(timeout=CASE_SECONDS)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        return "timeout", out, err
    return p.returncode, out, err


def verdict(c):
    """"" when the case came out as it must, else why not."""
    t0 = time.monotonic()
    rc, out, err = execute(c.argv, c.as_nobody)
    took = time.monotonic() - t0
    out_s = out.decode("utf-8", "replace")
    err_s = err.decode("utf-8", "replace")
    if rc == "timeout":
        return f"no answer within {CASE_SECONDS} s (a hang)"
    if rc < 0 or "terminate" in err_s or "Sanitizer" in err_s:
        return f"crashed: rc {rc}: {err_s[:300]}"
    if c.want == "refused":
        lines = err_s.splitlines()
        if rc != 2:
            return f"rc {rc}, want 2; stderr: {err_s[:300]!r}"
        if len(lines) != 1 or not lines[0].startswith("peerbench: error: "):
            return f"want one 'peerbench: error:' line, got {err_s[:400]!r}"
        if any(ch in err_s[:-1] for ch in "\x1b\x07\r\x00"):
            return f"raw control characters in the message: {err_s!r}"
        missing = [n for n in c.names if n not in err_s]
        if missing:
            return f"message does not name {missing}: {err_s.strip()!r}"
    elif c.want == "listed":
        if rc != 1:
            return f"rc {rc}, want 1 (a fleet with an unreadable file); stderr {err_s[:300]!r}"
        missing = [n for n in c.names if n not in out_s]
        if missing or "unreadable" not in out_s:
            return f"fleet output does not list {missing} as unreadable"
    elif c.want == "ok":
        if rc not in (0, 1):
            return f"rc {rc}, want 0 or 1: {err_s[:300]!r}"
    if c.check:
        why = c.check(rc, out_s, err_s)
        if why:
            return why
    if c.seconds and took > c.seconds:
        return f"took {took:.1f} s, want under {c.seconds} s"
    return ""


# ---------------------------------------------------------------------------------------------
# Inputs: the real runs, and the special files every input role must refuse without hanging.

RUNS = sorted(
    f for f in glob.glob(os.path.join(SRC, "tests/fixtures/runs/**/*.json"), recursive=True) +
    glob.glob(os.path.join(SRC, "results/examples/*.json"))
    if json.load(open(f)).get("kind") == "peerbench-run")
REAL = path("real.json")
shutil.copy(os.path.join(SRC, "tests/fixtures/runs/h200x2/default.json"), REAL)
REAL2 = path("real2.json")
shutil.copy(os.path.join(SRC, "tests/fixtures/runs/h200x2/serial.json"), REAL2)
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 64  # what find_plots takes for a PNG


def make_specials():
    """name -> path of a thing that is not a regular file (or not there)."""
    d = path("special")
    os.makedirs(d)
    s = {}
    s["fifo"] = os.path.join(d, "fifo")
    os.mkfifo(s["fifo"])
    s["chardev"] = "/dev/zero"
    s["null"] = "/dev/null"
    s["socket"] = os.path.join(d, "sock")
    sk = socket.socket(socket.AF_UNIX)
    sk.bind(s["socket"])
    s["folder"] = os.path.join(d, "folder")
    os.mkdir(s["folder"])
    s["dangling"] = os.path.join(d, "dangling")
    os.symlink(os.path.join(d, "nothing"), s["dangling"])
    s["loop"] = os.path.join(d, "loop1")
    os.symlink(os.path.join(d, "loop2"), s["loop"])
    os.symlink(s["loop"], os.path.join(d, "loop2"))
    for target in ("fifo", "chardev", "socket", "folder"):
        s["link-to-" + target] = os.path.join(d, "link-" + target)
        os.symlink(s[target], s["link-to-" + target])
    s["missing"] = os.path.join(d, "missing.json")
    s["newline\nname"] = os.path.join(d, "new\nline\x1b[2J")
    os.mkfifo(s["newline\nname"])
    return s, sk


SPECIALS, _socket = make_specials()
UNREADABLE_ON_FLEET = ("fifo", "chardev", "null", "socket", "link-to-fifo", "link-to-chardev",
                       "link-to-socket", "newline\nname")


def shown(p):
    """A path as a one-line message shows it."""
    return p.replace("\n", "\\x0a").replace("\x1b", "\\x1b")


def special_file_cases():
    for kind, p in SPECIALS.items():
        n = [shown(p)]
        case("special", f"report {kind}", [BIN, "report", p], "refused", n)
        case("special", f"report real + {kind}", [BIN, "report", REAL, p], "refused", n)
        case("special", f"report --expect {kind}", [BIN, "report", REAL, "--expect", p], "refused",
             n + ["--expect"])
        case("special", f"run --dry-run --expect {kind}",
             [BIN, "run", "--dry-run", "--np", "2", "--expect", p], "refused", ["--expect"])
        case("special", f"compare {kind} B", [BIN, "compare", p, REAL], "refused", n)
        case("special", f"compare A {kind}", [BIN, "compare", REAL, p], "refused", n)
        case("special", f"compare A B {kind}", [BIN, "compare", REAL, REAL2, p], "refused", n)
        case("special", f"fleet --hosts {kind}", [BIN, "fleet", REAL, "--hosts", p], "refused",
             n + ["--hosts"])
        case("special", f"fleet --expect {kind}", [BIN, "fleet", REAL, "--expect", p], "refused",
             n + ["--expect"])
        if kind in UNREADABLE_ON_FLEET:
            # Given by name, a device or FIFO is a mistake in the command, refused as report
            # refuses it; met while walking a folder, it is listed (below).
            case("special", f"fleet real + {kind}", [BIN, "fleet", REAL, p], "refused", n)
        elif kind not in ("missing", "dangling", "loop", "folder", "link-to-folder"):
            raise AssertionError(kind)
        else:
            case("special", f"fleet {kind}", [BIN, "fleet", p], "refused", [])
        # The same thing as one of the PNGs of --plots (read when HTML embeds them).
        plots = path("plots-" + kind.replace("\n", "_"))
        os.makedirs(plots)
        write(os.path.join(plots, "a.png"), PNG, "wb")
        if kind not in ("missing",):
            os.symlink(p, os.path.join(plots, "b.png"))
        want = "ok" if kind == "missing" else "refused"
        for cmd in ([BIN, "report", REAL], [BIN, "compare", REAL, REAL2, REAL],
                    [BIN, "fleet", REAL]):
            case("special", f"{cmd[1]} --plots with {kind} as a PNG",
                 cmd + ["--format", "html", "--plots", plots], want,
                 [] if kind == "missing" else ["b.png", "--plots"])
    for cmd in (["report"], ["report", REAL], ["compare", REAL], ["compare", REAL, REAL2]):
        argv = [BIN] + cmd + [""]
        case("special", f"{' '.join(cmd[:1])} with an empty argument", argv, "refused",
             ["argument", "empty"])


def oversized_cases():
    """Sparse files past each kind's limit: refused on their size, before a byte is read."""
    big = {}
    for name, size in (("results.json", 257 << 20), ("expect.json", (1 << 20) + 1),
                       ("hosts.txt", (64 << 20) + 1), ("huge.png", (16 << 20) + 1)):
        big[name] = path("big", name)
        os.makedirs(path("big"), exist_ok=True)
        with open(big[name], "wb") as f:
            f.truncate(size)
    case("oversized", "report of a 257 MiB file", [BIN, "report", big["results.json"]], "refused",
         ["results.json", "256 MiB"])
    case("oversized", "compare with a 257 MiB file", [BIN, "compare", REAL, big["results.json"]],
         "refused", ["256 MiB"])
    case("oversized", "fleet with a 257 MiB file", [BIN, "fleet", REAL, big["results.json"]],
         "listed", ["results"])
    # The file, its role, its size and the limit (issue 42: "at most 1 MiB is read" read as if
    # the first MiB had been read).
    for cmd in ([BIN, "report", REAL], [BIN, "fleet", REAL], [BIN, "run", "--dry-run", "--np", "2"]):
        case("oversized", f"{cmd[1]} --expect of 1 MiB + 1", cmd + ["--expect", big["expect.json"]],
             "refused", ["expect.json", "--expect", "1048577 bytes", "over its limit of 1 MiB"])
    case("oversized", "--hosts of 64 MiB + 1", [BIN, "fleet", REAL, "--hosts", big["hosts.txt"]],
         "refused", ["64 MiB"])
    plots = path("big-plots")
    os.makedirs(plots)
    os.rename(big["huge.png"], os.path.join(plots, "huge.png"))
    case("oversized", "a 16 MiB + 1 PNG", [BIN, "report", REAL, "--format", "html", "--plots",
                                           plots], "refused", ["huge.png", "16 MiB"])
    many = path("many-plots")
    os.makedirs(many)
    for i in range(5):  # 5 x 15 MiB: each within its limit, together past the page's 64 MiB
        with open(os.path.join(many, f"p{i}.png"), "wb") as f:
            f.write(PNG)
            f.truncate(15 << 20)
    case("oversized", "PNGs over 64 MiB together", [BIN, "report", REAL, "--format", "html",
                                                    "--plots", many], "refused", ["64 MiB"])


# ---------------------------------------------------------------------------------------------
# Issue 42: walks, host lists and listings end within seconds, or stop at the limit they name
# (core/platform/input_limits.h, docs/limits.md). Each took 12-39 s before.

LIMIT_SECONDS = 10  # "within a few seconds", with room for a sanitizer build on a loaded machine


def limit_cases():
    case("limits", "fleet /proc/self (its links lead through the whole file system)",
         [BIN, "fleet", "/proc/self"], "refused", ["/proc/self", "more than 100000 entries"],
         seconds=LIMIT_SECONDS)
    wide = path("wide")  # a real run beside 100,000 other entries: 100,001 in all
    os.makedirs(wide)
    shutil.copy(REAL, os.path.join(wide, "node.json"))
    for i in range(100000):
        open(os.path.join(wide, f"f{i:06d}"), "w").close()
    case("limits", "fleet of a folder of 100,001 entries", [BIN, "fleet", wide], "refused",
         ["wide", "more than 100000 entries", "give the folders that hold the results files"],
         seconds=LIMIT_SECONDS)
    names = "".join(f"n{i:06d}\n" for i in range(99999))
    at_limit = write(path("limits", "hosts-100000.txt"), "vm\n" + names)
    case("limits", "--hosts of 100,000 names (the limit)", [BIN, "fleet", REAL, "--hosts", at_limit],
         "ok", check=fleet_counts("99999 missing"), seconds=LIMIT_SECONDS)
    over = write(path("limits", "hosts-100001.txt"), "vm\n" + names + "one-more\n")
    case("limits", "--hosts of 100,001 names", [BIN, "fleet", REAL, "--hosts", over], "refused",
         ["hosts-100001.txt", "--hosts", "line 100001", "more than 100000 host names"],
         seconds=LIMIT_SECONDS)
    note = "# note: -v lists at most 100000 pairs"
    case("limits", "run --dry-run --np 1024 -v", [BIN, "run", "--dry-run", "--np", "1024", "-v"],
         "ok", check=lambda rc, out, err: "" if note in out and len(out) < 20 << 20 else
         f"no '{note}' line, or {len(out)} bytes listed", seconds=LIMIT_SECONDS)


# A file named on the command line that is no run is refused by every command, naming it; found
# in a folder fleet searches, it is left out with a note.
def named_file_cases():
    d = path("named")
    os.makedirs(d)
    files = {
        "a topology (topo --json)": shutil.copy(
            os.path.join(SRC, "tests/fixtures/runs/h200x2/topo.json"), os.path.join(d, "topo.json")),
        "a site baseline": write(os.path.join(d, "base.json"), '{"baseline": {"entries": []}}'),
        "JSON of another kind": write(os.path.join(d, "other.json"), '{"kind": "something"}'),
        "a JSON array": write(os.path.join(d, "array.json"), "[]"),
    }
    for what, f in files.items():
        n = [os.path.basename(f)]
        case("named", f"fleet {what} and a run", [BIN, "fleet", f, REAL], "refused",
             n + ["not a run"])
        case("named", f"fleet a run and {what}", [BIN, "fleet", REAL, f], "refused",
             n + ["not a run"])
        n += ["not a run"]  # and in the same words in every command
        case("named", f"report {what}", [BIN, "report", f], "refused", n)
        case("named", f"report a run and {what}", [BIN, "report", REAL, f], "refused", n)
        case("named", f"compare {what} with a run", [BIN, "compare", f, REAL], "refused", n)
        case("named", f"compare of 3 with {what}", [BIN, "compare", REAL, REAL2, f], "refused", n)
    folder = path("named-folder")
    os.makedirs(folder)
    shutil.copy(REAL, os.path.join(folder, "node.json"))
    shutil.copy(files["a topology (topo --json)"], os.path.join(folder, "topo.json"))
    case("named", "fleet of a folder with a topology beside the run", [BIN, "fleet", folder],
         "ok", check=lambda rc, out, err: "" if rc == 0 and "not counted" in out else
         f"rc {rc}, want 0 and a note: {out[-300:]!r}")


def flag_first(flag):
    """A refusal whose line starts with the flag that gave what it refuses."""
    return lambda rc, out, err: "" if err.startswith(f"peerbench: error: {flag}:") else \
        f"does not start with '{flag}:': {err.strip()!r}"


# Refusals name their flag first: a missing --plots folder was named by its path alone.
def flag_named_cases():
    missing = path("no-such-plots")
    not_a_folder = write(path("plots-file.png"), PNG, "wb")
    for cmd in ([BIN, "report", REAL], [BIN, "compare", REAL, REAL2, REAL], [BIN, "fleet", REAL]):
        what = "compare of 3" if cmd[1] == "compare" else cmd[1]
        for fmt in ("markdown", "html"):
            case("flags", f"{what} --format {fmt} --plots of a missing folder",
                 cmd + ["--format", fmt, "--plots", missing], "refused", ["no-such-plots"],
                 check=flag_first("--plots"))
            case("flags", f"{what} --format {fmt} --plots of a file",
                 cmd + ["--format", fmt, "--plots", not_a_folder], "refused", ["plots-file.png"],
                 check=flag_first("--plots"))


# Markup in every string a run or the command line brings (file names, host names, process
# names, paths) is escaped in each command's Markdown and HTML: no tag passes through.
def markup_run(src, dst, host):
    d = json.load(open(src))
    d["system"]["hosts"] = [host]
    for r in d["system"]["ranks"]:
        r["host"] = host
    for h in d["topology"]["hosts"]:
        h["host"] = host
    d["tool"]["command_line"] = ["peerbench", "run", "-J", "/tmp/<i>x</i>.json"]
    for r in d["results"]:
        if r.get("status") == "ok" and r.get("src", 0) >= 0:
            r["interference"] = [{
                "rank": 0, "host": host, "gpu_index": 0, "pci_bus_id": "0000:00:00.0",
                "processes": [{"pid": 4242, "name": "<img src=x onerror=alert(2)>",
                               "used_memory_bytes": 1, "sm_util_pct": 1}],
                "util_gpu_pct": 1, "util_mem_pct": 1, "busy_while_idle": False,
                "throttle_reasons": []}]
            break
    return write(dst, json.dumps(d))


def no_raw_tags(fmt):
    parses = forged_output_check(fmt)

    def check(rc, out, err):
        if fmt == "markdown":
            raw = re.findall(r"(?<!\\)<(?:script|b|i|img)\b[^>]{0,30}", out)
            if raw:
                return f"raw tags in Markdown: {sorted(set(raw))[:4]}"
        elif "<script" in out or "<b>" in out or "<img" in out or "<i>" in out:
            return "raw tags in HTML"
        return parses(rc, out, err)
    return check


def markup_cases():
    d = path("markup")
    fleet = os.path.join(d, "fleet")
    os.makedirs(fleet)
    fixtures = os.path.join(SRC, "tests/fixtures/runs/h200x2")
    a = markup_run(os.path.join(fixtures, "default.json"), os.path.join(d, "<script>a.json"),
                   "<b>node</b>")
    b = markup_run(os.path.join(fixtures, "serial.json"), os.path.join(d, "<script>b.json"),
                   "<b>node</b>")
    c = markup_run(os.path.join(fixtures, "rounds.json"), os.path.join(d, "<script>c.json"),
                   "<b>node</b>")
    n2 = markup_run(os.path.join(fixtures, "serial.json"), os.path.join(fleet, "<script>n2.json"),
                    "<b>node2</b>")
    shutil.copy(a, os.path.join(fleet, "<script>n1.json"))
    hosts = write(os.path.join(d, "hosts.txt"), "<b>node</b>\n<b>node2</b>\n<i>gone</i>\n")
    commands = {"report": [BIN, "report", a], "compare": [BIN, "compare", a, b],
                "compare of 3": [BIN, "compare", a, b, c],
                "fleet of a folder, --hosts": [BIN, "fleet", fleet, "--hosts", hosts],
                "fleet of files": [BIN, "fleet", a, n2]}
    for what, argv in commands.items():
        for fmt in ("markdown", "html"):
            case("markup", f"{what} --format {fmt}: markup in file, host and process names",
                 argv + ["--format", fmt], "ok", check=no_raw_tags(fmt))


# ---------------------------------------------------------------------------------------------
# Fleet folders: links that loop, folders too deep, folders that cannot be read.

def one_node(rc, out, err):
    return "" if "of 1 node" in out or "1 node passes" in out else "the real node not counted once"


def nobody_can_run():
    try:
        subprocess.run([BIN, "--version"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       preexec_fn=nobody, check=True, cwd="/", timeout=CASE_SECONDS)
        return True
    except (OSError, subprocess.SubprocessError):
        print("skip: the unreadable-folder case (root, and user nobody cannot run", BIN + ")")
        return False


def fleet_folder_cases():
    for variant in range(24):
        root = path("loops", f"v{variant}")
        inner = os.path.join(root, "a", "b")
        os.makedirs(inner)
        shutil.copy(REAL, os.path.join(inner, "node.json"))
        links = 1 + variant % 6
        for i in range(links):  # links back up the tree, at every level, and across
            os.symlink("..", os.path.join(inner, f"up{i}"))
            os.symlink(".", os.path.join(root, f"self{i}"))
            if variant >= 6:
                os.symlink(root, os.path.join(inner, f"root{i}"))
            if variant >= 12:
                os.symlink(os.path.join(root, "a"), os.path.join(root, f"a{i}"))
            if variant >= 18:
                os.symlink(f"chain{i}b", os.path.join(root, f"chain{i}a"))  # a link loop
                os.symlink(f"chain{i}a", os.path.join(root, f"chain{i}b"))
        case("folders", f"fleet over {links} loop links (variant {variant})", [BIN, "fleet", root],
             "ok", check=one_node)
    for depth in (7, 8, 9, 12, 40):
        root = path("deep", f"d{depth}")
        leaf = os.path.join(root, *[f"l{i}" for i in range(depth)])
        os.makedirs(leaf)
        shutil.copy(REAL, os.path.join(leaf, "node.json"))
        if depth <= 8:
            case("folders", f"fleet finds a file {depth} folders down", [BIN, "fleet", root], "ok",
                 check=one_node)
        else:
            case("folders", f"fleet stops {depth} folders down", [BIN, "fleet", root], "listed",
                 ["deeper than 8"])
    # A folder that cannot be read is listed and the rest is read (as root: run as nobody, when
    # nobody may run the binary where it was built).
    if not ROOT or nobody_can_run():
        root = path("perm")
        os.makedirs(os.path.join(root, "locked"))
        shutil.copy(REAL, os.path.join(root, "node.json"))
        for p in (WORK, root, os.path.join(root, "node.json")):
            os.chmod(p, 0o755 if os.path.isdir(p) else 0o644)
        os.chmod(os.path.join(root, "locked"), 0)
        case("folders", "fleet with an unreadable subfolder", [BIN, "fleet", root], "listed",
             ["locked", "cannot be read"], check=lambda rc, out, err: "" if "vm " in out else
             "the readable node was not read", as_nobody=ROOT)
    # Special files named *.json inside a walked folder are listed, not waited on.
    root = path("walk-specials")
    os.makedirs(root)
    shutil.copy(REAL, os.path.join(root, "node.json"))
    os.mkfifo(os.path.join(root, "fifo.json"))
    os.symlink("/dev/zero", os.path.join(root, "zero.json"))
    os.symlink("nowhere", os.path.join(root, "gone.json"))
    case("folders", "fleet folder with a FIFO, a device and a dangling link named *.json",
         [BIN, "fleet", root], "listed", ["fifo", "zero", "gone"])


# ---------------------------------------------------------------------------------------------
# Real results files, mutated. Each mutation makes values no run writes (refused, naming the
# field) or changes only form (must still report as before).

def ok_results(d):
    return [i for i, r in enumerate(d["results"]) if r["status"] == "ok" and r.get("algbw_gbps")]


def scale(stats, f, keys=("min", "median", "max", "mean")):
    for k in keys:
        if k in stats:
            stats[k] *= f


RESULT_MUTATIONS = {  # name -> (edit of result r, field named)
    "time of 1e-300": (lambda r: r["time_us"].update(min=1e-300), "time_us"),
    "bandwidth of 1e-300": (lambda r: scale(r["algbw_gbps"], 1e-300), "algbw_gbps"),
    "bandwidth 10% above bytes/time": (lambda r: scale(r["algbw_gbps"], 1.1), "algbw_gbps"),
    "time doubled": (lambda r: scale(r["time_us"], 2), "algbw_gbps"),
    "mean above max": (lambda r: r["time_us"].update(mean=r["time_us"]["max"] * 2), "time_us"),
    "mean below min": (lambda r: r["algbw_gbps"].update(mean=r["algbw_gbps"]["min"] / 2),
                       "algbw_gbps"),
    "busbw not algbw x factor": (lambda r: busbw_off(r), "bw_gbps"),
    "method not in methods": (lambda r: r.update(method="no-such-method"), "method"),
    "bytes 0": (lambda r: r.update(bytes=0), "bytes"),
    "bytes 1.5": (lambda r: r.update(bytes=1.5), "bytes"),
    "bytes as text": (lambda r: r.update(bytes="1M"), "bytes"),
    "status unknown": (lambda r: r.update(status="great"), "status"),
    "rank that does not exist": (lambda r: r.update(src=4096, dst=4097), "src"),
    "time as text": (lambda r: r.update(time_us="fast"), "time_us"),
    "negative time": (lambda r: r["time_us"].update(min=-1.0), "time_us"),
}


def doc_mutations(d):
    """name -> (edit of the document, field named); those that apply to `d`."""
    m = {}
    for cc in ("9", "9.x", "x.0", "9.0.1", " 9.0", "+9.0", "9999.0", "", "9.-1"):
        m[f"compute capability {cc!r}"] = (
            lambda d, cc=cc: d["system"]["ranks"][0]["gpu"].update(compute_capability=cc),
            "compute_capability")
    m["compute capability a number"] = (
        lambda d: d["system"]["ranks"][0]["gpu"].update(compute_capability=9.0),
        "compute_capability")
    m["a host no rank has"] = (lambda d: d["system"]["hosts"].append("ghost"), "system.hosts")
    m["a host twice"] = (lambda d: d["system"]["hosts"].append(d["system"]["hosts"][0]),
                         "system.hosts")
    m["a rank's host not listed"] = (
        lambda d: d["system"]["ranks"][-1].update(host="elsewhere"), "system")
    m["a method listed twice"] = (lambda d: d["methods"].append(d["methods"][0]), "methods")
    m["a used method dropped"] = (
        lambda d: d.update(methods=[x for x in d["methods"]
                                    if x["name"] != d["results"][0]["method"]]), "method")
    m["schema_version 99"] = (lambda d: d.update(schema_version=99), "schema_version")
    m["no results key"] = (lambda d: d.pop("results"), "results")
    m["results an object"] = (lambda d: d.update(results={}), "results")
    m["pairs of text"] = (lambda d: d.update(pairs=["x"]), "pairs")
    m["a verdict of a number"] = (lambda d: d.update(verdicts=[7]), "verdicts")
    return m


TEXT_MUTATIONS = {  # name -> (edit of the file's text, string named)
    "duplicate key": (lambda t: t.replace("{", '{"kind": "peerbench-run", ', 1), "duplicate"),
    "truncated at 10%": (lambda t: t[:len(t) // 10], "not valid JSON"),
    "truncated at 99%": (lambda t: t[:len(t) * 99 // 100], "not valid JSON"),
    "nested 100 deep": (lambda t: t.replace("{", '{"deep": ' + "[" * 100 + "]" * 100 + ", ", 1),
                        "nested deeper"),
    "a number beyond double": (lambda t: t.replace('"schema_version": ', '"schema_version": 1e999',
                                                   1).replace("1e9991", "1e999", 1),
                               "not valid JSON"),
    "NUL byte inside": (lambda t: t[:100] + "\0" + t[100:], "not valid JSON"),
    "empty": (lambda t: "", "empty file"),
    "white space only": (lambda t: " \n\t\r\n" * 100, "empty file"),
}

FORM_MUTATIONS = {  # name -> edit that keeps the content: the report must not change
    "compact": lambda t: json.dumps(json.loads(t), separators=(",", ":")),
    "keys reversed": lambda t: json.dumps(
        json.loads(t, object_pairs_hook=lambda kv: dict(reversed(kv))), indent=2),
    "byte-order mark": lambda t: "\ufeff" + t,
    "CRLF line ends": lambda t: t.replace("\n", "\r\n"),
}


def busbw_off(r):
    """busbw that is not algbw x the method's factor: scaled, or (one rank's 0) set to algbw."""
    bus = r.get("busbw_gbps")
    if bus and any(bus.get(k) for k in ("min", "median", "max")):
        scale(bus, 1.5)
    elif bus:
        r["busbw_gbps"] = copy.deepcopy(r["algbw_gbps"])
    else:
        scale(r["algbw_gbps"], 1.5)


def mutation_cases():
    commands = ("report", "compare", "fleet")
    k = 0
    for src in RUNS:
        text = open(src).read()
        base = json.loads(text)
        tag = os.path.relpath(src, SRC).replace("/", "_")[:-5]
        oks = ok_results(base)
        picks = sorted({oks[0], oks[len(oks) // 2], oks[-1]}) if oks else []
        edits = []
        for name, (fn, field) in RESULT_MUTATIONS.items():
            for i in picks:
                edits.append((f"{name} in results[{i}]", lambda d, fn=fn, i=i: fn(d["results"][i]),
                              field))
        for name, (fn, field) in doc_mutations(base).items():
            edits.append((name, fn, field))
        for name, fn, field in edits:
            d = copy.deepcopy(base)
            fn(d)
            out = write(path("mut", f"{tag}-{k}.json"), json.dumps(d, indent=1))
            add_mutated(commands[k % 3], f"{tag}: {name}", out, field, src)
            k += 1
        for name, (fn, named) in TEXT_MUTATIONS.items():
            out = write(path("mut", f"{tag}-{k}.json"), fn(text))
            add_mutated(commands[k % 3], f"{tag}: {name}", out, named, src)
            k += 1
        ref_rc, ref_out, _ = execute([BIN, "report", src])
        ref_out = strip_path(ref_out.decode())
        for name, fn in FORM_MUTATIONS.items():
            out = write(path("mut", f"{tag}-{k}.json"), fn(text))
            case("mutated", f"{tag}: {name} reports as before", [BIN, "report", out], "ok",
                 check=lambda rc, o, e, want=(ref_rc, ref_out): ""
                 if (rc, strip_path(o)) == want else "the report changed")
            k += 1


def strip_path(report):
    """A report without the lines that name its file."""
    return "\n".join(line for line in report.splitlines() if ".json" not in line)


def add_mutated(cmd, what, file, field, original):
    """`compare` sets the file beside its own original: a run of another node shape (one rank)
    is refused against a two-GPU run before its fields are read."""
    if cmd == "report":
        case("mutated", "report, " + what, [BIN, "report", file], "refused",
             [os.path.basename(file), field])
    elif cmd == "compare":
        case("mutated", "compare, " + what, [BIN, "compare", original, file], "refused",
             [os.path.basename(file), field])
    else:
        case("mutated", "fleet, " + what, [BIN, "fleet", REAL, file], "listed",
             [os.path.basename(file)[:-5], field])


# ---------------------------------------------------------------------------------------------
# --expect: every key with good and bad values, in run, report and fleet alike.

EXPECT_VALUES = [0, 1, 0.5, 2, 2.5, -0.1, 1e-300, 1e300, "x", "0", "256M", "0x10", None, [], {},
                 True, 1.5]
FRACTIONS = {"fraction_of_link": 2, "allreduce_fraction_of_link": 2, "asymmetry_tolerance": 1,
             "off_nvlink_fraction": 1, "fleet_outlier_tolerance": 1}


def expect_accepts(key, v):
    """Whether `{key: v}` is a valid --expect file (README, "A site's own bars")."""
    number = isinstance(v, (int, float)) and not isinstance(v, bool)
    if key in FRACTIONS:
        if v is None:
            return key != "fleet_outlier_tolerance"  # null is absent, but fleet's key is read
        return number and 0 <= v <= FRACTIONS[key]
    if key in ("judge_min_bytes", "small_message_max_bytes"):
        # The sizes judged as times (up to small_message_max_bytes, 64K by default) must stay
        # below those judged as bandwidth (from judge_min_bytes, 256M by default).
        if v is None:
            return True
        size = {"256M": 256 << 20}.get(v) if isinstance(v, str) else (
            v if number and v >= 1 and float(v).is_integer() and v <= 1 << 50 else None)
        if size is None:
            return False
        return size > 64 << 10 if key == "judge_min_bytes" else size < 256 << 20
    if key == "min_gbps":  # per method; a bar of 0 would pass everything in place of the others
        return v is None or (number and 0 < v <= 1e6) or v == {}
    if key in ("max_latency_us", "latency_us", "small_message_us"):
        return v is None or (number and 0 < v <= 1e9) or v == {}
    if key == "comment":
        return True
    return False


def expect_cases():
    wrap = {"min_gbps": lambda v: {"ce-write": v}, "max_latency_us": lambda v: {"ce-latency": v},
            "latency_us": lambda v: {"nvlink": v}, "small_message_us": lambda v: {"pcie": v}}
    keys = list(FRACTIONS) + ["judge_min_bytes", "small_message_max_bytes", "comment"] + list(wrap)
    n = 0
    for key in keys:
        for v in EXPECT_VALUES:
            value = wrap[key](v) if key in wrap and not isinstance(v, (dict, type(None))) else v
            f = write(path("expect", f"e{n}.json"), json.dumps({key: value}))
            n += 1
            accepts = expect_accepts(key, v)
            for argv in ([BIN, "run", "--dry-run", "--np", "2", "--expect", f],
                         [BIN, "report", REAL, "--expect", f],
                         [BIN, "fleet", REAL, "--expect", f]):
                case("expect", f"{argv[1]} --expect {{{key}: {json.dumps(value)}}}", argv,
                     "ok" if accepts else "refused", [] if accepts else [os.path.basename(f), key])
    for name, text, named in (
            ("unknown key", '{"fraction_of_lnk": 0.5}', "fraction_of_lnk"),
            ("unknown method", '{"min_gbps": {"ce-wirte": 1}}', "ce-wirte"),
            ("unknown link kind", '{"latency_us": {"nvlnk": 1}}', "nvlnk"),
            ("not an object", "[1]", "object"), ("empty", "", "empty"),
            ("nested 20 deep", '{"comment": ' + "[" * 20 + "]" * 20 + "}", "nested"),
            ("duplicate key", '{"comment": 1, "comment": 2}', "duplicate"),
            ("NUL", '{"comment": "\0"}', "not valid JSON")):
        f = write(path("expect", f"e{n}.json"), text)
        n += 1
        for argv in ([BIN, "run", "--dry-run", "--np", "2", "--expect", f],
                     [BIN, "report", REAL, "--expect", f], [BIN, "fleet", REAL, "--expect", f]):
            case("expect", f"{argv[1]} --expect with {name}", argv, "refused", [named])


# ---------------------------------------------------------------------------------------------
# Option values: numbers only in plain decimal and within their range, no empty values, a
# switch given a value named, "-o=x" not taken as a file "=x". Every command alike.

BAD_NUMBERS = ["0x1p-3", "0x10", "inf", "nan", "-1", "", " 5", "5 ", "1e400", "1,5", "five",
               "+-1", "1e", ".", "\x1b[2J"]


def option_cases():
    dry = [BIN, "run", "--dry-run", "--np", "2"]
    numeric = [(dry, "-T", "-T/--timeout"), (dry, "--timeout", "-T/--timeout"),
               (dry, "--wait-idle", "--wait-idle"), (dry, "--duration", "--duration"),
               (dry, "-n", "-n/--iters"), (dry, "-w", "-w/--warmup_iters"),
               (dry, "-s", "-s/--samples"), (dry, "-G", "-G/--cudagraph"),
               (dry, "-b", "-b/--minbytes"), (dry, "-e", "-e/--maxbytes"),
               (dry, "-f", "-f/--stepfactor"), (dry, "--latency-bytes", "--latency-bytes"),
               (dry, "--latency-iters", "--latency-iters"), (dry, "--confirm", "--confirm"),
               (dry, "-r", "-r/--root"), (dry, "-N", "-N/--run_cycles"), (dry, "--np", "--np"),
               (dry, "--staged-slots", "--staged-slots"), (dry, "-a", "-a/--average"),
               (dry, "-z", "-z/--blocking"), (dry, "-R", "-R/--local_register"),
               ([BIN, "compare", REAL, REAL2], "--threshold", "--threshold")]
    for base, flag, named in numeric:
        for v in BAD_NUMBERS:
            case("options", f"{base[1]} {flag} {v!r}", base + [flag, v], "refused",
                 [named.split("/")[-1]])
    for base, flag, v in ((dry, "--timeout", "0.5"), (dry, "--timeout", "5."),
                          (dry, "--timeout", "1e1"), (dry, "--duration", "1.5m"),
                          (dry, "--wait-idle", "30"),
                          ([BIN, "compare", REAL, REAL2], "--threshold", "2.5")):
        case("options", f"{base[1]} {flag} {v} (plain decimal)", base + [flag, v], "ok")
    paths = [(dry, "-J"), (dry, "--expect"), ([BIN, "report", REAL], "-o"),
             ([BIN, "report", REAL], "--expect"), ([BIN, "report", REAL], "--plots"),
             ([BIN, "compare", REAL, REAL2], "-o"), ([BIN, "fleet", REAL], "-o"),
             ([BIN, "fleet", REAL], "--hosts"), ([BIN, "fleet", REAL], "--expect"),
             ([BIN, "fleet", REAL], "--write-baseline"), ([BIN, "topo"], "--json")]
    for base, flag in paths:
        named = flag.lstrip("-")
        case("options", f"{base[1]} {flag} ''", base + [flag, ""], "refused", [named])
        if flag.startswith("--"):
            case("options", f"{base[1]} {flag}=", base + [flag + "="], "refused", [named])
        else:
            case("options", f"{base[1]} {flag}=out", base + [flag + "=out"], "refused",
                 [named, "="], check=lambda rc, o, e: "" if not os.path.exists(path("=out"))
                 else "wrote a file named '=out'")
    # --plots where the format or command shows none: refused, not dropped.
    for base in ([BIN, "report", REAL], [BIN, "compare", REAL, REAL2],
                 [BIN, "fleet", REAL, "--format", "csv"]):
        case("options", f"{base[1]} --plots where nothing shows plots",
             base + ["--plots", path()], "refused", ["--plots", "markdown"]
             if base[1] != "compare" else ["--plots", "three or more runs"])
    for base, switch in ((dry, "--inplace"), (dry, "--allow-busy"), (dry, "--require-idle"),
                         (dry, "--allow-gpu-sharing"), (dry, "--dry-run")):
        for v in ("yes", "\x07x"):
            case("options", f"{base[1]} {switch}={v!r}", base + [f"{switch}={v}"], "refused",
                 [switch])


# ---------------------------------------------------------------------------------------------
# --hosts: the real run is host "vm".

def fleet_counts(want):
    return lambda rc, out, err: "" if want in out else f"want '{want}' in: {out[:200]!r}"


def hosts_cases():
    good = {
        "plain": (b"vm\n", "1 node passes"),
        "byte-order mark": (b"\xef\xbb\xbfvm\n", "1 node passes"),
        "CRLF": (b"vm\r\n", "1 node passes"),
        "no final newline": (b"vm", "1 node passes"),
        "comments and blanks": (b"# rack 7\n\n  vm   # the one\n\n", "1 node passes"),
        "twice": (b"vm\nvm\n", "1 node passes"),
        "one missing": (b"vm\nvm2\n", "1 missing"),
        "invalid UTF-8 name": (b"vm\n\xff\xfe\n", "1 missing"),
        "a thousand": (b"vm\n" + b"".join(b"n%04d\n" % i for i in range(999)), "999 missing"),
        "255-byte name": (b"vm\n" + b"h" * 255 + b"\n", "1 missing"),
    }
    for name, (data, want) in good.items():
        f = write(path("hosts", name.replace(" ", "_")), data, "wb")
        case("hosts", f"--hosts {name}", [BIN, "fleet", REAL, "--hosts", f], "ok",
             check=fleet_counts(want))
    bad = {
        "empty": (b"", "names no host"),
        "only comments": (b"# nothing\n  # here\n", "names no host"),
        "white space only": (b" \n\t\n\r\n", "names no host"),
        "256-byte name": (b"h" * 256 + b"\n", "line 1"),
        "ESC in a name": (b"vm\nnode\x1b[2J\n", "line 2"),
        "NUL in a name": (b"no\0de\n", "line 1"),
        "tab inside a name": (b"v\tm\n", "line 1"),
        "one 2 MB line": (b"x" * (2 << 20), "line 1"),
    }
    for name, (data, named) in bad.items():
        f = write(path("hosts", name.replace(" ", "_")), data, "wb")
        case("hosts", f"--hosts {name}", [BIN, "fleet", REAL, "--hosts", f], "refused",
             [os.path.basename(f), named])


# ---------------------------------------------------------------------------------------------
# Outputs that are inputs: refused, the input untouched. Long legal names work.

def digest(p):
    return hashlib.sha256(open(p, "rb").read()).hexdigest() if os.path.isfile(p) else None


def unchanged(p):
    before = digest(p)
    return lambda rc, out, err: "" if digest(p) == before else f"{p} was changed"


def output_cases():
    d = path("out")
    os.makedirs(d)
    a = shutil.copy(REAL, os.path.join(d, "a.json"))
    b = shutil.copy(REAL2, os.path.join(d, "b.json"))
    e = write(os.path.join(d, "e.json"), '{"fraction_of_link": 0.5}')
    h = write(os.path.join(d, "hosts.txt"), "vm\n")
    plots = os.path.join(d, "plots")
    os.makedirs(plots)
    png = write(os.path.join(plots, "p.png"), PNG, "wb")
    os.symlink(a, os.path.join(d, "link.json"))
    os.link(a, os.path.join(d, "hard.json"))
    fleet_dir = os.path.join(d, "fleet")
    os.makedirs(fleet_dir)
    inside = shutil.copy(REAL, os.path.join(fleet_dir, "n1.json"))
    spellings = {"same": a, "dot-slash": os.path.join(d, ".", "a.json"),
                 "dot-dot": os.path.join(d, "..", "out", "a.json"),
                 "symlink": os.path.join(d, "link.json"), "hard link": os.path.join(d, "hard.json")}
    for fmt in ("text", "markdown", "html", "csv"):
        for how, o in spellings.items():
            case("output", f"report --format {fmt} -o input ({how})",
                 [BIN, "report", a, "--format", fmt, "-o", o], "refused", ["-o", "input"],
                 check=unchanged(a))
        case("output", f"report --format {fmt} -o the --expect file",
             [BIN, "report", a, "--expect", e, "--format", fmt, "-o", e], "refused", ["e.json"],
             check=unchanged(e))
    for fmt in ("html", "markdown"):
        case("output", f"report --format {fmt} -o a PNG of --plots",
             [BIN, "report", a, "--format", fmt, "--plots", plots, "-o", png], "refused",
             ["p.png"], check=unchanged(png))
        case("output", f"compare of 3 --format {fmt} -o a PNG of --plots",
             [BIN, "compare", a, b, a, "--format", fmt, "--plots", plots, "-o", png], "refused",
             ["p.png"], check=unchanged(png))
    for how, o in spellings.items():
        case("output", f"compare -o the baseline ({how})", [BIN, "compare", a, b, "-o", o],
             "refused", ["input"], check=unchanged(a))
        case("output", f"compare of 3 -o the first ({how})", [BIN, "compare", a, b, b, "-o", o],
             "refused", ["input"], check=unchanged(a))
    case("output", "compare -o the candidate", [BIN, "compare", a, b, "-o", b], "refused",
         ["b.json"], check=unchanged(b))
    for fmt in ("text", "markdown", "html", "csv", "junit", "openmetrics"):
        case("output", f"fleet --format {fmt} -o a file of its folder",
             [BIN, "fleet", fleet_dir, "--format", fmt, "-o", inside], "refused", ["n1.json"],
             check=unchanged(inside))
        case("output", f"fleet --format {fmt} -o the --hosts file",
             [BIN, "fleet", a, "--hosts", h, "--format", fmt, "-o", h], "refused", ["hosts.txt"],
             check=unchanged(h))
        case("output", f"fleet --format {fmt} -o the --expect file",
             [BIN, "fleet", a, "--expect", e, "--format", fmt, "-o", e], "refused", ["e.json"],
             check=unchanged(e))
        case("output", f"fleet --format {fmt} -o a linked input",
             [BIN, "fleet", a, "--format", fmt, "-o", os.path.join(d, "hard.json")], "refused",
             ["input"], check=unchanged(a))
    for n in (200, 240, 246, 247, 248, 250, 253, 255):
        longd = path("long", str(n))
        os.makedirs(longd)
        o = os.path.join(longd, "r" * (n - 3) + ".md")
        case("output", f"report -o a name of {n} bytes",
             [BIN, "report", REAL, "--format", "markdown", "-o", o], "ok",
             check=lambda rc, out, err, o=o, d=longd: "" if os.listdir(d) == [os.path.basename(o)]
             else f"want only the output in its folder, found {len(os.listdir(d))} files")
    case("output", "report -o a name of 256 bytes", [BIN, "report", REAL, "-o",
                                                     path("long", "r" * 256)], "refused",
         ["cannot write"])


# ---------------------------------------------------------------------------------------------
# Bombs: small in CI (bounds checked), full size with --measure (figures printed).

def results_bomb(p, mb, kind):
    d = json.load(open(REAL))
    d["results"] = []
    if kind == "config":
        d["config"]["x"] = []
    head = json.dumps(d, separators=(",", ":"))
    target = mb * 1000000
    with open(p, "w") as f:
        if kind == "tiny-results":
            one = '{"method":"ce-write","src":0,"dst":1,"bytes":1,"status":"skipped"}'
            pre, post = head.split('"results":[]')
            f.write(pre + '"results":[' + ",".join([one] * (target // (len(one) + 1))) + "]" +
                    post)
        elif kind == "ok-results":  # results a run could write: accepted, and linear in size
            pre, post = head.split('"results":[]')
            one = ('{"method":"ce-write","src":0,"dst":1,"bytes":%d,"status":"ok","attempt":%d,'
                   '"time_us":{"min":1,"median":1,"max":1},'
                   '"algbw_gbps":{"min":%s,"median":%s,"max":%s}}')
            parts = []
            size = 0
            while size < target:
                b = 1000 * (1 + len(parts) % 997)
                g = repr(b / 1e3)
                parts.append(one % (b, len(parts) // 997, g, g, g))  # each case once
                size += len(parts[-1]) + 1
            f.write(pre + '"results":[' + ",".join(parts) + "]" + post)
        elif kind == "real-results":  # the real run's results again and again, as written
            pre, post = json.dumps(d, indent=1).split('"results": []')
            real = json.load(open(REAL))["results"]
            f.write(pre + '"results": [')
            size, i = 0, 0
            while size < target:
                # Each copy another planned size (as collectives' sizes that round down to one
                # do): a case recorded twice is refused.
                r = dict(real[i % len(real)], round=i // len(real))
                if i >= len(real):
                    r["requested_bytes"] = r["bytes"] + i // len(real)
                text = ("," if i else "") + json.dumps(r, indent=1)
                f.write(text)
                size += len(text)
                i += 1
            f.write("]" + post)
        else:  # the budget's other side: tiny objects where nothing is streamed
            pre, post = head.split('"x":[]')
            f.write(pre + '"x":[' + ",".join(["{}"] * (target // 3)) + "]" + post)
    return p


def measure(argv):
    """(rc, peak RSS KiB, seconds, stderr) of one run: wait4 gives this child's own peak. A run
    past 120 s is killed (and fails its time bound)."""
    t0 = time.monotonic()
    with tempfile.TemporaryFile() as err:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=err, cwd=WORK, preexec_fn=limits)
        killer = threading.Timer(120, p.kill)
        killer.start()
        _, status, usage = os.wait4(p.pid, 0)
        killer.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read().decode("utf-8", "replace")
    return p.returncode, usage.ru_maxrss, time.monotonic() - t0, text


def bomb_figures():
    """Peak memory and time of each bomb class; checks each against its bound."""
    mb = 200 if MEASURE else 8
    rows, fails = [], []
    hosts = path("bombs", "hosts.txt")
    os.makedirs(path("bombs"), exist_ok=True)
    names = 100000 if MEASURE else 20000  # 100,000: the most a --hosts file may name
    with open(hosts, "w") as f:
        f.writelines(f"node{i:07d}\n" for i in range(names))
    one_line = write(path("bombs", "one-line-hosts.txt"), "x" * ((60 if MEASURE else 2) << 20))
    # (what, argv, memory bound in bytes): results files under 10x their size, a --hosts list
    # under 2 KB a name (the fleet lists each missing node), each past what a small input costs
    # (the binary and its libraries: 160 MB).
    small = 160 << 20
    jobs = []
    for kind in ("real-results", "tiny-results", "ok-results", "config"):
        p = results_bomb(path("bombs", f"{kind}.json"), mb, kind)
        size = os.path.getsize(p)
        for cmd in ("report", "fleet"):
            jobs.append((f"{cmd} {kind} {size / 1e6:.0f} MB", [BIN, cmd, p], 10 * size + small))
    jobs.append((f"fleet --hosts of {names} names", [BIN, "fleet", REAL, "--hosts", hosts],
                 2048 * names + small))
    jobs.append((f"fleet --hosts of one {os.path.getsize(one_line) >> 20} MiB line",
                 [BIN, "fleet", REAL, "--hosts", one_line], small))
    jobs.append(("fleet --hosts /dev/zero", [BIN, "fleet", REAL, "--hosts", "/dev/zero"], small))
    zero_plots = path("bombs", "plots")
    os.makedirs(zero_plots)
    os.symlink("/dev/zero", os.path.join(zero_plots, "zero.png"))
    jobs.append(("report --plots with a PNG linked to /dev/zero",
                 [BIN, "report", REAL, "--format", "html", "--plots", zero_plots], small))
    for what, argv, bound in jobs:
        rc, rss, secs, err = measure(argv)
        rows.append(f"  {what:48s} rc {rc}  {rss / 1024:7.0f} MB  {secs:6.2f} s  "
                    f"{err.strip()[:90]}")
        accepted = "real-results" not in what or rc in (0, 1)  # a run's own results still read
        if rss * 1024 > bound or secs > (60 if MEASURE else 15) or rc not in (0, 1, 2) or \
                not accepted:
            fails.append(f"{what}: {rss / 1024:.0f} MB (bound {bound >> 20} MB), {secs:.1f} s, "
                         f"rc {rc}")
    return rows, fails


# ---------------------------------------------------------------------------------------------
# Forged output: hostile strings in the fields a run carries, through every command and format.
# Each output must carry no raw control byte, start no forged line, and parse as its format.

FORGE = {
    "ESC and OSC": "x\x1b[2J\x1b]0;owned\x07y",
    "line break": "x\nVerdict: all 99 pass\ny",
    "carriage return": "x\rVerdict: all 99 pass",
    "markup": "<script>alert(1)</script>|`*_[x](javascript:y)\\|&amp;\"'",
    "formula": "=HYPERLINK(\"http://x\")",
    "NUL and invalid UTF-8": b"x\x00\xff\xfey",
}


def forged_run(field, payload, name):
    d = json.load(open(REAL))
    mark = "PB-FORGE-PAYLOAD"
    if field == "gpu name":
        for r in d["system"]["ranks"]:
            r["gpu"]["name"] = mark
    elif field == "driver version":
        d["system"]["driver_version"] = mark
    elif field == "NCCL version":
        d["system"]["nccl_version"] = mark
    elif field == "MPI library":
        d["system"]["mpi_library_version"] = mark
    text = json.dumps(d).encode()
    raw = payload if isinstance(payload, bytes) else json.dumps(payload)[1:-1].encode()
    return write(path("forge", name), text.replace(mark.encode(), raw), "wb")


def markdown_tables_hold(out):
    """Every Markdown table row has as many unescaped cell bars as its table's head."""
    bars = lambda line: len(re.findall(r"(?<!\\)\|", line.replace("\\\\", "")))
    want = None
    for line in out.splitlines() + [""]:
        if not line.startswith("|"):
            want = None
            continue
        if want is None:
            want = bars(line)
        elif bars(line) != want:
            return f"a table row with {bars(line)} bars under a head of {want}: {line[:120]!r}"
    return ""


SKIP = "skip: "  # a check's answer that is neither a pass nor a finding


class ParserMissing(Exception):
    """A parser that scripts/setup.sh --test installs is not here (the GPU machine has none)."""


def import_parser(module):
    import importlib
    try:
        return importlib.import_module(module)
    except ImportError:
        if os.environ.get("PEERBENCH_REQUIRE_TOOLS"):
            raise  # CI: a missing install step is a failure, not a skip
        raise ParserMissing(module)


def parses_as(fmt, out):
    if fmt == "html":
        html5lib = import_parser("html5lib")
        parser = html5lib.HTMLParser(strict=False)
        parser.parse(out)
        if parser.errors:
            return f"html5lib: {parser.errors[:2]}"
        if "<script" in out.lower():
            return "a <script> element"
    elif fmt == "markdown":
        if re.search(r"(?<!\\)<script", out, re.I):  # \<script\> is text in Markdown
            return "raw <script> in Markdown"
        return markdown_tables_hold(out)
    elif fmt == "csv":
        rows = list(csv.reader(io.StringIO(out), strict=True))
        if any(len(r) != len(rows[0]) for r in rows if r):
            return "CSV rows of different lengths"
        for r in rows[1:]:
            for cell in r:
                if cell[:1] in ("=", "+", "-", "@"):
                    try:
                        float(cell)
                    except ValueError:
                        return f"a formula cell {cell[:40]!r}"
    elif fmt == "junit":
        import xml.etree.ElementTree as ET
        ET.fromstring(out.encode())
    elif fmt == "openmetrics":
        parser = import_parser("prometheus_client.openmetrics.parser")
        list(parser.text_string_to_metric_families(out))
    return ""


def forged_output_check(fmt):
    def check(rc, out, err):
        if rc == 2:  # refused: one clean line (checked below) is an answer too
            out = ""
        for stream, name in ((out, "output"), (err, "stderr")):
            raw = [c for c in "\x1b\x07\x00\r\x08" if c in stream]
            if raw:
                return f"raw control bytes {raw!r} in its {name}"
        if fmt in ("text", "markdown") and re.search(r"^\s*\**Verdict: all 99", out, re.M):
            return "a forged 'Verdict:' line"
        if rc == 2:
            lines = err.splitlines()
            return "" if len(lines) == 1 and lines[0].startswith("peerbench: error: ") else \
                f"refused without one error line: {err[:200]!r}"
        try:
            return parses_as(fmt, out)
        except ParserMissing as e:
            return SKIP + f"{e} is not installed (scripts/setup.sh --test installs it)"
        except Exception as e:  # a parser's complaint is the finding
            return f"does not parse as {fmt}: {e}"
    return check


def forgery_cases():
    fields = ("gpu name", "driver version", "NCCL version", "MPI library")
    for field in fields:
        for what, payload in FORGE.items():
            tag = f"{field}-{what}".replace(" ", "_")
            bad = forged_run(field, payload, f"{tag}.json")
            folder = os.path.dirname(write(path("forge-fleet", tag, "good.json"), open(REAL).read()))
            shutil.copy(bad, os.path.join(folder, "bad.json"))
            for fmt in ("text", "markdown", "html", "csv"):
                for cmd, argv in (("report", [BIN, "report", bad]),
                                  ("compare A B", [BIN, "compare", REAL, bad]),
                                  ("compare of 3", [BIN, "compare", REAL, REAL2, bad])):
                    case("forgery", f"{cmd} --format {fmt}, {field}: {what}",
                         argv + ["--format", fmt], "any", check=forged_output_check(fmt))
            for fmt in ("text", "markdown", "html", "csv", "junit", "openmetrics"):
                case("forgery", f"fleet --format {fmt}, {field}: {what}",
                     [BIN, "fleet", folder, "--format", fmt], "any",
                     check=forged_output_check(fmt))


def main():
    t0 = time.monotonic()
    special_file_cases()
    oversized_cases()
    limit_cases()
    named_file_cases()
    flag_named_cases()
    markup_cases()
    fleet_folder_cases()
    mutation_cases()
    expect_cases()
    option_cases()
    hosts_cases()
    output_cases()
    forgery_cases()
    failures = {}
    skipped = {}  # class -> the reasons its parser checks did not run
    counts = {}
    # Cases that write are independent (each has its own files); two at a time, as CI has 2 cores.
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for c, why in zip(CASES, pool.map(verdict, CASES)):
            counts[c.cls] = counts.get(c.cls, 0) + 1
            if why and why.startswith(SKIP):
                skipped.setdefault(c.cls, set()).add(why[len(SKIP):])
            elif why:
                failures.setdefault(c.cls, []).append(f"{c.what}: {why}")
    rows, bomb_fails = bomb_figures()
    total = len(CASES) + len(rows)
    for cls in counts:
        print(f"{cls:10s} {counts[cls]:5d} cases, {len(failures.get(cls, []))} failed")
        for why in sorted(skipped.get(cls, [])):
            print(f"  PEERBENCH_SKIP: parser check left out where {why}")
        for f in failures.get(cls, [])[:15]:
            print("  FAIL:", f.replace("\n", "\\n"))
    print(f"bombs      {len(rows):5d} cases, {len(bomb_fails)} over their bounds"
          f" (peak RSS and time of each):")
    print("\n".join(rows))
    for f in bomb_fails:
        print("  FAIL:", f)
    bad = sum(len(v) for v in failures.values()) + len(bomb_fails)
    print(f"hostile inputs: {total} cases, {bad} failed, {time.monotonic() - t0:.0f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        _socket.close()
        for dirpath, dirnames, _ in os.walk(WORK):
            for n in dirnames:
                try:
                    os.chmod(os.path.join(dirpath, n), 0o755)
                except OSError:
                    pass
        shutil.rmtree(WORK, ignore_errors=True)
