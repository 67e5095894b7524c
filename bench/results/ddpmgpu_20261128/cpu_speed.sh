#!/usr/bin/env bash
# cpu_speed.sh OLD_GENESIS NEW_GENESIS TABLE [ROUNDS=3] — DDPM training speed on the CPU, the two
# binaries alternated in one run: `fit --method ddpm` at batch 4,096 (10 iterations) and at the
# default batch 256 (100 iterations), --threads 2; rows/s from the last --progress line.
set -u
OLD=$1 NEW=$2 TBL=$3 ROUNDS=${4:-3}
W=$(mktemp -d)
one() { # bin tag batch iters
  "$1" fit --method ddpm -i "$TBL" -m "$W/m.gen" --batch-size "$3" --iterations "$4" --threads 2 \
    --seed 0 --progress 2>&1 | tr '\r' '\n' | grep -oE '[0-9]+ rows/s' | tail -1 | sed "s/^/$2 batch $3: /"
}
for r in $(seq "$ROUNDS"); do
  for cfg in "4096 10" "256 100"; do
    set -- $cfg
    one "$OLD" old "$1" "$2"
    one "$NEW" new "$1" "$2"
  done
done
rm -rf "$W"
