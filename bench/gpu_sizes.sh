#!/usr/bin/env bash
# SUPERSEDED by bench/gpu_session.sh's sizes phase (CTGAN, TVAE and DDPM, GPU then host cores).
# gpu_sizes.sh — training across dataset sizes on the GPU machine: bench/train_sizes.sh with
# --device cuda at 10K, 100K, 1M and 10M rows (a size whose projected time does not fit in the
# time left is recorded as projected, not run), then, with the time that is left, the same
# sizes on that machine's CPU cores (--device cpu), so both columns come from one machine.
# It uses the build that bench/gpu_run.sh made (build-gpu and the libraries it unpacked into
# build-gpu/deps), so run it after gpu_run.sh on the same warm machine; gpu_run.sh also calls
# it as its last step with whatever time its own budget has left.
#
#   device tool, after `bash bench/gpu_run.sh` (carry ["bench/debs"]):   bash bench/gpu_sizes.sh
#   GPU_SIZES_BUDGET=seconds (default 560), GPU_SIZES="10000 100000 1000000 10000000",
#   GPU_SIZES_EPOCHS=1, GPU_SIZES_BATCH=500 (keep them equal to the CPU run's settings).
# Writes $OUT/train_sizes_gpu.jsonl and appends its table to $OUT/summary.md.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
OUT=${OUT:-$ROOT/gpu_out}
BUILD=${BUILD:-$ROOT/build-gpu}
BUDGET=${GPU_SIZES_BUDGET:-560}
SIZES=${GPU_SIZES:-10000 100000 1000000 10000000}
T0=$(date +%s)
left() { echo $(( BUDGET - ($(date +%s) - T0) )); }
mkdir -p "$OUT"
if [ ! -x "$BUILD/genesis" ] || [ ! -x "$BUILD/bench_make_table" ]; then
  echo "gpu_sizes: no $BUILD/genesis or bench_make_table: run bench/gpu_run.sh first on this machine; skipping"
  exit 0
fi
MA=x86_64-linux-gnu
DEPS=$BUILD/deps
export LD_LIBRARY_PATH="$DEPS/usr/lib/$MA:$DEPS/usr/lib/$MA/openblas-openmp:$DEPS/lib/$MA${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
J=$OUT/train_sizes_gpu.jsonl
export BUILD SIZES_DATA=${SIZES_DATA:-$BUILD/sizes} SIZES_PLOT=0
COMMON=(--sizes "$SIZES" --epochs "${GPU_SIZES_EPOCHS:-1}" --batch-size "${GPU_SIZES_BATCH:-500}" --out "$J")
echo "gpu_sizes: --device cuda, $(left) s"
bash bench/train_sizes.sh --device cuda --budget "$(( $(left) - 10 ))" "${COMMON[@]}"
if [ "$(left)" -gt 60 ]; then
  echo "gpu_sizes: --device cpu (all cores), $(left) s left"
  bash bench/train_sizes.sh --device cpu --no-ref --budget "$(( $(left) - 10 ))" "${COMMON[@]}"
fi
# the table goes into summary.md; only the .jsonl is a new file under $OUT (the device tool
# brings back at most 8); the plot is drawn afterwards with bench/plot_sizes.py
MD=$BUILD/train_sizes_gpu.md
python3 bench/plot_sizes.py "$J" --md "$MD" >/dev/null
{ echo ""; echo "## Training across dataset sizes (bench/gpu_sizes.sh)"; echo ""; cat "$MD"; } >>"$OUT/summary.md"
cat "$MD"
