#!/usr/bin/env bash
# One node, one rank per GPU. Each rank pins itself to the CPUs next to its own GPU (sysfs
# local_cpulist of the GPU's PCI device), so mpirun must not bind: --bind-to none. Options pass
# through to `peerbench run` (its exit code is this script's: 0, 1 or 2).
#
#   launch/node.sh [peerbench run options]
#   NP=4 launch/node.sh -m nccl          # fewer ranks than GPUs
#
# NP: ranks (default: the GPUs nvidia-smi lists); PEERBENCH: the binary (default build/peerbench).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
fail() {
  echo "node.sh: error: $*" >&2
  exit 2
}
bin=${PEERBENCH:-$here/build/peerbench}
[ -f "$bin" ] && [ -x "$bin" ] || fail "peerbench not found at $bin (build it, or set PEERBENCH)"
if [ -n "${NP:-}" ]; then
  np=$NP
elif command -v nvidia-smi > /dev/null; then
  np=$(nvidia-smi -L | grep -c '^GPU')
else
  fail "cannot count the GPUs: nvidia-smi is not on PATH; set NP to the number of ranks"
fi
[[ $np =~ ^[1-9][0-9]*$ ]] || fail "NP=$np: give a number of ranks from 1 (nvidia-smi lists no GPU?)"
command -v mpirun > /dev/null || fail "mpirun is not on PATH; install Open MPI (scripts/setup.sh)"
extra=()
[ "$(id -u)" = 0 ] && extra+=(--allow-run-as-root)
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
exec mpirun -np "$np" "${extra[@]}" --bind-to none "$bin" run "$@"
