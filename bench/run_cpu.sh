#!/usr/bin/env bash
# run_cpu.sh — CPU speed of Genesis beside the Python reference (SDV's ctgan package), in
# one run on one machine: seconds per training epoch on Adult (CTGAN: 65 steps of batch 500;
# TVAE: 66 batches) and sampling rows/s to CSV. For each model the order is: genesis (all
# cores), reference (one BLAS thread, its best setting on this machine), genesis again,
# genesis on one thread. The ratio uses the median of the two all-core genesis runs.
#
#   bash bench/run_cpu.sh [adult.csv] [epochs=3] [models="ctgan tvae"]
# Needs the Adult table (UCI, 32,561 rows; not shipped with the repository, data/ holds a
# sample): a path, or GENESIS_DATA naming a folder with adult.csv (default ../shared/data, a
# sibling folder of the developers' setup); without it the script says so and exits 0. For
# the reference, a virtualenv with `pip install ctgan` at $GENESIS_PYREF (default
# pyref/venv in the checkout, git-ignored). Skips what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${1:-${GENESIS_DATA:-../shared/data}/adult.csv}
EPOCHS=${2:-3}
MODELS=${3:-ctgan tvae}
BUILD=${BUILD:-build}
PY=${GENESIS_PYREF:-pyref/venv}/bin/python
OUT=bench/results/cpu_$(date -u +%Y%m%dT%H%M%SZ).jsonl
if [ ! -f "$DATA" ]; then echo "run_cpu: $DATA not found (pass adult.csv or set GENESIS_DATA); skipping"; exit 0; fi
[ -x "$BUILD/bench_fit" ] || { cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build "$BUILD" -j"$(nproc)" >/dev/null; }
mkdir -p bench/results
machine="$(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, $(git rev-parse --short HEAD)"
echo "machine: $machine" | tee "$OUT.txt"
for MODEL in $MODELS; do
  run_genesis() { "$BUILD/bench_fit" "$DATA" "$EPOCHS" 100000 "$1" /dev/null "$MODEL" | tee -a "$OUT"; }
  run_genesis "$(nproc)"
  if [ -x "$PY" ]; then
    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 "$PY" bench/ref/ref_ctgan.py \
      --model "$MODEL" --input "$DATA" --epochs "$EPOCHS" --timing-only --seed 0 | tail -1 \
      | sed "s/^{/{\"engine\":\"reference\",\"model\":\"$MODEL\",/" | tee -a "$OUT"
  else
    echo "run_cpu: no reference virtualenv at $PY; reference skipped" | tee -a "$OUT.txt"
  fi
  run_genesis "$(nproc)"
  OMP_NUM_THREADS=1 run_genesis 1
done
PYBIN=$PY; [ -x "$PYBIN" ] || PYBIN=python3
"$PYBIN" - "$OUT" <<'PYEOF' | tee -a "$OUT.txt"
import json, sys, statistics
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
print("| model | engine | s/epoch | steps/s |")
print("|---|---|---|---|")
ratios = []
for model in ("ctgan", "tvae"):
    g = [r for r in rows if r.get("engine") == "genesis" and r.get("model") == model]
    if not g: continue
    steps = 65 if model == "ctgan" else 66
    ga = statistics.median([r["s_per_epoch"] for r in g if r["threads"] > 1])
    g1 = [r["s_per_epoch"] for r in g if r["threads"] == 1]
    ref = [r.get("s_per_epoch_after_first") or r["s_per_epoch"] for r in rows
           if r.get("engine") == "reference" and r.get("model") == model]
    print(f"| {model} | genesis, all cores | {ga:.3f} | {steps/ga:.1f} |")
    if g1: print(f"| {model} | genesis, 1 thread | {g1[0]:.3f} | {steps/g1[0]:.1f} |")
    if ref:
        print(f"| {model} | reference, 1 BLAS thread | {ref[0]:.3f} | {steps/ref[0]:.1f} |")
        ratios.append(f"{model}: {ref[0]/ga:.2f}x all cores" + (f", {ref[0]/g1[0]:.2f}x thread for thread" if g1 else ""))
    sm = statistics.median([r["sample_rows_per_s"] for r in g if r["threads"] > 1])
    ratios.append(f"{model}: genesis samples {sm:.0f} rows/s to CSV")
print()
for r in ratios: print("- " + r)
PYEOF
echo "results: $OUT"
