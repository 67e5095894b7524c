#!/usr/bin/env bash
# gen_sizes.sh — docs/benchmarks.md, "Generation across sizes": one CTGAN model of Adult
# generates n = 10K, 100K, 1M, 10M (and 100M) rows to a CSV file; for each n: wall time, rows/s, peak
# host memory (VmHWM) and peak device memory (cudaMemGetInfo, sampled after every batch),
# and the memory model's estimate beside them. Each n runs in its own process
# (bench_memory sample), batches sized automatically from the memory budget.
#
#   bash bench/gen_sizes.sh [device=cpu|cuda] [sizes="10000 100000 1000000 10000000"]
#
# Environment: BUILD (default build), ADULT (default $GENESIS_DATA/adult.csv, GENESIS_DATA
# defaulting to ../shared/data, a sibling folder of the developers' setup; the full Adult
# table is not shipped, so without it the script says so and uses the repository's
# data/adult_sample.csv), EPOCHS for the model (default 5: the generator's size, not its
# quality, sets the speed), OUTDIR for the CSV files (default /tmp; each is deleted after
# timing), RESULTS (default bench/results/gen_sizes_<device>_<date>.jsonl).
set -euo pipefail
cd "$(dirname "$0")/.."
DEVICE=${1:-cpu}
SIZES=${2:-10000 100000 1000000 10000000}
BUILD=${BUILD:-build}
EPOCHS=${EPOCHS:-5}
ADULT=${ADULT:-${GENESIS_DATA:-../shared/data}/adult.csv}
[ -f "$ADULT" ] || { echo "gen_sizes: $ADULT not found (set ADULT or GENESIS_DATA); using data/adult_sample.csv"; ADULT=data/adult_sample.csv; }
OUTDIR=${OUTDIR:-/tmp}
mkdir -p bench/results
RESULTS=${RESULTS:-bench/results/gen_sizes_${DEVICE}_$(date -u +%Y%m%dT%H%M%SZ).jsonl}
[ -x "$BUILD/bench_memory" ] || { cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build "$BUILD" -j"$(nproc)" >/dev/null; }
machine="$(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores"
gpu=$(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | head -1 || true)
echo "gen_sizes: device $DEVICE; $machine; ${gpu:-no GPU}; load $(cut -d' ' -f1-3 /proc/loadavg)"
MODEL="$OUTDIR/gen_sizes_adult_$DEVICE.gen"
t0=$(date +%s.%N)
"$BUILD/genesis" fit -q --method ctgan -i "$ADULT" -m "$MODEL" --epochs "$EPOCHS" --device "$DEVICE" --seed 1
t1=$(date +%s.%N)
echo "gen_sizes: model fitted in $(python3 -c "print(f'{$t1-$t0:.1f}')") s ($EPOCHS epochs)"
for n in $SIZES; do
  line=$(GENESIS_DEVICE=$DEVICE BENCH_MEMORY_OUT="$OUTDIR/gen_sizes_out.csv" \
         "$BUILD/bench_memory" sample "$MODEL" "$n" 0 | tail -1)
  python3 - "$line" "$n" "$DEVICE" "$machine" "${gpu:-}" "$(cut -d' ' -f1-3 /proc/loadavg)" \
      "$(git rev-parse --short HEAD)" <<'PY' | tee -a "$RESULTS"
import json, sys
r = json.loads(sys.argv[1])
n = int(sys.argv[2])
out = {"bench": "gen_sizes", "device": sys.argv[3], "rows": n, "seconds": r["seconds"],
       "rows_per_s": round(n / r["seconds"]) if r["seconds"] > 0 else None,
       "batch_rows": r["batch_rows"], "peak_host": r["peak_host"], "estimate_host": r["estimate_host"],
       "peak_device": r["peak_device"], "estimate_device": r["estimate_device"],
       "device_before": r.get("device_before", 0),
       "process_device": r["peak_device"] - r.get("device_before", 0) if r["peak_device"] else 0,
       "machine": sys.argv[4], "gpu": sys.argv[5], "load": sys.argv[6], "commit": sys.argv[7]}
print(json.dumps(out))
PY
done
rm -f "$MODEL"
echo "gen_sizes: results in $RESULTS"
