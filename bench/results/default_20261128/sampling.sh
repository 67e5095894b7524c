#!/usr/bin/env bash
# sampling.sh — rows/s of generating ROWS rows from Adult on host cores: CTGAN and DDPM (100 and
# 50 strided reverse steps) side by side, each repeated REPEATS times in turns, --threads THREADS.
# The fits are short (sampling time does not depend on how long a model trained: the same
# networks run), so only the sampling is measured: the "wrote N rows ... (R rows/s)" line of
# `genesis sample`. Usage: sampling.sh OUT [adult.csv] (GENESIS, ROWS, THREADS, REPEATS).
set -u
OUT=${1:?usage: sampling.sh OUT [adult.csv]}
DATA=${2:-data/adult_sample.csv}
G=${GENESIS:-build/genesis}
ROWS=${ROWS:-100000}; THREADS=${THREADS:-2}; REPEATS=${REPEATS:-2}
mkdir -p "$OUT"
"$G" fit -q -i "$DATA" -m "$OUT/ctgan.gen" --method ctgan --epochs 1 --seed 1 --threads "$THREADS" || exit 1
"$G" fit -q -i "$DATA" -m "$OUT/ddpm.gen" --method ddpm --iterations 100 --seed 1 --threads "$THREADS" || exit 1
printf 'repeat\tmodel\tsample_steps\trows\tseconds\trows_per_s\tload1\n' >"$OUT/sampling.tsv"
for r in $(seq 1 "$REPEATS"); do
    for spec in ctgan:- ddpm:100 ddpm:50; do
        m=${spec%%:*}; steps=${spec#*:}; extra=()
        [ "$steps" != - ] && extra=(--sample-steps "$steps")
        load=$(cut -d' ' -f1 /proc/loadavg)
        "$G" sample -m "$OUT/$m.gen" -o "$OUT/$m.csv" -n "$ROWS" --seed 2 --threads "$THREADS" \
            "${extra[@]}" 2>"$OUT/$m.$steps.$r.log" || { echo "sample $spec failed" >&2; exit 1; }
        line=$(grep 'wrote' "$OUT/$m.$steps.$r.log")
        secs=$(echo "$line" | sed -E 's/.* in ([0-9.]+) s .*/\1/')
        rps=$(echo "$line" | sed -E 's/.*\(([0-9,]+) rows\/s\).*/\1/' | tr -d ,)
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$m" "$steps" "$ROWS" "$secs" "$rps" "$load" >>"$OUT/sampling.tsv"
    done
done
rm -f "$OUT"/*.csv
cat "$OUT/sampling.tsv"
