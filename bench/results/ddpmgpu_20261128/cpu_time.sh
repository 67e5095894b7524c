#!/usr/bin/env bash
# cpu_time.sh OLD_GENESIS NEW_GENESIS TABLE [ROUNDS=3] [ITERS=60] — CPU seconds (user + sys) of a
# DDPM fit at batch 2,000 with --threads 1, the binaries alternated; minus the CPU seconds of
# the same fit with --iterations 1 (preparation, one step, saving), so the figure is the
# iterations' own work. CPU time rather than wall time: the machine is shared and loaded.
set -u
OLD=$1 NEW=$2 TBL=$3 ROUNDS=${4:-3} IT=${5:-60}
W=$(mktemp -d)
cpu() { # bin iters -> user+sys seconds
  /usr/bin/time -f "%U %S" -o "$W/t" "$1" fit -q --method ddpm -i "$TBL" -m "$W/m.gen" \
    --batch-size 2000 --iterations "$2" --threads 1 --seed 0 && awk '{ print $1 + $2 }' "$W/t"
}
for r in $(seq "$ROUNDS"); do
  for b in OLD NEW; do
    bin=${!b}
    a=$(cpu "$bin" "$IT"); z=$(cpu "$bin" 1)
    echo "$b round $r: $IT iterations $a s, 1 iteration $z s, per iteration $(echo "scale=2; 1000 * ($a - $z) / ($IT - 1)" | bc) ms"
  done
done
rm -rf "$W"
