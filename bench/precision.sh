#!/usr/bin/env bash
# precision.sh — quality of mixed-precision training (docs/precision.md): CTGAN and TVAE on
# Adult in each precision and seed, each fitted on one thread, sampled to Adult's size and
# scored with `genesis evaluate` (overall quality in both pair modes, column-pair trends of
# the strongly related pairs, logistic detection). One JSON line per run in
# bench/results/precision_<time>/runs.jsonl, then a table of means per model and precision
# with the differences from fp32 (docs/benchmarks.md, "Mixed precision").
#
#   bash bench/precision.sh [epochs=300] [seeds="1 2"] [precisions="fp32 bf16 fp16"] \
#                           [models="ctgan tvae"] [jobs=2]
# Needs the Adult table (UCI, 32,561 rows; not shipped with the repository, data/ holds a
# sample) at $GENESIS_DATA/adult.csv (default ../shared/data, a sibling folder of the
# developers' setup), or another table of that folder named by TABLE (e.g.
# TABLE=california_housing.csv); without it the script says so and exits 0. `jobs` runs go at once,
# each under nice on one thread. BUILD (default build) holds the genesis binary.
set -euo pipefail
cd "$(dirname "$0")/.."
TABLE=${TABLE:-adult.csv}
DATA=${GENESIS_DATA:-../shared/data}/$TABLE
EPOCHS=${1:-300}
SEEDS=${2:-1 2}
PRECS=${3:-fp32 bf16 fp16}
MODELS=${4:-ctgan tvae}
JOBS=${5:-2}
BUILD=${BUILD:-build}
GEN=${GENESIS_BIN:-$BUILD/genesis}
if [ ! -f "$DATA" ]; then echo "precision: $DATA not found (set GENESIS_DATA); skipping"; exit 0; fi
[ -x "$GEN" ] || { cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build "$BUILD" -j"$(nproc)" --target genesis_cli >/dev/null; }
OUT=${OUT:-bench/results/precision_$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$OUT"
echo "precision: $TABLE, $EPOCHS epochs, seeds $SEEDS, $PRECS, $MODELS, $JOBS at a time -> $OUT"
nrows=$(($(wc -l < "$DATA") - 1))

# one run: fit, sample, evaluate; appends a JSON line
run_one() {
  local model=$1 prec=$2 seed=$3 tag="$1_$2_s$3"
  local t0 t1
  t0=$(date +%s.%N)
  if ! OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 "$GEN" fit --method "$model" \
      -i "$DATA" -m "$OUT/$tag.gen" --epochs "$EPOCHS" --precision "$prec" --seed "$seed" \
      --threads 1 > "$OUT/$tag.fit.log" 2>&1; then
    echo "{\"model\":\"$model\",\"precision\":\"$prec\",\"seed\":$seed,\"failed\":\"fit\"}" >> "$OUT/runs.jsonl"
    return 0
  fi
  t1=$(date +%s.%N)
  local skipped
  skipped=$(sed -n 's/.*fp16 loss scaling: \(.*\) skipped.*/\1/p' "$OUT/$tag.fit.log" | head -1)
  OMP_NUM_THREADS=1 nice -n 10 "$GEN" sample -m "$OUT/$tag.gen" -n "$nrows" --seed "$seed" \
    -o "$OUT/$tag.csv" -q --threads 1
  OMP_NUM_THREADS=1 nice -n 10 "$GEN" evaluate --real "$DATA" --synthetic "$OUT/$tag.csv" \
    --skip validity,privacy,usefulness --json -q --threads 1 > "$OUT/$tag.eval.json"
  python3 - "$OUT/$tag.eval.json" "$model" "$prec" "$seed" "$EPOCHS" "$t0" "$t1" "$skipped" "$TABLE" \
      >> "$OUT/runs.jsonl" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))["scores"]
print(json.dumps({"table": sys.argv[9], "model": sys.argv[2], "precision": sys.argv[3], "seed": int(sys.argv[4]),
                  "epochs": int(sys.argv[5]), "fit_s": round(float(sys.argv[7]) - float(sys.argv[6]), 1),
                  "fp16_skipped": sys.argv[8] or None,
                  "quality": d["quality"], "quality_threshold": d["quality_threshold"],
                  "pair_trends": d["column_pair_trends"],
                  "pair_trends_threshold": d["column_pair_trends_threshold"],
                  "detection": d["detection"]}))
EOF
  rm -f "$OUT/$tag.csv"
}
export -f run_one
export GEN DATA TABLE OUT EPOCHS nrows

# seed by seed, so that a run cut short still has whole seeds
for seed in $SEEDS; do for model in $MODELS; do for prec in $PRECS; do
  echo "$model $prec $seed"
done; done; done | xargs -P "$JOBS" -L 1 bash -c 'run_one "$0" "$1" "$2"'

python3 bench/precision_table.py "$OUT/runs.jsonl" | tee "$OUT/table.md"
