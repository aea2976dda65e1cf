#!/usr/bin/env bash
# One node, one rank per GPU, each rank bound near its GPU's CPUs (Open MPI maps ranks to
# NUMA domains in order; GPUs are numbered by PCI bus, which on most servers follows the
# sockets). Options pass through to `peerbench run`.
#
#   launch/node.sh [peerbench run options]
#   NP=4 launch/node.sh -m nccl          # fewer ranks than GPUs
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${PEERBENCH:-$here/build/peerbench}
np=${NP:-$(nvidia-smi -L | grep -c '^GPU')}
extra=()
[ "$(id -u)" = 0 ] && extra+=(--allow-run-as-root)
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
exec mpirun -np "$np" "${extra[@]}" --map-by numa --bind-to numa --report-bindings "$bin" run "$@"
