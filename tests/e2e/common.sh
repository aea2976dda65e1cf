# Shared by the GPU end-to-end scripts: skip without a usable GPU (exit 77, ctest's skip code),
# Open MPI as root, NVLink multicast off, a work folder removed at exit, and how many GPUs.
if ! "$bin" topo -q > /dev/null 2>&1; then
  echo "PEERBENCH_GPU_SKIP: no usable CUDA GPU (peerbench topo failed)"
  exit 77
fi
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
export NCCL_NVLS_ENABLE=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ngpu=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU')
fail=0
check() { if eval "$1"; then echo "ok: $2"; else echo "FAIL: $2"; fail=1; fi; }
