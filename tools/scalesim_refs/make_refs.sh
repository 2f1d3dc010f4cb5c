#!/bin/sh
# Regenerates SCALE-Sim v2's USER-bandwidth references in tests/data/scalesim/user_bw/ (issue 35):
# every config below x the GEMM and conv topologies beside this script, run by unmodified SCALE-Sim
# v2 (../shared/tools/scale-sim-v2, MIT) with Debian's python3-numpy/-pandas/-tqdm/-absl. Only the
# COMPUTE reports are kept. The set was fixed before kneepoint was compared with it.
# Usage: tools/scalesim_refs/make_refs.sh [SCALESIM_DIR]   (from the repository root; about 7 min
# on two shared cores). SCALESIM_DIR defaults to ../shared/tools/scale-sim-v2; a worktree passes its path.
set -eu
SIM=${1:-../shared/tools/scale-sim-v2}
HERE=$(dirname "$0")
DEST=tests/data/scalesim/user_bw
TMP=$(mktemp -d /tmp/scalesim_refs.XXXXXX)
mkdir -p "$DEST/configs" "$DEST/topologies"
cp "$HERE/gemm_shapes.csv" "$HERE/conv_shapes.csv" "$DEST/topologies/"

# name rows cols ifmap_kb filter_kb ofmap_kb bandwidth dataflow
configs() {
  for df in os ws is; do
    for bw in 1 4 10 50; do echo "sa16_${df}_16k_bw$bw 16 16 16 16 16 $bw $df"; done
    for bw in 1 10; do echo "sa32_${df}_64k_bw$bw 32 32 64 64 64 $bw $df"; done
    for bw in 2 10; do echo "sa8_${df}_4k8k1k_bw$bw 8 8 4 8 1 $bw $df"; done
  done
}

configs | while read -r name rows cols ikb fkb okb bw df; do
  cat > "$DEST/configs/$name.cfg" <<CFG
[general]
run_name = $name

[architecture_presets]
ArrayHeight:    $rows
ArrayWidth:     $cols
IfmapSramSzkB:   $ikb
FilterSramSzkB:  $fkb
OfmapSramSzkB:   $okb
IfmapOffset:    0
FilterOffset:   10000000
OfmapOffset:    20000000
Bandwidth : $bw
Dataflow : $df
MemoryBanks:   1

[run_presets]
InterfaceBandwidth: USER
CFG
done

run_one() {  # config topology-basename input-type
  out="$TMP/$2/$1"
  mkdir -p "$out"
  PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$SIM" /usr/bin/python3 "$SIM/scalesim/scale.py" \
    -c "$DEST/configs/$1.cfg" -t "$DEST/topologies/$2.csv" -p "$out" -i "$3" > "$out/log.txt" 2>&1
  mkdir -p "$DEST/results/$2/$1"
  cp "$out/$1/COMPUTE_REPORT.csv" "$DEST/results/$2/$1/COMPUTE_REPORT.csv"
  echo "done $2 $1"
}

configs | while read -r name rest; do
  run_one "$name" gemm_shapes gemm &
  run_one "$name" conv_shapes conv
  wait
done
rm -rf "$TMP"
