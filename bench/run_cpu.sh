#!/usr/bin/env bash
# run_cpu.sh — CPU speed of Genesis beside the Python reference CTGAN, in one run on one
# machine: seconds per training epoch on Adult (65 steps of batch 500) and sampling rows/s.
# Order: genesis (all cores), reference (one BLAS thread, its best setting), genesis again,
# genesis on one thread; the ratio uses the median of the genesis runs.
#
#   bash bench/run_cpu.sh [adult.csv] [epochs=3]
# Needs ../shared/data/adult.csv (or a path) and, for the reference, a virtualenv with
# `pip install ctgan` at $GENESIS_PYREF (default /work/pyref/venv). Skips what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${1:-../shared/data/adult.csv}
EPOCHS=${2:-3}
BUILD=${BUILD:-build}
PY=${GENESIS_PYREF:-/work/pyref/venv}/bin/python
OUT=bench/results/cpu_$(date -u +%Y%m%dT%H%M%SZ).jsonl
if [ ! -f "$DATA" ]; then echo "run_cpu: $DATA not found (needs ../shared/data); skipping"; exit 0; fi
[ -x "$BUILD/bench_fit" ] || { cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build "$BUILD" -j"$(nproc)" >/dev/null; }
mkdir -p bench/results
machine="$(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores"
echo "machine: $machine" | tee "$OUT.txt"
run_genesis() { "$BUILD/bench_fit" "$DATA" "$EPOCHS" 100000 "$1" | tee -a "$OUT"; }
run_genesis 0
if [ -x "$PY" ]; then
  OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 "$PY" bench/ref/ref_ctgan.py \
    --input "$DATA" --epochs "$EPOCHS" --timing-only --seed 0 | tail -1 | sed 's/^{/{"engine":"reference",/' | tee -a "$OUT"
else
  echo "run_cpu: no reference virtualenv at $PY; reference skipped" | tee -a "$OUT.txt"
fi
run_genesis 0
OMP_NUM_THREADS=1 run_genesis 1
"${PY:-python3}" - "$OUT" <<'PYEOF' | tee -a "$OUT.txt"
import json, sys, statistics
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
g_all = [r["s_per_epoch"] for r in rows if r.get("engine") == "genesis" and r.get("threads") == 0]
g_one = [r["s_per_epoch"] for r in rows if r.get("engine") == "genesis" and r.get("threads") == 1]
ref = [r.get("s_per_epoch_after_first", r.get("s_per_epoch")) for r in rows if r.get("engine") == "reference"]
g = statistics.median(g_all)
print("| engine | s/epoch | steps/s |")
print("|---|---|---|")
print(f"| genesis, all cores | {g:.3f} | {65/g:.1f} |")
if g_one: print(f"| genesis, 1 thread | {g_one[0]:.3f} | {65/g_one[0]:.1f} |")
if ref:
    print(f"| reference CTGAN, 1 BLAS thread | {ref[0]:.3f} | {65/ref[0]:.1f} |")
    print(f"\nspeed-up per epoch (reference / genesis all cores): {ref[0]/g:.2f}x")
    if g_one: print(f"speed-up per epoch, both on one thread: {ref[0]/g_one[0]:.2f}x")
sm = [r for r in rows if r.get("engine") == "genesis" and r.get("threads") == 0]
print(f"genesis sampling: {statistics.median([r['sample_rows_per_s'] for r in sm]):.0f} rows/s to CSV")
PYEOF
echo "results: $OUT"
