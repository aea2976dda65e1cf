#!/usr/bin/env bash
# Installs what peerbench needs, on Debian/Ubuntu. Idempotent: it looks for each tool, header and
# CMake package first and installs only what is missing, naming it before apt-get runs (apt-get
# update at most once). CUDA (nvcc) and NCCL are expected to be installed already (NVIDIA's
# packages); it says so clearly when not, and when cxxopts is older than 3.
#
#   scripts/setup.sh            what building and running need: the compiler, CMake, cxxopts,
#                               nlohmann/json, fmt, GoogleTest, Open MPI, python3 (the man page)
#   scripts/setup.sh --test     that, and the tools only the tests use: matplotlib (the plot
#                               tests; scripts/plot.py draws with it), the format parsers (the
#                               Prometheus client, html5lib, xmllint), headless Chromium (the
#                               screenshots), man and dpkg-dev (the install test and its .deb)
#   scripts/setup.sh --fuzz     also clang with libFuzzer (fuzz targets)
#   scripts/setup.sh --cpu-only only what -DPEERBENCH_ENABLE_GPU=OFF builds and tests need (the
#                               GPU-free core and peerbench_cpu_tests): no Open MPI, no test
#                               tools (with --test too: that build has no executable to test), and
#                               no check for CUDA or NCCL
#
# Exit code 0 when everything is there, 1 when something is missing that it cannot install,
# 2 for a wrong argument.
set -euo pipefail
cli_usage="setup.sh [--test] [--fuzz] [--cpu-only]"
# shellcheck source=cli.sh
source "$(dirname "$0")/cli.sh"
fuzz=0 cpu_only=0 test_tools=0
for arg in "$@"; do
  case "$arg" in
    --test) test_tools=1 ;;
    --fuzz) fuzz=1 ;;
    --cpu-only) cpu_only=1 ;;
    -h | --help) cli_help_exit ;;
    *) cli_usage_exit ;;
  esac
done

have_header() {  # header path relative to an include dir
  for d in /usr/include /usr/local/include /usr/include/x86_64-linux-gnu; do
    [ -e "$d/$1" ] && return 0
  done
  return 1
}
cxxopts_version() {  # sets cxxopts_header and cxxopts_major from the header the compiler finds first
  cxxopts_header="" cxxopts_major=""
  for d in /usr/local/include /usr/include/x86_64-linux-gnu /usr/include; do
    if [ -e "$d/cxxopts.hpp" ]; then
      cxxopts_header=$d/cxxopts.hpp
      cxxopts_major=$(sed -n '/^#define CXXOPTS__VERSION_MAJOR [0-9]/{s/^#define CXXOPTS__VERSION_MAJOR \([0-9]*\).*/\1/p;q}' "$cxxopts_header")
      return 0
    fi
  done
}
have_cmake_pkg() {  # CMake package config name
  for d in /usr/lib/cmake /usr/lib/x86_64-linux-gnu/cmake /usr/share/cmake /usr/local/lib/cmake /usr/local/share/cmake /usr/lib64/cmake; do
    compgen -G "$d/$1*/*onfig.cmake" > /dev/null && return 0
  done
  return 1
}

missing=()
command -v cmake > /dev/null || missing+=(cmake)
command -v c++ > /dev/null || missing+=(g++)
command -v make > /dev/null || command -v ninja > /dev/null || missing+=(make)
have_header cxxopts.hpp || missing+=(libcxxopts-dev)
have_header nlohmann/json.hpp || missing+=(nlohmann-json3-dev)
have_cmake_pkg fmt || missing+=(libfmt-dev)
have_cmake_pkg GTest || missing+=(libgtest-dev)
optional=()
# The GPU build's own needs (--cpu-only leaves them out): MPI, and python3, which writes the man
# page from --help at build time.
if [ $cpu_only = 0 ]; then
  command -v mpirun > /dev/null || missing+=(openmpi-bin)
  have_header mpi.h || have_header openmpi/mpi.h || [ -e /usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h ] || missing+=(libopenmpi-dev)
  command -v python3 > /dev/null || missing+=(python3)
fi
# The tools only the tests use (--test; a GPU compute node that builds and runs peerbench needs
# none of them). The install test packs the .deb (dpkg-shlibdeps) and opens the man page with man.
# The format tests read peerbench's outputs with the real parsers: the Prometheus client's
# OpenMetrics parser, xmllint against the JUnit schema, html5lib; and the screenshot test draws
# the HTML pages in headless Chromium (about 80 MB to download, 20 s to install on the build
# machine). Each test skips, naming the package, where its tool is missing, so a failed install
# of these is a warning, not an error.
if [ $test_tools = 1 ] && [ $cpu_only = 0 ]; then
  command -v dpkg-shlibdeps > /dev/null || missing+=(dpkg-dev)
  command -v man > /dev/null || missing+=(man-db)
  python3 -c 'import matplotlib' 2> /dev/null || /usr/bin/python3 -c 'import matplotlib' 2> /dev/null ||
    optional+=(python3-matplotlib)
  /usr/bin/python3 -c 'import prometheus_client' 2> /dev/null || optional+=(python3-prometheus-client)
  /usr/bin/python3 -c 'import html5lib' 2> /dev/null || optional+=(python3-html5lib)
  command -v xmllint > /dev/null || optional+=(libxml2-utils)
  command -v chromium > /dev/null || optional+=(chromium)
fi
if [ $fuzz = 1 ]; then
  command -v clang++ > /dev/null || missing+=(clang)
  compgen -G "/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" > /dev/null || missing+=(libclang-rt-dev)
fi

# CUDA and NCCL come from NVIDIA; we only check for them, before installing anything (a machine
# without them would otherwise get packages it cannot use yet).
check_cuda_nccl() {
  nvcc=$(command -v nvcc || true)
  [ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
  if [ -z "$nvcc" ]; then
    echo "setup: CUDA toolkit not found (no nvcc on PATH or in /usr/local/cuda/bin)." >&2
    echo "       Install the CUDA toolkit (12.x or 13.x) from NVIDIA, or pass -DCMAKE_CUDA_COMPILER=/path/to/nvcc." >&2
    exit 1
  fi
  nccl_ok=0
  for d in "${NCCL_HOME:-/nonexistent}/include" /usr/include /usr/local/cuda/include /usr/local/include; do
    [ -e "$d/nccl.h" ] && nccl_ok=1
  done
  if [ $nccl_ok = 0 ]; then
    echo "setup: NCCL not found (no nccl.h under \$NCCL_HOME, /usr/include or /usr/local/cuda/include)." >&2
    echo "       Install libnccl2 and libnccl-dev from NVIDIA's repository, or set NCCL_HOME." >&2
    exit 1
  fi
}
if [ $cpu_only = 0 ]; then check_cuda_nccl; fi

sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
apt_updated=0
apt_install() {  # packages...: apt-get update once per run of this script, then install
  if ! command -v apt-get > /dev/null; then
    echo "setup: apt-get not found; install these with your package manager: $*" >&2
    return 1
  fi
  if [ $apt_updated = 0 ]; then
    $sudo apt-get update -q || return 1
    apt_updated=1
  fi
  $sudo apt-get install -y -q --no-install-recommends "$@"
}

what="build and run"
[ $test_tools = 1 ] && what="build, run and test"
if [ ${#missing[@]} -gt 0 ]; then
  # libclang-rt-dev is named by clang's major version on Debian 12 (libclang-rt-14-dev).
  pkgs=()
  for p in "${missing[@]}"; do
    if [ "$p" = libclang-rt-dev ]; then
      v=$(clang --version 2> /dev/null | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -1)
      p="libclang-rt-${v:-14}-dev"
    fi
    pkgs+=("$p")
  done
  echo "setup: installing $what dependencies: ${pkgs[*]}"
  apt_install "${pkgs[@]}" || exit 1
else
  echo "setup: $what dependencies present"
fi
if [ ${#optional[@]} -gt 0 ]; then
  echo "setup: installing ${optional[*]} for the plot, format and screenshot tests" \
    "(this can take a minute or two)"
  if apt_install "${optional[@]}"; then
    echo "setup: installed ${optional[*]}"
  else
    echo "setup: warning: could not install ${optional[*]}; the tests that need them skip" >&2
  fi
elif [ $test_tools = 1 ] && [ $cpu_only = 0 ]; then
  echo "setup: the tests' tools present (matplotlib, the format parsers, Chromium)"
fi

# CMakeLists.txt asks for cxxopts 3 (find_package(cxxopts 3)); older releases package 2.x.
cxxopts_version
if [ "${cxxopts_major:-0}" -lt 3 ]; then
  echo "setup: peerbench needs cxxopts 3 or later, found ${cxxopts_major:+version $cxxopts_major in }${cxxopts_header:-no cxxopts.hpp}: install cxxopts 3 in its place (Debian 12's libcxxopts-dev, or github.com/jarro2783/cxxopts installed with CMake into /usr/local)" >&2
  exit 1
fi

if [ $cpu_only = 1 ]; then
  echo "setup: CUDA and NCCL not checked (--cpu-only); ready to build with -DPEERBENCH_ENABLE_GPU=OFF"
  exit 0
fi
echo "setup: CUDA $("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'), NCCL found; ready to build"
if [ $test_tools = 0 ] && ! python3 -c 'import matplotlib' 2> /dev/null &&
  ! /usr/bin/python3 -c 'import matplotlib' 2> /dev/null; then
  echo "setup: (scripts/plot.py draws plots with matplotlib, and the tests use more tools:" \
    "scripts/setup.sh --test installs them)"
fi
