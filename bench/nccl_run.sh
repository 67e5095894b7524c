#!/usr/bin/env bash
# nccl_run.sh — the first GPU run of data-parallel training (docs/distributed.md), for a GPU
# session (H100/H200, CUDA 13 with NCCL, no Debian -dev packages, no network, usually ONE
# GPU and no MPI). It:
#   1. unpacks bench/debs (bench/fetch_debs.sh) as bench/gpu_run.sh does, configures with
#      -DGENESIS_CUDA=ON -DGENESIS_NCCL=ON (MPI when the machine has it) and builds the
#      library, the CLI, mpi_equiv, bench_allreduce and test_dist;
#   2. the equivalence contract on the GPU, ranks as threads of one process (no MPI needed):
#      a. 1 rank on GPU 0, CTGAN and TVAE, batch 500 (4 steps on adult_sample.csv);
#      b. 2 thread ranks on GPU 0 with host-staged sums (the GPU kernels of the data-parallel
#         path: synchronised batch norm, noise slices) — works with any NCCL;
#      c. 2 NCCL ranks: on GPUs 0 and 1 when there are two, else both on GPU 0 with
#         NCCL_MULTI_RANK_GPU_ENABLE=1 (NCCL >= 2.30; docs/algorithms.md §E4; older NCCL
#         refuses: "Duplicate GPU detected"), NCCL_NVLS_ENABLE=0;
#      each compared: ranks bit-identical, 2 ranks vs 1 rank within the CI tolerance
#      (|a-b|/|b| <= 1e-4 per array, |a-b| <= 2.5e-3), and GPU vs CPU for information;
#   3. the all-reduce cost: bench_allreduce --team 2 nccl (and threads), per call and per
#      CTGAN/TVAE step;
#   4. the CLI: `genesis fit --devices 0,1` (two GPUs) or the 2-rank mpirun path when the
#      machine has MPI and 2 GPUs;
#   5. writes summary.md, run.log and the raw outputs under $OUT.
# Every step has a timeout; the whole run stays under the 10-minute limit.
#
#   On the CPU machine, once:   bash bench/fetch_debs.sh
#   On the GPU machine (device run, carry ["bench/debs"]):   bash bench/nccl_run.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
OUT=${OUT:-$ROOT/nccl_out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/run.log") 2>&1
T0=$(date +%s)
BUILD=${BUILD:-$ROOT/build-nccl}
DEPS=$BUILD/deps
JOBS=$(nproc)
MA=x86_64-linux-gnu
elapsed() { echo $(( $(date +%s) - T0 )); }
say() { echo "[nccl_run +$(elapsed)s] $*"; }
SUMMARY=$OUT/summary.md
: >"$SUMMARY"
sum() { echo "$*" >>"$SUMMARY"; }

sum "# Genesis data-parallel GPU run"
sum ""
sum "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
sum "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
sum "- GPUs: ${NGPU:-0}: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c | xargs)"
NCCL_H=$(ls /usr/local/cuda/include/nccl.h /usr/include/nccl.h 2>/dev/null | head -1)
NCCL_VER=""
if [ -n "$NCCL_H" ]; then
  NCCL_VER=$(awk '/#define NCCL_MAJOR/{a=$3} /#define NCCL_MINOR/{b=$3} /#define NCCL_PATCH/{c=$3} END{print a"."b"."c}' "$NCCL_H")
fi
sum "- NCCL: ${NCCL_VER:-not found} ($NCCL_H)"
sum "- MPI: $(command -v mpirun >/dev/null && mpirun --version 2>&1 | head -1 || echo 'none (team of threads only)')"

# ---- 1. dependencies, configure, build ----------------------------------------------------------
. "$ROOT/bench/gpu_deps.sh"
gpu_deps_setup || say "no .deb files: assuming the build dependencies are installed"
GEN=()
command -v ninja >/dev/null 2>&1 && GEN=(-G Ninja)
say "configure"
if ! cmake -S . -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DGENESIS_CUDA=ON \
    -DGENESIS_NCCL=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DGENESIS_WERROR=ON "${CMAKE_EXTRA[@]}"; then
  sum "- FAILED: cmake configure (see run.log)"; exit 1
fi
say "build"
if ! timeout 300 cmake --build "$BUILD" -j"$JOBS" --target genesis_cli genesis_cuda mpi_equiv bench_allreduce test_dist; then
  sum "- FAILED: build (see run.log)"; exit 1
fi
sum "- build: OK in $(elapsed) s"
"$BUILD/genesis" info | tee "$OUT/info.txt"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-4} OPENBLAS_NUM_THREADS=1 GEN_SOURCE_DIR=$ROOT
( cd "$BUILD" && timeout 60 ./test_dist ) >"$OUT/test_dist.log" 2>&1
sum "- test_dist: $(tail -1 "$OUT/test_dist.log")"

# ---- 2. equivalence on the GPU -------------------------------------------------------------------
E=$BUILD/mpi_equiv
DATA=$ROOT/data/adult_sample.csv
ATOL=2.5e-3
RTOL=1e-4
W=$OUT/state
mkdir -p "$W"
sum ""
sum "## Equivalence (batch 500, 4 steps; tolerance |a-b|/|b| <= $RTOL per array, |a-b| <= $ATOL)"
compare() { # LABEL A B
  local res
  res=$("$E" compare "$2" "$3" $ATOL $RTOL 2>&1)
  echo "$res" | sed 's/^/    /'
  sum "- $1: $(echo "$res" | tail -1 | sed 's/^mpi_equiv: //')"
  echo "$res" | grep -E '^mpi_equiv: (G params|D params|params) ' | sed 's/^mpi_equiv: /  - /' >>"$SUMMARY"
}
same_ranks() { # LABEL PREFIX
  if cmp -s "$2.rank0.bin" "$2.rank1.bin"; then sum "- $1: ranks bit-identical"
  else sum "- $1: RANKS DIFFER ($(cmp "$2.rank0.bin" "$2.rank1.bin" 2>&1 | head -1))"; fi
}
for m in ctgan tvae; do
  say "$m: CPU 1 rank, GPU 1 rank"
  timeout 120 "$E" fit $m "$DATA" 500 1 "$W/$m.cpu1"
  MPI_EQUIV_DEVICE=cuda timeout 120 "$E" fit $m "$DATA" 500 1 "$W/$m.gpu1" || sum "- $m: GPU single rank FAILED"
  say "$m: 2 thread ranks on GPU 0 (host-staged sums)"
  if MPI_EQUIV_DEVICE=cuda timeout 120 "$E" team $m "$DATA" 500 1 "$W/$m.gputhr" 2 threads; then
    same_ranks "$m, 2 thread ranks on GPU 0" "$W/$m.gputhr"
    compare "$m, 2 thread ranks (GPU) vs 1 rank (GPU)" "$W/$m.gputhr.rank0.bin" "$W/$m.gpu1.rank0.bin"
  else sum "- $m: 2 thread ranks on the GPU FAILED (see run.log)"; fi
  if [ "${NGPU:-0}" -ge 2 ]; then
    say "$m: 2 NCCL ranks on GPUs 0 and 1"
    NCCL_ENV=(MPI_EQUIV_GPUS=2)
    where="GPUs 0 and 1"
  else
    say "$m: 2 NCCL ranks on GPU 0 (NCCL_MULTI_RANK_GPU_ENABLE=1)"
    NCCL_ENV=(NCCL_MULTI_RANK_GPU_ENABLE=1 NCCL_NVLS_ENABLE=0 MPI_EQUIV_GPUS=1)
    where="one GPU, NCCL_MULTI_RANK_GPU_ENABLE=1"
  fi
  if env "${NCCL_ENV[@]}" NCCL_DEBUG=WARN timeout 180 "$E" team $m "$DATA" 500 1 "$W/$m.nccl" 2 nccl; then
    same_ranks "$m, 2 NCCL ranks ($where)" "$W/$m.nccl"
    compare "$m, 2 NCCL ranks vs 1 rank (GPU)" "$W/$m.nccl.rank0.bin" "$W/$m.gpu1.rank0.bin"
  else
    sum "- $m: 2 NCCL ranks ($where) FAILED, exit $? (NCCL $NCCL_VER; see run.log)"
  fi
  [ -f "$W/$m.gpu1.rank0.bin" ] && compare "$m, GPU 1 rank vs CPU 1 rank (information: backends differ in rounding)" "$W/$m.gpu1.rank0.bin" "$W/$m.cpu1.rank0.bin"
done

# ---- 3. all-reduce cost ----------------------------------------------------------------------------
sum ""
sum "## All-reduce cost (bench_allreduce; Adult-sample model sizes)"
say "bench_allreduce --team 2 nccl"
if [ "${NGPU:-0}" -ge 2 ]; then BENV=(BENCH_GPUS=2); else BENV=(NCCL_MULTI_RANK_GPU_ENABLE=1 NCCL_NVLS_ENABLE=0 BENCH_GPUS=1); fi
env "${BENV[@]}" timeout 180 "$BUILD/bench_allreduce" "$DATA" --team 2 nccl >"$OUT/allreduce_nccl.txt" 2>&1
sum '```'; cat "$OUT/allreduce_nccl.txt" >>"$SUMMARY"; sum '```'
timeout 120 "$BUILD/bench_allreduce" "$DATA" --team 2 threads >"$OUT/allreduce_threads.txt" 2>&1
sum '```'; cat "$OUT/allreduce_threads.txt" >>"$SUMMARY"; sum '```'
if [ "${NGPU:-0}" -ge 4 ]; then
  for k in 4 8; do
    [ "$NGPU" -ge $k ] || continue
    BENCH_GPUS=$k timeout 120 "$BUILD/bench_allreduce" "$DATA" --team $k nccl >"$OUT/allreduce_nccl_$k.txt" 2>&1
    sum '```'; cat "$OUT/allreduce_nccl_$k.txt" >>"$SUMMARY"; sum '```'
  done
fi

# ---- 4. the CLI --------------------------------------------------------------------------------------
sum ""
sum "## CLI"
if [ "${NGPU:-0}" -ge 2 ]; then
  say "genesis fit --devices 0,1 (one thread per GPU, NCCL)"
  timeout 180 "$BUILD/genesis" fit --method ctgan --progress --epochs 2 -i "$DATA" -m "$OUT/devices01.gen" --devices 0,1 \
    >"$OUT/cli_devices.log" 2>&1
  sum "- genesis fit --devices 0,1: exit $?; $(grep -m1 'all-reduce calls' "$OUT/cli_devices.log")"
  if command -v mpirun >/dev/null 2>&1; then
    timeout 180 mpirun --allow-run-as-root -np 2 "$BUILD/genesis" fit --method ctgan --epochs 2 -i "$DATA" \
      -m "$OUT/mpi01.gen" --devices 0,1 >"$OUT/cli_mpirun.log" 2>&1
    sum "- mpirun -np 2 genesis fit --devices 0,1: exit $?; $(grep -m1 'all-reduce calls' "$OUT/cli_mpirun.log")"
  fi
else
  say "one GPU: genesis fit --devices 0 (single GPU), and --devices 0,1 must refuse"
  timeout 180 "$BUILD/genesis" fit -q --method ctgan --epochs 1 -i "$DATA" -m "$OUT/dev0.gen" --devices 0 >"$OUT/cli_dev0.log" 2>&1
  sum "- genesis fit --devices 0: exit $?"
  timeout 60 "$BUILD/genesis" fit -q --method ctgan --epochs 1 -i "$DATA" -m "$OUT/dev01.gen" --devices 0,1 >"$OUT/cli_dev01.log" 2>&1
  sum "- genesis fit --devices 0,1 on one GPU: exit $? ($(head -1 "$OUT/cli_dev01.log"))"
fi
rm -rf "$W"
sum ""
sum "- total: $(elapsed) s"
say "done: $SUMMARY"
cat "$SUMMARY"
