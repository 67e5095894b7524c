#!/usr/bin/env bash
# wide_tables.sh — rows/s of training, sampling and writing, and evaluate's time and peak
# memory, on the wide, high-cardinality tables of bench/make_wide_table.py (the diabetic-like
# table and the 200-column one). Prints Markdown table rows; the tables and outputs are kept
# in WORKDIR.
#
#   bash bench/wide_tables.sh GENESIS WORKDIR [FIT_ROWS=20000] [EVAL_ROWS=100000] [WIDE_ROWS=20000]
#
# Each model (METHODS, default "ddpm ctgan tvae") is fitted for one epoch on FIT_ROWS rows
# (DDPM: DDPM_ITERS iterations, default 100; the fit's own rows/s line is the training
# figure), then `genesis sample` writes SAMPLE_ROWS rows (default FIT_ROWS; DDPM_SAMPLE_ROWS
# for DDPM, default 2000: its 100 reverse steps are the slow part) with the model's default
# settings: its "rows/s" line is writing (network, decoding and CSV together), and
# rows / (user + system CPU seconds) of the same command is given beside it, the figure that
# other work on a shared machine moves least. evaluate scores EVAL_ROWS sampled rows against
# EVAL_ROWS real ones (--no-* options left at their defaults), timed with /usr/bin/time -v.
# EVAL_ROWS=0 skips evaluate. Threads: THREADS (default 0: the CLI's default, the cores other
# work leaves free; 1 for CPU-time comparisons).
set -u
G=${1:?usage: wide_tables.sh GENESIS WORKDIR [FIT_ROWS] [EVAL_ROWS] [WIDE_ROWS]}
W=${2:?usage: wide_tables.sh GENESIS WORKDIR [FIT_ROWS] [EVAL_ROWS] [WIDE_ROWS]}
FIT=${3:-20000}
EVAL=${4:-100000}
WIDE=${5:-20000}
METHODS=${METHODS:-ddpm ctgan tvae}
THREADS=${THREADS:-0}
DDPM_ITERS=${DDPM_ITERS:-100}
DDPM_SAMPLE_ROWS=${DDPM_SAMPLE_ROWS:-2000}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$W"
[ -s "$W/diabetic_$EVAL.csv" ] || python3 "$HERE/make_wide_table.py" diabetic "$EVAL" >"$W/diabetic_$EVAL.csv"
[ -s "$W/diabetic_$FIT.csv" ] || head -n $((FIT + 1)) "$W/diabetic_$EVAL.csv" >"$W/diabetic_$FIT.csv"
[ -s "$W/wide_$WIDE.csv" ] || python3 "$HERE/make_wide_table.py" wide "$WIDE" >"$W/wide_$WIDE.csv"

rate() { grep -o '[0-9.]* rows/s' "$1" | tail -1 | cut -d' ' -f1; }
cpu() { awk '/User time/ {u = $NF} /System time/ {s = $NF} END {print u + s}' "$1"; }

echo "| table | model | rows fitted | training rows/s | rows written | writing rows/s (sample -> CSV) | writing rows per CPU-s |"
echo "|---|---|---|---|---|---|---|"
for t in "diabetic_$FIT" "wide_$WIDE"; do
    for m in $METHODS; do
        if [ "$m" = ddpm ]; then len="--iterations $DDPM_ITERS"; else len="--epochs 1"; fi
        # shellcheck disable=SC2086 # $len is two words
        "$G" fit -i "$W/$t.csv" -m "$W/$t.$m.gen" --method "$m" $len --seed 1 --threads "$THREADS" \
            --progress >"$W/$t.$m.fit.log" 2>&1 ||
            { echo "| $t | $m | fit failed: $(tail -1 "$W/$t.$m.fit.log") |"; continue; }
        n=$(($(wc -l <"$W/$t.csv") - 1))
        ns=$n
        [ "$m" = ddpm ] && [ "$DDPM_SAMPLE_ROWS" -lt "$n" ] && ns=$DDPM_SAMPLE_ROWS
        /usr/bin/time -v "$G" sample -m "$W/$t.$m.gen" -n "$ns" -o "$W/$t.$m.sample.csv" --seed 3 \
            --threads "$THREADS" >"$W/$t.$m.sample.log" 2>&1 ||
            { echo "| $t | $m | sample failed |"; continue; }
        c=$(cpu "$W/$t.$m.sample.log")
        echo "| $t | $m | $n | $(rate "$W/$t.$m.fit.log") | $ns | $(rate "$W/$t.$m.sample.log") | $(awk -v n="$ns" -v c="$c" 'BEGIN {printf "%.0f", n / c}') |"
    done
done

[ "$EVAL" -gt 0 ] || exit 0
echo
echo "| table | rows (real = synthetic) | evaluate wall | CPU s | peak RSS MB |"
echo "|---|---|---|---|---|"
for t in "diabetic_$EVAL" "wide_$WIDE"; do
    src=${t/diabetic_$EVAL/diabetic_$FIT}
    n=$(($(wc -l <"$W/$t.csv") - 1))
    "$G" sample -m "$W/$src.ctgan.gen" -n "$n" -o "$W/$t.synth.csv" --seed 5 >/dev/null 2>&1 ||
        { echo "| $t | sample failed |"; continue; }
    /usr/bin/time -v "$G" evaluate --real "$W/$t.csv" --synthetic "$W/$t.synth.csv" \
        --threads "$THREADS" --json >"$W/$t.eval.json" 2>"$W/$t.eval.log"
    wall=$(grep 'Elapsed (wall' "$W/$t.eval.log" | awk '{print $NF}')
    rss=$(grep 'Maximum resident' "$W/$t.eval.log" | awk '{printf "%.0f", $NF / 1024}')
    echo "| $t | $n | $wall | $(cpu "$W/$t.eval.log") | $rss |"
done
