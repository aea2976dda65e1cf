#!/usr/bin/env bash
# peerbench installed as a tool, from the existing build (nothing is rebuilt):
#  - `cmake --install BUILD --prefix TMP` gives a working tree: bin/peerbench --version and report
#    run from there, the installed scripts find the installed binary (PEERBENCH overriding), in
#    a copy of the tree moved elsewhere too;
#  - the man page renders with `man -l` without warnings and lists every flag of every command;
#  - the bash completion offers every flag that `peerbench [COMMAND] --help` lists (so the two
#    cannot drift apart), every command, and values for the fixed-choice flags;
#  - `cpack -G DEB` makes a .deb that declares its dependencies; unpacked into an empty folder
#    (dpkg -x), its peerbench runs.
#   install.sh BINARY SOURCE_DIR BUILD_DIR CMAKE CPACK
set -u
bin=$1
src=$2
build=$3
cmake=$4
cpack=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }
# A tool scripts/setup.sh --test installs but this machine lacks (the GPU machine has no man,
# groff or dpkg-deb): its checks are left out, said so; under PEERBENCH_REQUIRE_TOOLS (CI) it is a
# failure.
have() {
  command -v "$1" > /dev/null && return 0
  if [ -n "${PEERBENCH_REQUIRE_TOOLS:-}" ]; then
    bad "$1 is not installed (scripts/setup.sh --test installs $2)"
  else
    echo "PEERBENCH_SKIP: $1 is not installed (scripts/setup.sh --test installs $2): its checks are left out"
  fi
  return 1
}
example=$src/results/examples/h200x2-default.json
flagged=$src/results/examples/h200x2-nccl-shm.json

# checks_tree ROOT WHAT: the binary, report and the scripts of an installed tree at ROOT.
checks_tree() {
  local root=$1 what=$2 rc
  (cd / && "$root/bin/peerbench" --version) > "$work/version" 2>&1 &&
    grep -q '^peerbench [0-9]' "$work/version" && ok "$what: bin/peerbench --version: $(head -1 "$work/version")" ||
    bad "$what: bin/peerbench --version: $(head -3 "$work/version")"
  (cd / && "$root/bin/peerbench" report "$example") > "$work/report" 2>&1
  rc=$?
  [ $rc = 0 ] && grep -q '^PASS: ' "$work/report" && ok "$what: report of an example: exit 0, $(grep '^PASS: ' "$work/report")" ||
    bad "$what: report: exit $rc: $(tail -3 "$work/report")"
  (cd / && "$root/bin/peerbench" report "$flagged") > /dev/null 2>&1
  rc=$?
  [ $rc = 1 ] && ok "$what: report of a flagged example: exit 1" || bad "$what: flagged report: exit $rc"
  for f in libexec/peerbench/report.sh libexec/peerbench/fleet_bundle.sh libexec/peerbench/plot.py \
    libexec/peerbench/plot_fleet.py share/doc/peerbench/results/SCHEMA.md \
    share/doc/peerbench/docs/verdicts.md share/man/man1/peerbench.1 \
    share/bash-completion/completions/peerbench; do
    [ -s "$root/$f" ] || bad "$what: $f is not installed"
  done
  # The installed README's links into the user guide and the schema lead to installed pages.
  local doc=$root/share/doc/peerbench link lost=""
  for link in $(grep -o '](\(docs\|results\)/[A-Za-z_-]*\.md' "$doc/README.md" | cut -c3- | sort -u); do
    [ -s "$doc/$link" ] || lost+="$link "
  done
  [ -z "$lost" ] && ok "$what: the README's links to docs/ and results/SCHEMA.md resolve" ||
    bad "$what: README links to pages not installed: $lost"
}

# ---- cmake --install into an empty prefix
prefix=$work/prefix
"$cmake" --install "$build" --prefix "$prefix" > "$work/install.log" 2>&1 ||
  bad "cmake --install: $(tail -3 "$work/install.log")"
checks_tree "$prefix" "cmake --install"

# The installed scripts find the installed binary, wherever the tree is moved (a wrapper in
# bin/ records that it was called), and PEERBENCH wins over it.
cp -a "$prefix" "$work/moved"
mv "$work/moved/bin/peerbench" "$work/moved/bin/peerbench.real"
printf '#!/bin/sh\necho "$0" >> "%s"\nexec "%s" "$@"\n' "$work/called" "$work/moved/bin/peerbench.real" > "$work/moved/bin/peerbench"
chmod +x "$work/moved/bin/peerbench"
(cd / && env -u PEERBENCH PATH=/usr/bin:/bin "$work/moved/libexec/peerbench/report.sh" "$example" "$work/rep") > /dev/null 2> "$work/rep.err"
rc=$?
[ $rc = 0 ] && [ -s "$work/rep/report.html" ] && [ -s "$work/rep/report.csv" ] &&
  grep -q "moved/bin/peerbench" "$work/called" && ok "installed report.sh runs the installed binary (exit 0)" ||
  bad "installed report.sh: exit $rc, binary calls: $(cat "$work/called" 2> /dev/null): $(cat "$work/rep.err")"
(cd / && env -u PEERBENCH "$work/moved/libexec/peerbench/fleet_bundle.sh" "$work/bundle" "$example" "$flagged") > /dev/null 2> "$work/bundle.err"
rc=$?
[ $rc -le 1 ] && [ -s "$work/bundle/fleet.xml" ] && ok "installed fleet_bundle.sh (exit $rc)" ||
  bad "installed fleet_bundle.sh: exit $rc: $(cat "$work/bundle.err")"
rm -f "$work/called"
printf '#!/bin/sh\necho other >> "%s"\nexec "%s" "$@"\n' "$work/called" "$bin" > "$work/other"
chmod +x "$work/other"
PEERBENCH=$work/other "$work/moved/libexec/peerbench/report.sh" "$example" "$work/rep2" > /dev/null 2>&1
grep -q other "$work/called" && ! grep -q moved "$work/called" && ok "PEERBENCH overrides the installed binary" ||
  bad "PEERBENCH did not override: $(cat "$work/called")"

# ---- The man page
page=$prefix/share/man/man1/peerbench.1
have_man=0
have_groff=0
have groff groff && have_groff=1
# man renders through groff: without it `man -l` prints nothing and exits 0 (seen on the GPU
# machine, which has man but no groff), so both are needed to read the page.
if have man man-db && [ $have_groff = 1 ]; then
  have_man=1
  MANWIDTH=100 man -l "$page" > "$work/man.txt" 2> "$work/man.err"
  rc=$?
  [ $rc = 0 ] && grep -q '^NAME' "$work/man.txt" && grep -q '^EXIT STATUS' "$work/man.txt" &&
    ok "man -l renders the page ($(wc -l < "$work/man.txt") lines)" || bad "man -l: exit $rc: $(head -3 "$work/man.err")"
fi
if [ $have_groff = 1 ]; then
  groff -man -Tutf8 -ww -z "$page" 2> "$work/groff.err"
  [ ! -s "$work/groff.err" ] && ok "groff finds nothing to warn about" || bad "groff warns: $(head -3 "$work/groff.err")"
fi

# ---- Every flag of every command: in the man page and in the completion
# shellcheck source=/dev/null
source "$prefix/share/bash-completion/completions/peerbench"
complete_words() {  # words of the command line being completed -> the offered words, one a line
  COMP_WORDS=("$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _peerbench
  printf '%s\n' "${COMPREPLY[@]}"
}
help_flags() {  # the flags at the start of option lines of one help text
  grep -E '^ {1,8}-' | grep -oE '^ {1,8}(-[A-Za-z], )?--[a-z0-9_-]+' | tr ',' ' ' | tr -s ' ' '\n' | grep .
}
commands=$("$bin" --help | sed -nE 's/^  peerbench \[?([a-z]+)\]? .*/\1/p')
[ "$(echo "$commands" | wc -l)" -ge 5 ] || bad "found only these commands in --help: $commands"
offered=$(complete_words peerbench "" | sort | tr '\n' ' ')
[ "$offered" = "$(echo "$commands" | sort | tr '\n' ' ')" ] && ok "completion offers the commands: $offered" ||
  bad "completion offers '$offered', --help lists '$(echo "$commands" | tr '\n' ' ')'"
for cmd in $commands; do
  if [ "$cmd" = help ]; then  # help takes a command, not flags: those are offered after it
    offered=$(complete_words peerbench help "" | sort | tr '\n' ' ')
    [ "$offered" = "$(echo "$commands" | grep -vx help | sort | tr '\n' ' ')" ] &&
      ok "completion offers the commands after help" || bad "completion after help offers '$offered'"
    continue
  fi
  flags=$("$bin" "$cmd" --help | help_flags)
  [ -n "$flags" ] || { bad "no flags found in peerbench $cmd --help"; continue; }
  offered=$(complete_words peerbench "$cmd" -)
  missing=$(comm -23 <(echo "$flags" | sort -u) <(echo "$offered" | sort -u) | tr '\n' ' ')
  [ -z "$missing" ] && ok "completion offers all $(echo "$flags" | wc -l) flags of $cmd" ||
    bad "completion of $cmd lacks: $missing"
  [ $have_man = 1 ] || continue
  mman=""
  for f in $flags; do grep -qF -- "$f" "$work/man.txt" || mman+="$f "; done
  [ -z "$mman" ] && ok "man page lists every flag of $cmd" || bad "man page lacks $cmd flags: $mman"
done
for f in --help --version --list-methods; do
  complete_words peerbench - | grep -qx -- "$f" || bad "completion of 'peerbench -' lacks $f"
done
complete_words peerbench report --format "" | grep -qx html && complete_words peerbench fleet --format j | grep -qx junit &&
  complete_words "$bin" -m ce,nccl-s | grep -qx ce,nccl-sendrecv && ok "completion of values (formats, methods)" ||
  bad "completion of values"
# --fail-on: every flag and state the binary accepts, as its own error lists them (five flags
# added later had been missing from the completion: an audit).
accepted=$("$bin" report --fail-on not-a-flag x.json 2>&1 | sed -n 's/.*use all, none or: //p' | tr -d ',' |
  tr ' ' '\n' | grep . | sort)
offered=$(complete_words peerbench report --fail-on "" | grep -vx -e all -e none | sort)
[ -n "$accepted" ] && [ "$accepted" = "$offered" ] && ok "completion offers all $(echo "$accepted" | wc -l) --fail-on values" ||
  bad "--fail-on completion differs from what peerbench accepts: $(comm -3 <(echo "$accepted") <(echo "$offered") | tr -s ' \n\t' ' ')"

# ---- The Debian package
if have dpkg-deb dpkg; then
  "$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg" > "$work/cpack.log" 2>&1
  deb=$(ls "$work"/pkg/peerbench_*.deb 2> /dev/null | head -1)
  if [ -n "$deb" ]; then
    depends=$(dpkg-deb -f "$deb" Depends)
    missing=""
    for d in openmpi-bin libopenmpi libnccl2 cuda-cudart- libc6; do
      [[ $depends == *"$d"* ]] || missing+="$d "
    done
    # And the package of every other library the binary needs, as dpkg names it on this machine
    # (the GPU machine's Depends had no libstdc++6: what a library comes from differs by host).
    for lib in $(objdump -p "$bin" 2> /dev/null | awk '/NEEDED/ {print $2}'); do
      path=$(ldd "$bin" | awk -v l="$lib" '$1 == l {print $3}')
      [ -n "$path" ] || continue
      pkg=$(dpkg -S "$path" 2> /dev/null || dpkg -S "$(readlink -f "$path")" 2> /dev/null)
      pkg=${pkg%%:*}
      case $pkg in "" | *cuda* | *nccl* | *openmpi* | libc6 | libc6-*) continue ;; esac
      [[ $depends == *"$pkg"* ]] || missing+="$pkg (for $lib) "
    done
    [ -z "$missing" ] && ok "the .deb declares its dependencies: $depends" || bad "the .deb's Depends lacks $missing: $depends"
    dpkg-deb -x "$deb" "$work/root"
    checks_tree "$work/root/usr" ".deb unpacked"
  else
    bad "cpack -G DEB made no package: $(tail -5 "$work/cpack.log")"
  fi
fi
exit $fail
