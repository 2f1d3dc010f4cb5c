#!/usr/bin/env bash
# Prints, side by side, one step-curve measurement run as one process with J threads and as
# `mpirun -np N` ranks with J/N threads each: wall time, CPU time (all threads and processes),
# load average and each rank's share, and whether the trial records are identical (they must be).
# Usage: tools/bench_curve_mpi.sh BUILD_DIR WORKLOAD [N=2] [J=2] [-- extra kneepoint curve flags]
# Run it under `nice -n 19` on the shared machine.
set -euo pipefail
build=$1 workload=$2 ranks=${3:-2} jobs=${4:-2}
shift $(( $# < 4 ? $# : 4 ))
[ "${1:-}" = "--" ] && shift
kp=$build/tools/kneepoint
out=$(mktemp -d /tmp/kp_bench_curve_mpi.XXXXXX)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
per_rank=$(( jobs / ranks > 0 ? jobs / ranks : 1 ))
run() {  # name, command...
  local name=$1; shift
  local load0 t0 t1
  load0=$(cut -d' ' -f1 /proc/loadavg)
  t0=$(date +%s.%N)
  "$@" --out "$out/$name.csv" > "$out/$name.out" 2> "$out/$name.err"
  t1=$(date +%s.%N)
  printf '%-28s wall %7.1f s (command, incl. start-up)  load %s -> %s\n' "$name" \
    "$(echo "$t1 - $t0" | bc)" "$load0" "$(cut -d' ' -f1 /proc/loadavg)"
  grep -h '^# cost:' "$out/$name.csv" | sed 's/^# cost: /    curve: /'
  grep -h '^  rank [0-9]*: [0-9]* trials' "$out/$name.err" | sed 's/^  /    /' || true
}
run "1 process x $jobs jobs" "$kp" curve --workload "$workload" --jobs "$jobs" "$@"
run "$ranks ranks x $per_rank jobs" mpirun -np "$ranks" --oversubscribe "$kp" curve --workload "$workload" \
  --jobs "$per_rank" "$@"
records() { grep -v '^#' "$1" | cut -d, -f1-6; }
if cmp -s <(records "$out/1 process x $jobs jobs.csv") <(records "$out/$ranks ranks x $per_rank jobs.csv"); then
  echo "trial records identical ($(records "$out/1 process x $jobs jobs.csv" | tail -n +2 | wc -l) trials; outputs in $out)"
else
  echo "trial records DIFFER (outputs in $out)"; exit 1
fi
