# shellcheck shell=bash
# Bash completion for peerbench: commands, each command's flags, and their values where there is
# a fixed set (formats, schedules, methods as the binary lists them), files where a file goes;
# `peerbench help COMMAND` completes the command.
# Installed as share/bash-completion/completions/peerbench; from a checkout:
#   source scripts/completion.bash
# tests/e2e/install.sh fails when a flag of `peerbench [COMMAND] --help` is missing here.

_peerbench_flags() {  # command -> its flags
  case $1 in
    run)
      echo "-b --minbytes -e --maxbytes -f --stepfactor -i --stepbytes -w --warmup_iters" \
        "-n --iters -s --samples -c --check -G --cudagraph --timeout --latency-bytes" \
        "--latency-iters -m --methods --list-methods --pairs --schedule --inplace -d --datatype" \
        "-o --op -r --root --staged-chunk --staged-slots -J --json --expect --dry-run --np" \
        "-q --quiet -v --verbose --allow-gpu-sharing -h --help --version -I --per_iter_timing" \
        "--fail-on --confirm --require-idle --wait-idle --allow-busy -a --average" \
        "-C --report_cputime -z --blocking -R --local_register -t --nthreads -g --ngpus -T" \
        "-N --run_cycles --duration"
      ;;
    topo) echo "--json -q --quiet -h --help" ;;
    report) echo "--format -o --output --fail-on --expect --plots -h --help" ;;
    compare) echo "--threshold --format -o --output --match --fail-on --plots -h --help" ;;
    fleet) echo "--hosts --expect --format -o --output --plots --write-baseline -h --help" ;;
    import) echo "-J --json --out-dir -h --help" ;;
    doctor) echo "--json --root -h --help" ;;
    help) echo "-h --help" ;;
  esac
}

# Completes the value of flag $2 of command $1 into COMPREPLY; returns 1 when $2 takes none.
_peerbench_value() {
  local cmd=$1 flag=$2 cur=$3 bin=$4 words
  case $cmd:$flag in
    run:-m | run:--methods)
      # The binary's own list: methods and groups (the words before two spaces).
      words=$("$bin" --list-methods 2> /dev/null | awk '/^  [a-z0-9-]+  /{print $1}')
      # A comma-separated list: complete the word after the last comma.
      local head=""
      [[ $cur == *,* ]] && head=${cur%,*},
      mapfile -t COMPREPLY < <(compgen -W "$words" -P "$head" -- "${cur##*,}")
      return 0
      ;;
    run:--schedule) words="serial rounds" ;;
    run:--pairs) words="all intra-host inter-host" ;;
    run:-d | run:--datatype)
      words="int8 uint8 int32 uint32 int64 uint64 half float double bfloat16 f8e4m3 f8e5m2 all"
      ;;
    run:-o | run:--op) words="sum prod min max avg all" ;;
    run:-c | run:--check) words="0 1" ;;
    report:--format) words="text markdown html csv" ;;
    compare:--format) words="text markdown html csv" ;;
    fleet:--format) words="text markdown html csv junit openmetrics" ;;
    compare:--match) words="pci uuid index" ;;
    compare:--fail-on) words="regressions any none" ;;
    report:--fail-on | run:--fail-on)
      words="all none incomplete contended throttled noisy host-staged nccl-shm nccl-net"
      words+=" nccl-net-socket below-link high-latency p2p-slower-than-staged asymmetric"
      words+=" data-errors off-nvlink link-errors pcie-downtrained nvlink-degraded fabric-unhealthy"
      words+=" below-expected off-baseline burn-in-errors intermittent drift not-judged"
      ;;
    run:-I | run:--per_iter_timing | run:-C | run:--report_cputime) words="0 1" ;;
    run:-a | run:--average) words="0 1 2 3" ;;
    run:-z | run:--blocking | run:-R | run:--local_register) words="0 1 2" ;;
    doctor:--json) return 1 ;;  # a switch: the next word is a flag
    doctor:--root)
      mapfile -t COMPREPLY < <(compgen -d -- "$cur")
      return 0
      ;;
    *:--plots | import:--out-dir)
      mapfile -t COMPREPLY < <(compgen -d -- "$cur")
      return 0
      ;;
    *:-J | *:--json | *:--expect | *:-o | *:--output | fleet:--hosts | fleet:--write-baseline)
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
      return 0
      ;;
    run:-b | run:--minbytes | run:-e | run:--maxbytes | run:-f | run:--stepfactor | \
      run:-i | run:--stepbytes | run:-w | run:--warmup_iters | run:-n | run:--iters | \
      run:-s | run:--samples | run:-G | run:--cudagraph | run:--timeout | run:--latency-bytes | \
      run:--latency-iters | run:-r | run:--root | run:--staged-chunk | run:--staged-slots | \
      run:--np | compare:--threshold)
      COMPREPLY=()  # a number: nothing to offer
      return 0
      ;;
    *) return 1 ;;
  esac
  mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
  return 0
}

_peerbench() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev="" cmd="" i
  [ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}
  local commands="run topo report compare fleet import doctor help"
  # The command is the first word after the program that is one; without one it is run.
  for ((i = 1; i < COMP_CWORD; i++)); do
    case " $commands " in *" ${COMP_WORDS[i]} "*) cmd=${COMP_WORDS[i]}; break ;; esac
    [[ ${COMP_WORDS[i]} == -* ]] && break
  done
  local explicit=$cmd
  [ -n "$cmd" ] || cmd=run
  if [ "$COMP_CWORD" -gt 1 ] && [[ $prev == -* ]] &&
    _peerbench_value "$cmd" "$prev" "$cur" "${COMP_WORDS[0]}"; then
    return 0
  fi
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_peerbench_flags "$cmd")" -- "$cur")
  elif [ -z "$explicit" ] && [ "$COMP_CWORD" = 1 ]; then
    mapfile -t COMPREPLY < <(compgen -W "$commands" -- "$cur")
  elif [ "$cmd" = help ] && [ "$COMP_CWORD" = 2 ]; then
    mapfile -t COMPREPLY < <(compgen -W "${commands% help}" -- "$cur")  # help takes one command
  elif [ "$cmd" = fleet ] || [ "$cmd" = import ]; then
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")  # results files, other tools' outputs, folders
  elif [ "$cmd" = report ] || [ "$cmd" = compare ]; then
    # Results files, and other tools' outputs (docs/import.md), whatever their names.
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  fi
  return 0
}
complete -F _peerbench -o filenames peerbench
