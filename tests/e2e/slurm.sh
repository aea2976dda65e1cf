#!/usr/bin/env bash
# launch/slurm.sbatch and launch/slurm-fleet.sbatch with stand-ins for srun and scontrol first on
# PATH: the job asks Slurm for GPUs and tasks per node, the srun lines ask for what the
# allocation has (SLURM_GPUS_ON_NODE, or GPUS_PER_NODE), per-task binding is one GPU per task,
# and a job without GPUs or with a wrong variable stops with one line and exit code 2, before
# any srun.
#   slurm.sh BINARY SOURCE_DIR
set -u
bin=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }

# The stand-in srun writes its arguments, one a line, to $SRUN_LOG.PID (the fleet's steps run
# at once) and exits with $SRUN_RC; scontrol lists three nodes.
mkdir -p "$work/bin"
cat > "$work/bin/srun" << 'EOF'
#!/bin/bash
printf '%s\n' "$@" > "$SRUN_LOG.$$"
exit "${SRUN_RC:-0}"
EOF
cat > "$work/bin/scontrol" << 'EOF'
#!/bin/sh
[ "$1 $2 $3" = "show hostnames gpu[01-03]" ] || { echo "scontrol stand-in: unexpected: $*" >&2; exit 1; }
printf 'gpu01\ngpu02\ngpu03\n'
EOF
chmod +x "$work/bin/"*

# job NAME SCRIPT [VAR=value...] -- [script arguments]: runs the script in a Slurm-like
# environment (job 42, 4 GPUs on the node unless overridden); srun calls land in $work/NAME.srun.*
job() {
  local name=$1 script=$2
  shift 2
  local vars=() unset=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    if [ "$1" = -u ]; then unset+=(-u "$2"); shift; else vars+=("$1"); fi
    shift
  done
  shift
  mkdir -p "$work/$name.cwd"
  (cd "$work/$name.cwd" && env PATH="$work/bin:$PATH" SRUN_LOG="$work/$name.srun" SLURM_JOB_ID=42 \
    SLURM_JOB_NODELIST="gpu[01-03]" SLURM_SUBMIT_DIR="$src" SLURM_GPUS_ON_NODE=4 PEERBENCH="$bin" \
    "${vars[@]}" env "${unset[@]}" bash "$src/launch/$script" "$@") > "$work/$name.out" 2> "$work/$name.err"
}
calls() { ls "$work/$1".srun.* 2> /dev/null | wc -l; }
call() { ls "$work/$1".srun.* 2> /dev/null | sed -n "$(($2 + 1))p"; }  # NAME N: call N's file
# has NAME N ARG...: srun call N of NAME had every ARG among its arguments
has() {
  local f a
  f=$(call "$1" "$2")
  shift 2
  [ -n "$f" ] || return 1
  for a in "$@"; do grep -qxF -- "$a" "$f" || return 1; done
}
lacks() { ! grep -qE -- "$2" "$(call "$1" "$3")"; }  # NAME REGEX N
args() { tr '\n' ' ' < "$(call "$1" "$2")" 2> /dev/null; }
# refused NAME "what": exit 2, one line on stderr, no srun
refused() {
  local rc=$1 name=$2 what=$3
  if [ "$rc" = 2 ] && [ "$(grep -c . "$work/$name.err")" = 1 ] && [ "$(calls "$name")" = 0 ]; then
    ok "$what: exit 2, no srun: $(cat "$work/$name.err")"
  else
    bad "$what: exit $rc, $(calls "$name") srun calls: $(head -3 "$work/$name.err")"
  fi
}

# ---- What the jobs ask Slurm for: #SBATCH lines, all before the first command (sbatch reads
# no further).
for script in slurm.sbatch slurm-fleet.sbatch; do
  head=$(awk 'NR > 1 && !/^#/ && !/^[[:space:]]*$/ { exit } { print }' "$src/launch/$script")
  echo "$head" | grep -qE '^#SBATCH --gpus-per-node=[0-9]+$' && echo "$head" | grep -qE '^#SBATCH --ntasks-per-node=[0-9]+$' &&
    ok "$script asks for --gpus-per-node and --ntasks-per-node" || bad "$script: no --gpus-per-node/--ntasks-per-node in its #SBATCH lines"
  [ "$(grep -c '^#SBATCH' "$src/launch/$script")" = "$(echo "$head" | grep -c '^#SBATCH')" ] ||
    bad "$script: #SBATCH lines after the first command are ignored by sbatch"
done

# ---- launch/slurm.sbatch
job all slurm.sbatch -- -m ce -e 64M
rc=$?
[ $rc = 0 ] && [ "$(calls all)" = 1 ] &&
  has all 0 --mpi=pmix --ntasks-per-node=4 --gpus-per-node=4 --cpu-bind=none "$bin" run -J results/peerbench-slurm-42.json -m ce -e 64M &&
  lacks all --gpu-bind 0 && ok "slurm.sbatch: one task and one GPU per GPU the node has (SLURM_GPUS_ON_NODE=4)" ||
  bad "slurm.sbatch: exit $rc: $(args all 0) $(cat "$work/all.err")"

job ownjson slurm.sbatch -- -m ce -J mine.json
has ownjson 0 -J mine.json && [ "$(grep -cxF -- -J "$(call ownjson 0)")" = 1 ] &&
  ok "slurm.sbatch: the options' own -J replaces the default (a flag given twice is refused)" ||
  bad "slurm.sbatch -J: $(args ownjson 0)"

job override slurm.sbatch GPUS_PER_NODE=2 --
has override 0 --ntasks-per-node=2 --gpus-per-node=2 && ok "slurm.sbatch: GPUS_PER_NODE=2 wins" ||
  bad "slurm.sbatch GPUS_PER_NODE: $(args override 0)"

job pertask slurm.sbatch SLURM_GPUS_ON_NODE=8 GPU_BINDING=per-task --
has pertask 0 --ntasks-per-node=8 --gpus-per-task=1 --gpu-bind=per_task:1 && lacks pertask '^--gpus-per-node' 0 &&
  lacks pertask 'single:' 0 && ok "slurm.sbatch: per-task binding is --gpus-per-task=1 --gpu-bind=per_task:1" ||
  bad "slurm.sbatch per-task: $(args pertask 0)"

job failing slurm.sbatch SRUN_RC=1 --
rc=$?
[ $rc = 1 ] && ok "slurm.sbatch: the step's exit code is the job's (1)" || bad "slurm.sbatch: step exit 1 became $rc"

job nogpus slurm.sbatch -u SLURM_GPUS_ON_NODE --
refused $? nogpus "slurm.sbatch in a job without GPUs"
grep -q -- '--gpus-per-node' "$work/nogpus.err" || bad "  ... does not say how to ask for GPUs"
job badcount slurm.sbatch GPUS_PER_NODE=eight --
refused $? badcount "slurm.sbatch, GPUS_PER_NODE=eight"
job badbinding slurm.sbatch GPU_BINDING=single --
refused $? badbinding "slurm.sbatch, GPU_BINDING=single"
job nojob slurm.sbatch -u SLURM_JOB_ID --
refused $? nojob "slurm.sbatch outside a Slurm job"

# ---- launch/slurm-fleet.sbatch: one step per node
job fleet slurm-fleet.sbatch OUT="$work/fleet-out" -- -m nccl
good=0
for n in 0 1 2; do
  node=$(sed -n 's/^--nodelist=//p' "$(call fleet $n)" 2> /dev/null)
  has fleet $n --nodes=1 --ntasks-per-node=4 --gpus-per-node=4 --exact --mpi=pmix --cpu-bind=none \
    "--export=ALL,PEERBENCH_HOST_ID=$node" "$bin" run -J "$work/fleet-out/runs/$node.json" -m nccl &&
    good=$((good + 1))
done
nodes=$(cat "$work"/fleet.srun.* 2> /dev/null | sed -n 's/^--nodelist=//p' | sort | tr '\n' ' ')
[ "$good" = 3 ] && [ "$nodes" = "gpu01 gpu02 gpu03 " ] && [ -s "$work/fleet-out/hosts.txt" ] &&
  ok "slurm-fleet.sbatch: one step per node ($nodes), 4 tasks and 4 GPUs each, host named by the node" ||
  bad "slurm-fleet.sbatch: $good good steps on '$nodes': $(args fleet 0) $(head -3 "$work/fleet.err")"

job fleetpt slurm-fleet.sbatch OUT="$work/fleetpt-out" GPU_BINDING=per-task --
has fleetpt 0 --ntasks-per-node=4 --gpus-per-task=1 --gpu-bind=per_task:1 && lacks fleetpt '^--gpus-per-node' 0 &&
  ok "slurm-fleet.sbatch: per-task binding" || bad "slurm-fleet.sbatch per-task: $(args fleetpt 0)"

job fleetnogpus slurm-fleet.sbatch OUT="$work/fleetnogpus-out" -u SLURM_GPUS_ON_NODE --
refused $? fleetnogpus "slurm-fleet.sbatch in a job without GPUs"
touch "$work/a-file"
job fleetout slurm-fleet.sbatch OUT="$work/a-file" --
refused $? fleetout "slurm-fleet.sbatch, OUT is a file"
job fleetjson slurm-fleet.sbatch OUT="$work/fleet-json" -- -m ce -J mine.json
refused $? fleetjson "slurm-fleet.sbatch with a -J of the user's (each node writes OUT/runs/NODE.json)"
exit $fail
