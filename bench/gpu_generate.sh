#!/usr/bin/env bash
# gpu_generate.sh — the GPU session's second call for batched generation (docs/memory.md,
# docs/benchmarks.md, "Generation across sizes"). Run it after bench/gpu_session.sh on the
# same warm machine: it
# reuses that build (build-gpu, with the unpacked .deb files) and writes under $OUT:
#   1. `genesis info` (devices, versions) and `genesis estimate` for Adult on the GPU;
#   2. test_memory and tests/cli/memory.sh with the CUDA backend;
#   3. bench/gen_sizes.sh on the GPU for 10K .. 100M rows and on the CPU (all cores) for
#      10K .. 10M rows: time, rows/s, peak host memory, peak device memory beside the
#      estimate; 100M only while the time budget allows.
#
# Adult (not shipped) comes from bench/debs/adult.csv or $GENESIS_DATA/adult.csv (default
# ../shared/data, a sibling folder of the developers' setup), else data/adult_sample.csv.
#
#   device tool: run(command="bash bench/gpu_generate.sh", carry=["bench/debs"])
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
OUT=${OUT:-$ROOT/gpu_out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/generate.log") 2>&1
T0=$(date +%s)
BUDGET=${GPU_RUN_BUDGET:-560}
BUILD=${BUILD:-$ROOT/build-gpu}
left() { echo $(( BUDGET - $(date +%s) + T0 )); }
say() { echo "[gpu_generate +$(( $(date +%s) - T0 ))s] $*"; }
MA=x86_64-linux-gnu
DEPS=$BUILD/deps
PYNV=$(python3 -c "import nvidia; print(list(nvidia.__path__)[0])" 2>/dev/null || true)
export LD_LIBRARY_PATH="$DEPS/usr/lib/$MA:$DEPS/usr/lib/$MA/openblas-openmp:$DEPS/lib/$MA${PYNV:+:$PYNV/cudnn/lib:$PYNV/nccl/lib}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [ ! -x "$BUILD/genesis" ] || [ ! -x "$BUILD/bench_memory" ]; then
  say "no build in $BUILD: bench/gpu_session.sh's build phase first"
  BUILD=$BUILD OUT="$OUT/build" BUDGET_build=200 CALL_BUDGET=220 timeout 240 bash bench/gpu_session.sh --call 2 --phases build >/dev/null 2>&1 || true
fi
[ -x "$BUILD/genesis" ] || { say "build failed; see $OUT/build"; exit 1; }
ADULT=""
for f in "$ROOT/bench/debs/adult.csv" "${GENESIS_DATA:-$ROOT/../shared/data}/adult.csv"; do
  [ -f "$f" ] && { ADULT=$f; break; }
done
[ -n "$ADULT" ] || ADULT=$ROOT/data/adult_sample.csv

say "info and estimate"
"$BUILD/genesis" info | tee "$OUT/info.txt"
"$BUILD/genesis" estimate -i "$ADULT" --device cuda | tee "$OUT/estimate.txt"

say "memory tests on the GPU"
( cd "$BUILD" && GEN_SOURCE_DIR=$ROOT timeout 120 ./test_memory; echo "test_memory exit $?";
  timeout 120 bash "$ROOT/tests/cli/memory.sh" ./genesis "$ROOT" .; echo "cli memory exit $?" ) \
  >"$OUT/memory_tests.log" 2>&1
grep -E "exit|FAIL|Checks" "$OUT/memory_tests.log"

RES=$OUT/gen_sizes.jsonl
: >"$RES"
SIZES="10000 100000 1000000 10000000"
say "generation sizes on the GPU"
BUILD=$BUILD ADULT=$ADULT RESULTS=$RES OUTDIR=$BUILD timeout $(( $(left) - 150 )) \
  bash bench/gen_sizes.sh cuda "$SIZES" || say "GPU sizes stopped (time or error)"
if [ "$(left)" -gt 260 ]; then
  say "100M rows on the GPU"
  BUILD=$BUILD ADULT=$ADULT RESULTS=$RES OUTDIR=$BUILD timeout $(( $(left) - 120 )) \
    bash bench/gen_sizes.sh cuda "100000000" || say "100M stopped (time or error)"
fi
if [ "$(left)" -gt 60 ]; then
  say "generation sizes on the CPU ($(nproc) cores)"
  BUILD=$BUILD ADULT=$ADULT RESULTS=$RES OUTDIR=$BUILD timeout $(( $(left) - 20 )) \
    bash bench/gen_sizes.sh cpu "$SIZES" || say "CPU sizes stopped (time or error)"
fi
say "done"
cat "$RES"
