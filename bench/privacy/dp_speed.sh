#!/bin/sh
# dp_speed.sh — training speed with and without differential privacy, side by side in one
# run on the same machine (docs/privacy.md, "Measured"): TVAE and CTGAN (EPOCHS, default 10)
# and DDPM (ITERS, default 300 iterations) — METHODS, default "tvae ddpm" — on the training
# table of dp_adult.sh, each fitted without
# DP and with --epsilon 3, alternating, REPEATS times (default 2); prints each fit's wall
# time and CPU time (user + system: less sensitive than wall time to other work on a shared
# machine) and their ratios.
# usage: bench/privacy/dp_speed.sh TRAIN.csv [OUT.txt]; env GENESIS, EPOCHS, ITERS, REPEATS,
# THREADS (default 2), METHODS
set -e
GENESIS=${GENESIS:-build/genesis}
TRAIN=${1:?usage: dp_speed.sh TRAIN.csv [OUT.txt]}
OUT=${2:-/dev/stdout}
EPOCHS=${EPOCHS:-10}
ITERS=${ITERS:-300}
REPEATS=${REPEATS:-2}
THREADS=${THREADS:-2}
METHODS=${METHODS:-tvae ddpm}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fit() { # method dp(0/1)
  len="--epochs $EPOCHS"; [ "$1" = ddpm ] && len="--iterations $ITERS"
  dp=""; [ "$2" = 1 ] && dp="--epsilon 3"
  /usr/bin/time -f "%e %U %S" -o "$tmp/t" $GENESIS fit -q --threads "$THREADS" --seed 1 \
      -i "$TRAIN" -m "$tmp/m.gen" --method "$1" $len $dp
  awk '{ printf "%s %.2f", $1, $2 + $3 }' "$tmp/t"
}
{
  echo "method repeat plain_wall_s dp_wall_s wall_ratio plain_cpu_s dp_cpu_s cpu_ratio"
  for method in $METHODS; do
    for r in $(seq "$REPEATS"); do
      a=$(fit "$method" 0); b=$(fit "$method" 1)
      set -- $a $b
      echo "$method $r $1 $3 $(echo "scale=2; $3 / $1" | bc) $2 $4 $(echo "scale=2; $4 / $2" | bc)"
    done
  done
} > "$OUT"
