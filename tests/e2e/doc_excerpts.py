#!/usr/bin/env python3
"""The output excerpts the docs show are what the binary prints (an audit found the README's
nccl-shm example two rule changes out of date: 2 flagged where report said 3, exit 1 unmentioned).

Every ```text block of README.md, the user guide (docs/*.md) and results/examples/README.md holds
commands ("$ build/peerbench ..."), each followed by lines of its output. Each command is run in the source tree with the
binary under test; each excerpt line must be a line of its output, in order. "..." alone stands
for lines left out; "..." inside a line for words left out of it.

  doc_excerpts.py BINARY SOURCE_DIR
"""
import glob
import os
import re
import subprocess
import sys

# The user guide's pages are found, not listed: a page that gains an excerpt is checked at once.
FIXED_DOCS = ["README.md", "results/examples/README.md"]


def docs(src):
    guide = sorted(os.path.relpath(p, src) for p in glob.glob(f"{src}/docs/*.md"))
    return FIXED_DOCS + guide


def excerpts(text):
    """(command, [expected lines]) of every ```text block."""
    out = []
    for block in re.findall(r"```text\n(.*?)```", text, re.S):
        cmd = None
        for line in block.splitlines():
            if line.startswith("$ build/peerbench"):
                cmd = [line[2:], []]
                out.append(cmd)
            elif cmd is not None:
                cmd[1].append(line)
    return out


def pattern(line):
    """An excerpt line as a regular expression: "..." inside it matches any words."""
    parts = [re.escape(p) for p in line.split("...")]
    return re.compile("^" + ".*".join(parts) + "$")


def check(binary, src, command, expected):
    # The command as a reader types it; its own "# ..." comment is the shell's.
    shell = command.replace("build/peerbench", binary, 1)
    run = subprocess.run(["bash", "-c", shell], cwd=src, capture_output=True, text=True,
                         timeout=120)
    got = run.stdout.splitlines()
    at = 0
    for line in expected:
        if line.strip() in ("...", ""):
            continue
        want = pattern(line)
        while at < len(got) and not want.match(got[at]):
            at += 1
        if at == len(got):
            return "line not in its output (or out of order): " + line[:160]
        at += 1
    return ""


def main():
    if len(sys.argv) != 3:
        print("usage: doc_excerpts.py BINARY SOURCE_DIR", file=sys.stderr)
        return 2
    binary, src = sys.argv[1], sys.argv[2]
    failures = 0
    count = 0
    pages = docs(src)
    for doc in pages:
        with open(f"{src}/{doc}", encoding="utf-8") as f:
            text = f.read()
        for command, expected in excerpts(text):
            count += 1
            why = check(binary, src, command, expected)
            if why:
                failures += 1
                print(f"FAIL: {doc}: {command}: {why}")
            else:
                print(f"ok: {doc}: {command}")
    if count < 4:
        print(f"FAIL: found only {count} commands in {', '.join(pages)}")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
