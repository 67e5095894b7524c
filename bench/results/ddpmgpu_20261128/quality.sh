#!/usr/bin/env bash
# quality.sh BIN_DIR LABEL OUT_DIR — DDPM fit (default settings but ITERS iterations, default
# 1000; 1 thread) + sample + evaluate on three tables x two seeds; one JSON line per run in
# OUT_DIR/LABEL.jsonl. The tables: data/adult_sample.csv and, for measurement only,
# titanic_train.csv and the first 3,000 rows of california_housing.csv from $GENESIS_DATA
# (the folder of the public tables, as bench/fetch_debs.sh; CALIFORNIA names the cut file).
set -euo pipefail
BIN=$1; LABEL=$2; OUT=$3
DATA=${GENESIS_DATA:?set GENESIS_DATA to the folder holding titanic_train.csv and california_housing.csv}
HERE=$(cd "$(dirname "$0")/../../.." && pwd)
G="$BIN/genesis"
export LD_LIBRARY_PATH="$BIN${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p "$OUT/tmp"
[ "${APPEND:-0}" = 1 ] || : > "$OUT/$LABEL.jsonl"
IT=${ITERS:-1000}
CAL=${CALIFORNIA:-$OUT/california_3000.csv}
[ -f "$CAL" ] || head -n 3001 "$DATA/california_housing.csv" > "$CAL"
# TABLES / SEEDS override the tables and seeds (APPEND=1 adds to LABEL.jsonl)
for tbl in ${TABLES:-"$HERE/data/adult_sample.csv" "$DATA/titanic_train.csv" "$CAL"}; do
  name=$(basename "$tbl" .csv)
  rows=$(($(wc -l < "$tbl") - 1))
  for seed in ${SEEDS:-0 1}; do
    m="$OUT/tmp/$LABEL-$name-$seed.gen"; s="$OUT/tmp/$LABEL-$name-$seed.csv"
    t0=$(date +%s.%N)
    "$G" fit -q --method ddpm --iterations "$IT" --threads 1 --seed "$seed" -i "$tbl" -m "$m"
    t1=$(date +%s.%N)
    "$G" sample -q --threads 1 --seed "$seed" -m "$m" -n "$rows" -o "$s"
    ev=$("$G" evaluate -q --threads 1 --json --skip privacy,validity --real "$tbl" --synthetic "$s")
    printf '{"label":"%s","table":"%s","seed":%s,"fit_s":%.2f,"model_sha":"%s","eval":%s}\n' \
      "$LABEL" "$name" "$seed" "$(echo "$t1 - $t0" | bc)" "$(sha256sum "$m" | cut -c1-16)" \
      "$ev" >> "$OUT/$LABEL.jsonl"
  done
done
