#!/usr/bin/env bash
# gpu_ddpm_tstr.sh — DDPM on the five public tables at TabDDPM's own training budget (30,000
# steps of 4,096 rows; Kotelnikov et al. 2023, the budget docs/benchmarks.md compares against)
# on a GPU machine, where it takes minutes, not the hours the 2-core CPU machine would need:
# bench/quality/five_tables.sh with MODELS=ddpm, the TSTR target as the class condition (10% of
# the labels hidden; the quantile map, DDPM's default since 2026-11-26), and sampling with all
# reverse steps and with 100 strided ones, each with
# guidance 0, 0.5 and 1; fits on the GPU, scoring
# (`genesis evaluate`, one thread each) on the host's cores, JOBS runs at a time.
#
# It reuses the build bench/gpu_session.sh left in build-gpu (same warm machine); without one it
# builds the CLI the same way first. The tables come from $GENESIS_DATA, default bench/debs/tables
# (bench/fetch_debs.sh copies them there). Writes under $OUT: ddpm_tstr.md (the
# five-table summary), runs.jsonl (one line per run with its settings and scores) and
# ddpm_tstr.tgz (every run's evaluation JSON and logs).
#
#   device tool: run(command="bash bench/gpu_ddpm_tstr.sh", carry=["bench/debs"], timeout_s=590)
#   Environment: TABLES (default: all five), SEEDS ("0 1"), ITERS (30000), BATCH (4096),
#   STEPS ("0 100"), FLAGS ("--label-dropout 0.1"), GUIDANCE ("0 0.5 1": classifier-free
#   guidance weights, docs/ddpm.md §3b), JOBS (half the cores), GPU_RUN_BUDGET (seconds, 560).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
OUT=${OUT:-$ROOT/gpu_out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/ddpm_tstr.log") 2>&1
T0=$(date +%s)
BUDGET=${GPU_RUN_BUDGET:-560}
BUILD=${BUILD:-$ROOT/build-gpu}
MA=x86_64-linux-gnu
DEPS=$BUILD/deps
PYNV=$(python3 -c "import nvidia; print(list(nvidia.__path__)[0])" 2>/dev/null || true)
export LD_LIBRARY_PATH="$DEPS/usr/lib/$MA:$DEPS/usr/lib/$MA/openblas-openmp:$DEPS/lib/$MA${PYNV:+:$PYNV/cudnn/lib:$PYNV/nccl/lib}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
say() { echo "[gpu_ddpm_tstr +$(( $(date +%s) - T0 ))s] $*"; }
if [ ! -x "$BUILD/genesis" ]; then
  say "no build in $BUILD: bench/gpu_session.sh's build phase first"
  BUILD=$BUILD OUT="$BUILD/build_only" BUDGET_build=200 CALL_BUDGET=220 timeout 240 bash bench/gpu_session.sh --call 2 --phases build >/dev/null 2>&1 || true
fi
[ -x "$BUILD/genesis" ] || { say "no genesis binary in $BUILD"; exit 1; }
DATA=${GENESIS_DATA:-$ROOT/bench/debs/tables}
W=$BUILD/ddpm_tstr
rm -rf "$W"
NPROC=$(nproc)
say "DDPM at ${ITERS:-30000} iterations x batch ${BATCH:-4096}, tables from $DATA, $NPROC cores, $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
GENESIS_DATA=$DATA GENESIS_BIN=$BUILD/genesis BUILD=$BUILD MODELS=ddpm \
  TABLES=${TABLES:-california bank covertype energy news} SEEDS=${SEEDS:-0 1} \
  DDPM_ITERS=${ITERS:-30000} DDPM_BATCH=${BATCH:-4096} DDPM_STEPS=${STEPS:-0 100} DDPM_TARGET=1 \
  DDPM_FLAGS=${FLAGS:---label-dropout 0.1} DDPM_GUIDANCE=${GUIDANCE:-0 0.5 1} \
  JOBS=${JOBS:-$(( NPROC / 2 > 1 ? NPROC / 2 : 1 ))} OUT=$W \
  timeout $(( BUDGET - (${SECONDS:-0}) - 20 )) bash bench/quality/five_tables.sh
say "five_tables.sh exit $?"
[ -f "$W/table.md" ] && cp "$W/table.md" "$OUT/ddpm_tstr.md"
[ -f "$W/runs.jsonl" ] && cp "$W/runs.jsonl" "$OUT/runs.jsonl"
( cd "$W" 2>/dev/null && find . -name '*.json' -o -name '*.log' -o -name '*.err' | tar czf "$OUT/ddpm_tstr.tgz" -T - ) || true
cat "$OUT/ddpm_tstr.md" 2>/dev/null
say "done"
