#!/usr/bin/env bash
# ddpm_fit_gpu.sh — DDPM training speed on the GPU (docs/ddpm.md §6, §9): `genesis fit --method
# ddpm` on Adult at batch 4,096 with the default denoiser and with a 16x larger one
# (--generator-dim 1024 --num-layers 4; half the iterations), rows/s from the last --progress
# line. Run it after bench/gpu_session.sh's build phase (it uses that build); each fit is
# capped at 40 s (at the rates measured before the forward process moved to the device, 9.6 ms
# an iteration, the first takes ~30 s and the second ~18 s).
#
#   bash bench/ddpm_fit_gpu.sh [BUILD=build-gpu] [OUT=$BUILD/out]
#   DDPM_FIT_DRY=1 bash bench/ddpm_fit_gpu.sh build   # dry run on the emulated CUDA runtime
#
# Device tool: run(command="bash bench/gpu_session.sh --call 2 --phases build && bash
#   bench/ddpm_fit_gpu.sh", carry=["bench/debs"], timeout_s=180)
# Prints one JSON line per fit (also to $OUT/ddpm_fit_gpu.jsonl) and keeps the logs there.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build-gpu}
OUT=${2:-$BUILD/out}
ADULT=$ROOT/bench/debs/tables/adult.csv
[ -f "$ADULT" ] || ADULT=$ROOT/bench/debs/adult.csv
[ -f "$ADULT" ] || ADULT=$ROOT/data/adult_sample.csv
IT=${DDPM_FIT_ITERS:-3000} BS=4096 CAP=${DDPM_FIT_CAP:-40}
if [ "${DDPM_FIT_DRY:-0}" = 1 ]; then   # the emulator: flags and paths, tiny sizes
  export GENESIS_CUDA_EMULATOR=1 GENESIS_CUDA_MODULE=$BUILD/cuemu/libgenesis-cuda.so
  IT=6 BS=64 CAP=300 # the large fit: 3 iterations
fi
mkdir -p "$OUT"
J=$OUT/ddpm_fit_gpu.jsonl
: >"$J"
fit() { # name, iterations, extra flags...
  local name=$1 IT=$2; shift 2
  local log=$OUT/ddpm_fit_$name.log t0 t1 rc
  t0=$(date +%s.%N)
  timeout "$CAP" "$BUILD/genesis" fit --method ddpm -i "$ADULT" -m "$OUT/ddpm_$name.gen" \
    --iterations "$IT" --batch-size "$BS" --seed 0 --progress "$@" 2>"$log" >/dev/null
  rc=$?
  t1=$(date +%s.%N)
  # the last progress line's rows/s, and the device the log names (python3 for the
  # arithmetic: the GPU machine has no bc)
  local rps on
  rps=$(tr '\r' '\n' <"$log" | grep -oE '[0-9][0-9,.]* rows/s' | tail -1 | tr -d ', ' | sed 's/rows\/s//')
  on=$(sed -n 's/.*training [A-Z]* for .* on \(.*\)$/\1/p' "$log" | tail -1)
  local line="{\"bench\":\"ddpm_fit\",\"name\":\"$name\",\"iterations\":$IT,\"batch\":$BS,\"exit\":$rc,\"wall_s\":$(python3 -c "print(round($t1 - $t0, 2))"),\"rows_per_s\":\"${rps:-?}\",\"trained_on\":\"$on\",\"flags\":\"$*\"}"
  echo "$line" | tee -a "$J"
}
fit default "$IT"
fit large $(( IT / 2 )) --generator-dim 1024 --num-layers 4
