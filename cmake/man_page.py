#!/usr/bin/env python3
"""peerbench(1) in roff, from the binary's own help: `peerbench --help`, `peerbench COMMAND --help`
for every command the first lists, and `peerbench --list-methods`. Run at build time, so the
page always says what the binary says.

    man_page.py BINARY OUTPUT.1 VERSION
"""
import re
import subprocess
import sys

# An option line of cxxopts' help: "  -b, --minbytes arg    what it is", the text after two spaces.
OPTION = re.compile(r"^ {1,8}((?:-\w, )?--[\w-]+(?: \w+)?)(?: {2,}(.*))?$")
# A heading of a help text: cxxopts' "Output options:", or run's own groups ("What to measure:",
# "Launch:") and its "Examples:" footer. Each becomes a sub-section of the page.
GROUP = re.compile(r"^ ?([A-Z][\w' -]*?)(?: options)?:$")
EXAMPLE_COMMAND = re.compile(r"^ {2}(\S.*)$")  # under "Examples:": the command, then its words
ARGUMENT = re.compile(r"^ {2}([A-Z][A-Z.]*) {2,}(.*)$")  # help's "  COMMAND  what it names"
LISTED = re.compile(r"^  (\S+) {2,}(.*)$")  # --list-methods: "  name   what it does"


def helptext(binary, *args):
    done = subprocess.run([binary, *args], capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        sys.exit(f"man_page.py: {binary} {' '.join(args)} exited {done.returncode}: {done.stderr}")
    return done.stdout


def esc(text):
    """Plain text as roff: backslashes escaped, hyphens as minus signs (they are options)."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + text if text.startswith((".", "'")) else text


def option_heading(spec):
    """'-b, --minbytes arg' -> bold flags, italic argument."""
    flags, _, arg = spec.partition(" arg")
    bold = ", ".join(f"\\fB{esc(f)}\\fR" for f in flags.split(", "))
    return bold + (" \\fIarg\\fR" if _ else "")


def options(lines, command):
    """The option lines of one help text as .TP entries under a sub-section per group; other
    lines as paragraphs. Returns (roff lines, examples): an "Examples:" group is not rendered
    here but returned as (command line, what it does) for the page's EXAMPLES section."""
    out = []
    found = []
    desc_col = None
    in_examples = False
    for line in lines:
        m = OPTION.match(line)
        g = GROUP.match(line)
        if g:
            in_examples = g.group(1) == "Examples"
            if not in_examples:
                out.append(f'.SS "peerbench {esc(command)}: {esc(g.group(1).lower())}"')
            desc_col = None
        elif in_examples:
            e = EXAMPLE_COMMAND.match(line)
            if e:
                found.append([e.group(1).strip(), ""])
            elif line.strip() and found:
                found[-1][1] = (found[-1][1] + " " + line.strip()).strip()
        elif m:
            out += [".TP", option_heading(m.group(1)), esc(m.group(2) or "")]
            desc_col = line.find(m.group(2)) if m.group(2) else None
        elif a := ARGUMENT.match(line):
            out += [".TP", f"\\fI{esc(a.group(1))}\\fR", esc(a.group(2))]
            desc_col = line.find(a.group(2))
        elif desc_col and line[:desc_col].strip() == "" and line.strip():
            out.append(esc(line.strip()))  # a description continued on the next line
        elif line.strip():
            out += [".PP", esc(line.strip())]
            desc_col = None
    return out, [tuple(e) for e in found]


def command_section(binary, command):
    """The command's sub-section (what it does, its usage, its options by group) and the examples
    its help ends with."""
    text = helptext(binary, command, "--help").splitlines()
    head, _, what = text[0].partition(": ")
    usage = [ln.strip() for ln in text[1:4] if ln.strip().startswith("peerbench")]
    out = [f'.SS "{esc(head)}"', esc(what)]
    if usage:
        out += [".PP", ".B " + esc(usage[0])]
    rest = [ln for ln in text[1:] if ln.strip() not in ("Usage:", *usage)]
    body, found = options(rest, command)
    return out + body, found


def synopsis(main_help):
    """The main help's command lines: 'peerbench [run] [options]   what it does'."""
    out = []
    for line in main_help:
        m = re.match(r"^  (peerbench .*?)(?: {2,}(.*))?$", line)
        if m:
            out += [".TP", ".B " + esc(m.group(1).strip()), esc(m.group(2) or "")]
    return out


def methods(binary):
    out = []
    for line in helptext(binary, "--list-methods").splitlines():
        m = LISTED.match(line)
        if m:
            out += [".TP", f"\\fB{esc(m.group(1))}\\fR", esc(m.group(2))]
        elif line.strip():
            out += [f'.SS "{esc(line.strip().rstrip(":"))}"']
    return out


# Real command lines beside those the commands' own help ends with (run --help's "Examples:",
# which come first). Each is checked against the binary when the page is written (its command is
# one --help lists, each flag one that command's --help names), so an example cannot outlive a
# renamed flag.
EXAMPLES = [
    ("mpirun -np 8 --bind-to none peerbench run -m ce,nccl -J node7.json",
     "Under a launcher, copy-engine and NCCL methods only, results to node7.json."),
    ("peerbench run --dry-run --np 8",
     "The plan for 8 GPUs and its estimated time; touches no GPU."),
    ("peerbench report node7.json --format html -o node7.html",
     "The verdicts and tables of a run as one self-contained HTML file."),
    ("peerbench compare before.json after.json",
     "What changed between two runs of a node (a driver upgrade, say): regressions beyond 5 %, "
     "what differs between the runs."),
    ("peerbench fleet results/rack7/ --hosts rack7.txt",
     "One verdict over every node's results in a folder: outliers, missing nodes, versions."),
    ("peerbench doctor",
     "What this node says about slow roads (ACS, IOMMU, VM, container, steering variables, "
     "NVLinks) and what it finds wrong, each with a Next step; exit 1 with a finding."),
]


def check_examples(binary, commands, listed):
    """Each example's command is one the binary has, and its flags are ones that command takes."""
    for line, _ in listed:
        words = line.split()
        args = words[words.index("peerbench") + 1:]
        command = args[0] if args and args[0] in commands else "run"
        if command not in commands:
            sys.exit(f"man_page.py: example '{line}': no command '{command}' in peerbench --help")
        known = helptext(binary, command, "--help")
        for flag in (a for a in args if a.startswith("-")):
            if not re.search(r"(^|[\s,])" + re.escape(flag) + r"([\s,=]|$)", known, re.M):
                sys.exit(f"man_page.py: example '{line}': peerbench {command} --help has no {flag}")


def examples(listed):
    """Each example as what it does, then the command line, indented."""
    out = [".SH EXAMPLES"]
    for line, what in listed:
        what = what[:1].upper() + what[1:]
        out += [".PP", esc(what if what.endswith(".") else what + "."), ".PP", ".RS 4",
                ".B " + esc(line), ".RE"]
    return out


FIXED_SECTIONS = r"""
.SH EXIT STATUS
The same for every command:
.TP
.B 0
all good: nothing failed (figures that were not judged do not fail a run unless \fB\-\-fail\-on\fR names not\-judged)
.TP
.B 1
measured problems: flags, data errors, failed or incomplete measurements, fleet nodes missing;
for \fBcompare\fR, a regression past \fB\-\-threshold\fR, a pair or method lost in the second
run, data errors in it, or a burn-in finding in it (errors, intermittent failures, drift, later
cycles under a bar, a burn-in cut short) (\fB\-\-fail\-on any\fR: an improvement too;
\fB\-\-fail\-on none\fR: never)
.TP
.B 2
bad input or a launch that cannot work (no usable GPU, a file that cannot be read or written),
said in one line
.SH FILES
Under the installation prefix (\fI/usr\fR for the Debian package):
.TP
.I libexec/peerbench/report.sh RUN.json OUTDIR
every report format and the plots of one run
.TP
.I libexec/peerbench/fleet_bundle.sh OUTDIR PATH...
every fleet format and the distribution plots
.TP
.I libexec/peerbench/plot.py\fR, \fIlibexec/peerbench/plot_fleet.py
the PNG plots for \fB\-\-plots\fR (matplotlib)
.TP
.I share/doc/peerbench/README.md\fR, \fIshare/doc/peerbench/docs/
the README and the user guide
.TP
.I share/doc/peerbench/results/SCHEMA.md
the results file format
"""

SEE_ALSO = r"""
.SH SEE ALSO
.BR mpirun (1),
.BR srun (1)
"""


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: man_page.py BINARY OUTPUT.1 VERSION")
    binary, output, version = sys.argv[1:]
    main_help = helptext(binary, "--help").splitlines()
    title = main_help[0].partition(": ")[2] or main_help[0]
    commands = []
    for line in main_help:
        m = re.match(r"^  peerbench \[?([a-z]+)\]? ", line)
        if m and m.group(1) not in commands:
            commands.append(m.group(1))
    if not commands:
        sys.exit("man_page.py: found no commands in peerbench --help")
    page = [
        ".\\\" Generated by cmake/man_page.py from peerbench's --help texts; do not edit.",
        f'.TH PEERBENCH 1 "" "peerbench {esc(version)}" "User Commands"',
        ".SH NAME", "peerbench \\- " + esc(title),
        ".SH SYNOPSIS", *synopsis(main_help),
        ".SH DESCRIPTION",
        "peerbench is launched with one MPI rank per GPU (or started alone, when it starts itself "
        "under \\fBmpirun\\fR). It measures every pair of GPUs by copy engines, kernels that "
        "dereference peer memory and NCCL, each GPU's link to the host, records the transport NCCL "
        "chose, checks every byte, writes versioned JSON and gives a verdict per pair.",
        ".SH COMMANDS",
    ]
    listed = []
    for command in commands:
        section, found = command_section(binary, command)
        page += section
        listed += found
    # The help's own examples first; one of EXAMPLES that repeats a command line is left out.
    listed += [e for e in EXAMPLES if e[0] not in {line for line, _ in listed}]
    check_examples(binary, commands, listed)
    page += [".SH METHODS", *methods(binary), *FIXED_SECTIONS.strip().splitlines(),
             *examples(listed), *SEE_ALSO.strip().splitlines()]
    with open(output, "w") as f:
        f.write("\n".join(page) + "\n")


if __name__ == "__main__":
    main()
