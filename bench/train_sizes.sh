#!/usr/bin/env bash
# train_sizes.sh — training across dataset sizes (issue 6, table 2). For each size it writes the
# 50-column table of bench/bench_make_table.c (25 continuous, 25 categorical, known structure),
# then fits Genesis and the Python reference (SDV's ctgan, bench/ref/ref_ctgan.py) with the same
# epochs and batch size (--models may name ddpm too: Genesis only, ceil(rows / batch) iterations
# per epoch) and generates as many rows as the table has, interleaved: genesis,
# reference, and genesis again up to 100K rows. One JSON line per run (fit s, generate s, peak
# RSS, load average) goes to bench/results/train_sizes_<date>.jsonl; a size whose time,
# projected from the largest measured size, is over the limit (genesis 20 min, reference 1 h)
# is not run and gets a "projection" line instead. Then bench/plot_sizes.py draws the plot.
#
#   bash bench/train_sizes.sh [--sizes "10000 100000 1000000"] [--models "ctgan tvae"]
#        [--device cpu|cuda] [--epochs 1] [--batch-size 500] [--threads 0] [--no-ref]
#        [--engines "genesis reference"] [--budget SECONDS] [--genesis-limit S] [--ref-limit S]
#        [--out FILE: appended to; its earlier runs count for the projections]
# Environment: GENESIS_DEVICE (default for --device), BUILD (build folder, default build-bench;
# built here with CUDA off when missing), GENESIS_PYREF (reference virtualenv, default
# pyref/venv in the checkout, git-ignored; the reference is skipped when it is missing), GENESIS_PYREF_PYTHON (an
# interpreter that imports ctgan, instead of the venv: e.g. python3 with PYTHONPATH set to
# carried wheels on the GPU machine), SIZES_DATA (where the tables
# go, default /tmp/genesis_sizes; 10M rows take 2.7 GB; tables of 1M rows and more are removed
# after use), SIZES_PLOT=0 (no .svg/.md beside the results).
# On the GPU machine: bench/gpu_session.sh (phase sizes) runs it (BUILD=build-gpu ... --device cuda).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
BUILD=${BUILD:-build-bench}
DEVICE=${GENESIS_DEVICE:-cpu}
PYREF=${GENESIS_PYREF:-pyref/venv}
DATA=${SIZES_DATA:-/tmp/genesis_sizes}
OUTFILE=bench/results/train_sizes_$(date -u +%Y%m%dT%H%M%SZ).jsonl
NOREF=0
PASS=()
while [ $# -gt 0 ]; do
  case $1 in
    --device) DEVICE=$2; shift 2 ;;
    --out) OUTFILE=$2; shift 2 ;;
    --no-ref) NOREF=1; shift ;;
    --sizes|--models|--engines|--epochs|--batch-size|--threads|--budget|--genesis-limit|--ref-limit|--timeout|--repeat-upto|--seed|--table-seed)
      PASS+=("$1" "$2"); shift 2 ;;
    --keep-tables) PASS+=("$1"); shift ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    *) echo "train_sizes: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
PY=$(command -v python3 || true)
[ -n "$PY" ] || { echo "train_sizes: no python3 on this machine; skipping"; exit 0; }
if [ ! -x "$BUILD/genesis" ] || [ ! -x "$BUILD/bench_make_table" ]; then
  echo "train_sizes: building $BUILD (Release, CUDA off)"
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DGENESIS_CUDA=OFF >/dev/null &&
    cmake --build "$BUILD" -j2 --target genesis bench_make_table >/dev/null ||
    { echo "train_sizes: build failed"; exit 1; }
fi
REFPY=""
if [ "$NOREF" = 1 ]; then
  echo "train_sizes: reference not run (--no-ref)"
elif CAND=${GENESIS_PYREF_PYTHON:-$PYREF/bin/python} && command -v "$CAND" >/dev/null &&
     "$CAND" -c "import ctgan" 2>/dev/null; then
  REFPY=$(command -v "$CAND")
else
  echo "train_sizes: no Python with ctgan (${GENESIS_PYREF_PYTHON:-$PYREF/bin/python}); reference skipped"
fi
mkdir -p bench/results "$DATA"
echo "train_sizes: device $DEVICE, results $OUTFILE, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$PY" bench/train_sizes.py --root "$ROOT" --genesis "$BUILD/genesis" \
  --make-table "$BUILD/bench_make_table" --ref-python "$REFPY" --data-dir "$DATA" \
  --device "$DEVICE" --out "$OUTFILE" "${PASS[@]}"
rc=$?
if [ "${SIZES_PLOT:-1}" = 1 ]; then
  "$PY" bench/plot_sizes.py "$OUTFILE" --svg "${OUTFILE%.jsonl}.svg" --md "${OUTFILE%.jsonl}.md" ||
    echo "train_sizes: plot failed"
fi
echo "train_sizes: results in $OUTFILE"
exit $rc
