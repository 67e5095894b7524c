#!/usr/bin/env bash
# same_bytes.sh — does a new build write the same bytes as an old one? For every model (CTGAN,
# TVAE, DDPM, TimeGAN) it fits data/adult_sample.csv (TimeGAN: a generated series) with a fixed
# seed and small settings, saves the model and samples rows, with each binary; then compares
# the model files and the samples byte for byte. Used to show that a change meant to keep
# behaviour (a restructuring, a refactor) does, on the CPU.
#
#   bash bench/same_bytes.sh OLD_GENESIS NEW_GENESIS [WORKDIR]
#
# Exit 0 when every pair is identical, 1 otherwise (each pair is listed).
set -u
OLD=${1:?usage: same_bytes.sh OLD_GENESIS NEW_GENESIS [WORKDIR]}
NEW=${2:?usage: same_bytes.sh OLD_GENESIS NEW_GENESIS [WORKDIR]}
HERE=$(cd "$(dirname "$0")/.." && pwd)
W=${3:-$(mktemp -d)}
mkdir -p "$W"
ADULT="$HERE/data/adult_sample.csv"
awk 'BEGIN { print "price,volume,regime";
             for (i = 0; i < 160; i++) printf "%.3f,%d,%s\n", 50 + 10 * sin(i / 7), 1000 + 37 * (i % 11), (i % 30 < 10 ? "low" : i % 30 < 20 ? "mid" : "high") }' >"$W/series.csv"

run_one() { # which binary tag model-args...
    local bin=$1 tag=$2; shift 2
    "$bin" generate -q --threads 1 --seed 7 "$@" -o "$W/$tag.csv" --save "$W/$tag.gen" >"$W/$tag.log" 2>&1 ||
        { echo "  $tag: generate failed ($(tail -1 "$W/$tag.log"))"; return 1; }
    "$bin" sample -q --threads 1 --seed 11 -m "$W/$tag.gen" -n 300 -o "$W/$tag.sample.csv" >>"$W/$tag.log" 2>&1 ||
        { echo "  $tag: sample failed"; return 1; }
}

declare -A ARGS=(
    [ctgan]="--method ctgan -i $ADULT -n 500 --epochs 3"
    [tvae]="--method tvae -i $ADULT -n 500 --epochs 3"
    [ddpm]="--method ddpm -i $ADULT -n 500 --iterations 60 --diffusion-steps 50"
    [timegan]="--method timegan -i $W/series.csv --seq-len 8 -n 20 --iterations 8 --hidden-dim 6 --num-layers 2 --batch-size 16"
)
rc=0
for m in ctgan tvae ddpm timegan; do
    # shellcheck disable=SC2086
    run_one "$OLD" "old_$m" ${ARGS[$m]} || rc=1
    # shellcheck disable=SC2086
    run_one "$NEW" "new_$m" ${ARGS[$m]} || rc=1
    for f in gen csv sample.csv; do
        if cmp -s "$W/old_$m.$f" "$W/new_$m.$f"; then echo "same      $m .$f ($(wc -c <"$W/new_$m.$f") bytes)"
        else echo "DIFFERENT $m .$f"; rc=1; fi
    done
done
exit $rc
