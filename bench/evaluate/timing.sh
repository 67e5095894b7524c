#!/usr/bin/env bash
# timing.sh — wall time of `genesis evaluate` on 1,000,000 synthetic Adult rows against the
# 32,561-row real table. The synthetic table comes from a CTGAN trained 2 epochs (quality is
# beside the point here; the size is what is measured) and is made once.
#
#   bench/evaluate/timing.sh [genesis-binary] [work-dir]
#
# Prints one Markdown row per configuration: wall seconds (reading both CSV files included),
# the library's own time per part, peak memory.
#
# Data: Adult's training and test splits (UCI; adult.csv and adult_test.csv), which the
# repository does not ship, from the folder GENESIS_DATA (default ../shared/data beside the
# repository, a sibling folder of the developers' setup). Without them the script says so
# and exits 0.
set -euo pipefail
G=${1:-build-eval/genesis}
WORK=${2:-/tmp/genesis-timing}
DATA_DIR=${GENESIS_DATA:-$(dirname "$0")/../../../shared/data}
REAL=$DATA_DIR/adult.csv
HOLD=$DATA_DIR/adult_test.csv
if [ ! -f "$REAL" ] || [ ! -f "$HOLD" ]; then
    echo "timing: $REAL or $HOLD not found (set GENESIS_DATA); skipping"
    exit 0
fi
mkdir -p "$WORK"
SYN=$WORK/adult_1m.csv
if [ ! -s "$SYN" ]; then
    nice "$G" fit -i "$REAL" -m "$WORK/adult_e2.gen" --epochs 2 --seed 3 -q
    nice "$G" sample -m "$WORK/adult_e2.gen" -n 1000000 -o "$SYN" --seed 3 -q
fi
echo "synthetic: $SYN ($(($(wc -l <"$SYN") - 1)) rows, $(du -hL "$SYN" | cut -f1)); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| configuration | wall s | read + prepare s | quality s | validity s | privacy s | detection s | usefulness s | peak RSS MB |"
echo "|---|---|---|---|---|---|---|---|---|"
run() {
    local label=$1
    shift
    /usr/bin/time -f "%e %M" -o "$WORK/time.txt" "$G" evaluate --real "$REAL" --synthetic "$SYN" --json "$@" >"$WORK/out.json"
    read -r wall rss <"$WORK/time.txt"
    python3 - "$WORK/out.json" "$label" "$wall" "$rss" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
t = d["time_s"]
wall = float(sys.argv[3])
lib = t["total"] - t["prepare"]
cells = [sys.argv[2], f"{wall:.1f}", f"{wall - lib:.1f}"] + [
    f"{t[k]:.1f}" if t[k] else "-" for k in ("quality", "validity", "privacy", "detection", "usefulness")]
cells.append(f"{int(sys.argv[4]) / 1024:.0f}")
print("| " + " | ".join(cells) + " |")
EOF
}
run "quality + validity + privacy (DCR on 20,000 rows)" --skip detection,usefulness
run "... with --threads 1" --skip detection,usefulness --threads 1
run "... plus DCR overfitting (holdout)" --holdout "$HOLD" --skip detection,usefulness
run "everything (detection, TSTR on income)" --holdout "$HOLD" --target income
