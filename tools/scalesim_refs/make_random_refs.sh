#!/bin/sh
# Regenerates the random held-out SCALE-Sim USER-mode references of issue 35 in
# tests/data/scalesim/user_bw_random/: random_cases.py (seed 35) writes 30 configs and topologies,
# then unmodified SCALE-Sim v2 runs each; only the COMPUTE reports are kept, as
# results/<topology>/<config>/COMPUTE_REPORT.csv. A run over 300 s is skipped and reported.
# Usage: tools/scalesim_refs/make_random_refs.sh [SCALESIM_DIR]   (from the repository root;
# about 10 min on one core, 5 of them h09 timing out). SCALESIM_DIR defaults to ../shared/tools/scale-sim-v2.
set -eu
SIM=${1:-../shared/tools/scale-sim-v2}
HERE=$(dirname "$0")
DEST=tests/data/scalesim/user_bw_random
TMP=$(mktemp -d /tmp/scalesim_random_refs.XXXXXX)
python3 "$HERE/random_cases.py" "$DEST" > "$TMP/runs.txt"
while read -r name typ; do
  out="$TMP/$name"
  mkdir -p "$out"
  if PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$SIM" timeout 300 /usr/bin/python3 "$SIM/scalesim/scale.py" \
       -c "$DEST/configs/$name.cfg" -t "$DEST/topologies/${typ}_$name.csv" -p "$out" -i "$typ" \
       > "$out/log.txt" 2>&1; then
    mkdir -p "$DEST/results/${typ}_$name/$name"
    cp "$out/$name/COMPUTE_REPORT.csv" "$DEST/results/${typ}_$name/$name/COMPUTE_REPORT.csv"
    echo "done $name"
  else
    echo "skipped $name (SCALE-Sim failed or took over 300 s)"
  fi
done < "$TMP/runs.txt"
rm -rf "$TMP"
