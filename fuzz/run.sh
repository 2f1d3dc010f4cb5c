#!/usr/bin/env bash
# Runs the parsers' libFuzzer targets (docs/fuzzing.md).
# Usage: fuzz/run.sh BUILD_DIR SECONDS [TARGET...]   (default: every target, SECONDS each)
# BUILD_DIR was configured with -DCMAKE_CXX_COMPILER=clang++ -DKP_FUZZ=ON and holds the built
# targets. Each run starts from the shipped files (seeds below) plus what earlier runs kept in
# $KP_FUZZ_CORPUS/<target> (default BUILD_DIR/fuzz-corpus); a crash, sanitizer report, leak, input
# slower than 10 s or memory above 2 GiB leaves its input in $KP_FUZZ_FINDINGS (default
# BUILD_DIR/fuzz-findings) and makes the script exit 1 after running the other targets.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
seconds=$2
shift 2
declare -A seeds=(
  [fuzz_hw_spec]="hw_configs/*.yaml"
  [fuzz_workload_spec]="workloads/*.yaml"
  [fuzz_study_spec]="studies/*.yaml"
  [fuzz_scalesim_config]="tests/data/scalesim/reference/configs/*.cfg tests/sim/data/*.cfg"
  [fuzz_scalesim_topology]="tests/data/scalesim/reference/topologies/*.csv tests/data/scalesim/topologies/*.csv"
  [fuzz_curve_csv]="workloads/*.csv tests/models/step_curve/data/*.csv"
  [fuzz_study_journal]="fuzz/seeds/study_journal/*"
  [fuzz_curve_journal]="fuzz/seeds/curve_journal/*"
)
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(fuzz_hw_spec fuzz_workload_spec fuzz_study_spec fuzz_scalesim_config
                                    fuzz_scalesim_topology fuzz_curve_csv fuzz_study_journal fuzz_curve_journal)
corpus_root=${KP_FUZZ_CORPUS:-$build/fuzz-corpus}
findings=${KP_FUZZ_FINDINGS:-$build/fuzz-findings}
mkdir -p "$findings"
failed=()
for t in "${targets[@]}"; do
  [ -n "${seeds[$t]:-}" ] || { echo "fuzz/run.sh: unknown target $t" >&2; exit 2; }
  corpus=$corpus_root/$t
  mkdir -p "$corpus"
  (cd "$root" && cp ${seeds[$t]} "$corpus/")
  log=$build/$t.log
  # -detect_leaks stays on; ASan aborts on a UBSan report (-fno-sanitize-recover at build time).
  if "$build/fuzz/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$findings/$t-" "$corpus" > "$log" 2>&1; then
    status=ok
  else
    status=FINDING
    failed+=("$t")
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
  echo "$t: $status, $runs runs, $rate exec/s, $cov, corpus $(ls "$corpus" | wc -l) (log $log)"
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz/run.sh: findings in ${failed[*]}: inputs in $findings; the first report of each:" >&2
  for t in "${failed[@]}"; do grep -m1 -A12 'ERROR\|runtime error\|deadly signal\|timeout\|out-of-memory' "$build/$t.log" >&2 || true; done
  exit 1
fi
