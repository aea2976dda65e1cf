#!/usr/bin/env bash
# One node, one rank per GPU. Each rank pins itself to the CPUs next to its own GPU (sysfs
# local_cpulist of the GPU's PCI device), so mpirun must not bind: --bind-to none. Options pass
# through to `peerbench run`.
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
exec mpirun -np "$np" "${extra[@]}" --bind-to none "$bin" run "$@"
