# shellcheck shell=bash
# Sourced by the scripts, not run: what they share with the peerbench binary's command line.
#  - Exit codes 0 all good, 1 measured problems, 2 bad input. Bad input is one line on stderr,
#    "NAME: error: ...", and exit code 2 (cli_fail); wrong arguments print the usage line.
#  - A file or folder the user named is checked as peerbench checks its -o and -J targets: an
#    existing file target must be a regular file (a symlink, even to a regular file, a device, a
#    FIFO or a folder is refused, never written through); a folder target must be a folder.
#  - The peerbench binary: $PEERBENCH, else the checkout's build/peerbench (a scripts/ folder
#    beside CMakeLists.txt), else the installed one (bin/ two levels above libexec/peerbench/),
#    else peerbench on PATH.
# The sourcing script sets cli_usage (its usage line, without "usage: ") first.

cli_name=$(basename "$0")

cli_fail() {
  echo "$cli_name: error: $*" >&2
  exit 2
}

# Wrong arguments: the usage line alone, exit code 2.
cli_usage_exit() {
  echo "usage: $cli_usage" >&2
  exit 2
}

# -h/--help: the usage line and the script's opening comment, on stdout, exit code 0.
cli_help_exit() {
  echo "usage: $cli_usage"
  sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"
  exit 0
}

# An input file the user named: present, not a folder, readable.
cli_check_input() {
  if [ ! -e "$1" ]; then
    cli_fail "$1: no such file"
  elif [ -d "$1" ]; then
    cli_fail "$1 is a folder; give a file"
  elif [ ! -r "$1" ]; then
    cli_fail "$1: cannot read it (permission denied)"
  fi
}

# A file about to be written: absent or a regular file (not a link, device, FIFO or folder).
cli_check_file() {
  local p=$1
  if [ "${p%/}" != "$p" ] || { [ -d "$p" ] && [ ! -L "$p" ]; }; then
    cli_fail "cannot write $p: it is a folder; give a file name"
  elif [ -L "$p" ]; then
    cli_fail "cannot write $p: it is a symbolic link; $cli_name does not write through links" \
      "(give the file it points to)"
  elif [ -e "$p" ] && [ ! -f "$p" ]; then
    cli_fail "cannot write $p: it exists and is not a regular file (a device, FIFO or socket);" \
      "$cli_name only replaces regular files"
  fi
}

# A folder to write into: made when absent (with its parents); refused when something else is
# there or files cannot be created in it. A link to a folder is followed, as peerbench does.
cli_make_dir() {
  local d=$1 err
  if [ -e "$d" ] || [ -L "$d" ]; then
    [ -d "$d" ] || cli_fail "cannot write into $d: it exists and is not a folder"
  elif ! err=$(mkdir -p -- "$d" 2>&1); then
    cli_fail "cannot create folder $d: ${err##*: }"
  fi
  [ -w "$d" ] && [ -x "$d" ] || cli_fail "cannot create files in $d: permission denied"
}

# Sets cli_bin to the peerbench binary (see above); $1 is the calling script's folder.
cli_find_peerbench() {
  local here=$1
  if [ -n "${PEERBENCH:-}" ]; then
    cli_bin=$PEERBENCH
  elif [ -f "$here/../CMakeLists.txt" ]; then
    cli_bin=$here/../build/peerbench
  elif [ -x "$here/../../bin/peerbench" ]; then
    cli_bin=$(cd "$here/../../bin" && pwd)/peerbench
  else
    cli_bin=$(command -v peerbench) || cli_bin=peerbench
  fi
  [ -f "$cli_bin" ] && [ -x "$cli_bin" ] ||
    cli_fail "peerbench not found at $cli_bin (build it, or set PEERBENCH to the binary)"
}

# Runs peerbench; its exit code 2 (bad input, already said in one line) ends the script with 2.
cli_peerbench() {
  "$cli_bin" "$@"
  local rc=$?
  [ $rc = 2 ] && exit 2
  return $rc
}

# A python3 with matplotlib (PATH's, else the system's), or nothing: sets cli_py.
cli_find_matplotlib() {
  cli_py=
  local py
  for py in python3 /usr/bin/python3; do
    if "$py" -c 'import matplotlib' 2> /dev/null; then
      cli_py=$py
      return 0
    fi
  done
  return 1
}
